package dev.custody.cli.repl;

import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jline.reader.Highlighter;
import org.jline.reader.LineReader;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * Colours the entry being typed: the command word in bold; fields of the current action in cyan (a field
 * that the action does not have, such as {@code withdrawal.amout}, in red); string literals in green,
 * numbers in yellow, {@code true}/{@code false}/{@code null} in magenta. Only installed on a terminal that
 * shows colours. Stateless apart from the action supplier; jline calls it from its reading thread.
 */
final class ReplHighlighter implements Highlighter {
    static final AttributedStyle COMMAND = AttributedStyle.BOLD;
    static final AttributedStyle FIELD = AttributedStyle.DEFAULT.foreground(AttributedStyle.CYAN);
    static final AttributedStyle UNKNOWN_FIELD = AttributedStyle.DEFAULT.foreground(AttributedStyle.RED);
    static final AttributedStyle STRING = AttributedStyle.DEFAULT.foreground(AttributedStyle.GREEN);
    static final AttributedStyle NUMBER = AttributedStyle.DEFAULT.foreground(AttributedStyle.YELLOW);
    static final AttributedStyle LITERAL = AttributedStyle.DEFAULT.foreground(AttributedStyle.MAGENTA);

    private final Supplier<TriggerAction> action;

    ReplHighlighter(Supplier<TriggerAction> action) {
        this.action = action;
    }

    /** The styled entry; never throws (a failure shows the entry unstyled). */
    @Override
    public AttributedString highlight(LineReader reader, String buffer) {
        try {
            return styled(buffer);
        } catch (RuntimeException e) {
            return new AttributedString(buffer);
        }
    }

    private AttributedString styled(String buffer) {
        AttributedStringBuilder sb = new AttributedStringBuilder(buffer.length());
        int i = 0;
        if (LineSyntax.isCommand(buffer)) {
            int start = 0;
            while (start < buffer.length() && Character.isWhitespace(buffer.charAt(start))) {
                start++;
            }
            String word = LineSyntax.firstWord(buffer.substring(start));
            sb.append(buffer.substring(0, start));
            sb.styled(COMMAND, word);
            i = start + word.length();
            if (!word.equals(Verb.SET.command())) {
                sb.append(buffer.substring(i));
                return sb.toAttributedString();
            }
        }
        cel(buffer, i, sb);
        return sb.toAttributedString();
    }

    private void cel(String s, int from, AttributedStringBuilder sb) {
        int i = from;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            int stringStart = stringStart(s, i);
            if (stringStart >= 0) {
                boolean raw = s.substring(i, stringStart).toLowerCase(Locale.ROOT).contains("r");
                int end = stringEnd(s, stringStart, raw);
                sb.styled(STRING, s.substring(i, end));
                i = end;
            } else if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(s.charAt(i + 1))
                    && (i == 0 || !LineSyntax.isIdentifierPart(s.charAt(i - 1))))) {
                int end = i;
                while (end < n && (LineSyntax.isIdentifierPart(s.charAt(end)) || s.charAt(end) == '.'
                        || ((s.charAt(end) == '+' || s.charAt(end) == '-') && (s.charAt(end - 1) == 'e'
                        || s.charAt(end - 1) == 'E') && !s.startsWith("0x", i)))) {
                    end++;
                }
                sb.styled(NUMBER, s.substring(i, end));
                i = end;
            } else if (LineSyntax.isIdentifierPart(c)) {
                int end = i;
                while (end < n && (LineSyntax.isIdentifierPart(s.charAt(end)) || s.charAt(end) == '.')) {
                    end++;
                }
                path(s.substring(i, end), sb);
                i = end;
            } else {
                sb.append(c);
                i++;
            }
        }
    }

    /** An ASCII digit: CEL numbers have no other digits. */
    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** Styles a dotted path: the {@code section.field} part as a field, literals as literals. */
    private void path(String token, AttributedStringBuilder sb) {
        if (token.equals("true") || token.equals("false") || token.equals("null")) {
            sb.styled(LITERAL, token);
            return;
        }
        String[] parts = token.split(Pattern.quote("."), -1);
        if (parts.length >= 2 && Section.fromWireName(parts[0]).isPresent()) {
            Section section = Section.fromWireName(parts[0]).get();
            String field = parts[0] + "." + parts[1];
            boolean known = FieldSchema.hasSection(action.get(), section)
                    && FieldSchema.field(section, parts[1]).isPresent();
            if (!parts[1].isEmpty()) {
                sb.styled(known ? FIELD : UNKNOWN_FIELD, field);
                sb.append(token.substring(field.length()));
                return;
            }
        }
        sb.append(token);
    }

    /** The index of the opening quote when a string literal (with its r/b prefixes) starts at {@code i}; else -1. */
    private static int stringStart(String s, int i) {
        if (s.charAt(i) == '"' || s.charAt(i) == '\'') {
            return i;
        }
        if (i > 0 && LineSyntax.isIdentifierPart(s.charAt(i - 1))) {
            return -1;
        }
        int j = i;
        while (j < s.length() && j - i < 2 && "rRbB".indexOf(s.charAt(j)) >= 0) {
            j++;
        }
        return j < s.length() && (s.charAt(j) == '"' || s.charAt(j) == '\'') ? j : -1;
    }

    /** The index after the string literal whose quote is at {@code q} (the end of the text if it is open). */
    private static int stringEnd(String s, int q, boolean raw) {
        char c = s.charAt(q);
        String quote = s.startsWith(String.valueOf(c).repeat(3), q) ? String.valueOf(c).repeat(3) : String.valueOf(c);
        int i = q + quote.length();
        while (i < s.length()) {
            if (!raw && s.charAt(i) == '\\') {
                i += 2;
                continue;
            }
            if (s.startsWith(quote, i)) {
                return i + quote.length();
            }
            i++;
        }
        return s.length();
    }

    @Override
    public void setErrorPattern(Pattern errorPattern) {
        // errors are reported by the compiler after Enter, not while typing
    }

    @Override
    public void setErrorIndex(int errorIndex) {
        // as above
    }
}

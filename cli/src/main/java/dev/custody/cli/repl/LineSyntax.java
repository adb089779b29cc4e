package dev.custody.cli.repl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The lexical rules of REPL input that both front-ends share: when an entry is complete (so the
 * terminal front-end and the piped-input reader agree on where multi-line input ends), and how command
 * arguments split into words.
 *
 * <p>An entry is incomplete while a bracket ({@code ( [ {}) or a quote is open. Conditions follow CEL's
 * lexical rules: {@code "…"}, {@code '…'}, triple-quoted and raw ({@code r"…"}) strings, backslash escapes
 * outside raw strings, {@code //} comments to the end of the line. A closing bracket that does not match
 * ends the check (the entry is complete and the compiler reports the mistake): continuing to read would
 * only hide the error. Of the commands, only {@code :set} can continue, while its value (a JSON object or a
 * quoted string) is open; other commands are always one line, so a file name with a quote never makes the
 * REPL wait for more input.
 *
 * <p>Stateless and thread-safe.
 */
final class LineSyntax {
    private LineSyntax() {}

    /** Whether the entry is a command (its first non-blank character is {@code :}). */
    static boolean isCommand(String text) {
        return text.stripLeading().startsWith(":");
    }

    /**
     * What the entry is missing to be complete, e.g. {@code ")"}, {@code "]}"} or {@code "\""}; empty when it
     * is complete.
     */
    static Optional<String> missing(String text) {
        if (isCommand(text)) {
            String stripped = text.stripLeading();
            String name = firstWord(stripped);
            if (!name.equals(":set")) {
                return Optional.empty();
            }
            String rest = stripped.substring(name.length()).stripLeading();
            String field = firstWord(rest);
            String value = rest.substring(field.length()).stripLeading();
            if (value.isEmpty()) {
                return Optional.empty();
            }
            return switch (value.charAt(0)) {
                case '{', '[', '"' -> scan(value, false);
                case '\'' -> value.length() > 1 && value.endsWith("'") ? Optional.empty() : Optional.of("'");
                default -> Optional.empty();
            };
        }
        return scan(text, true);
    }

    /** The first whitespace-delimited word of {@code text} (which must not start with whitespace). */
    static String firstWord(String text) {
        int i = 0;
        while (i < text.length() && !Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return text.substring(0, i);
    }

    /**
     * Scans {@code text} and reports the closers still missing. With {@code cel}, the CEL string forms and
     * comments are recognised; without it, only JSON double-quoted strings.
     */
    private static Optional<String> scan(String text, boolean cel) {
        Deque<Character> open = new ArrayDeque<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (cel && c == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
                int nl = text.indexOf('\n', i);
                if (nl < 0) {
                    break;
                }
                i = nl + 1;
                continue;
            }
            if (c == '"' || (cel && c == '\'')) {
                boolean raw = cel && i > 0 && isRawPrefix(text, i - 1);
                String quote = cel && text.startsWith(String.valueOf(c).repeat(3), i) ? String.valueOf(c).repeat(3)
                        : String.valueOf(c);
                int end = stringEnd(text, i + quote.length(), quote, raw);
                if (end < 0) {
                    return Optional.of(quote + closers(open));
                }
                i = end;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                open.push(c);
            } else if (c == ')' || c == ']' || c == '}') {
                if (open.isEmpty() || open.peek() != opener(c)) {
                    return Optional.empty();
                }
                open.pop();
            }
            i++;
        }
        return open.isEmpty() ? Optional.empty() : Optional.of(closers(open));
    }

    /** Whether the character at {@code i} is an {@code r}/{@code R} string prefix (also after {@code b}). */
    private static boolean isRawPrefix(String text, int i) {
        char p = text.charAt(i);
        if (p != 'r' && p != 'R') {
            return false;
        }
        int before = i - 1;
        if (before >= 0 && (text.charAt(before) == 'b' || text.charAt(before) == 'B')) {
            before--;
        }
        return before < 0 || !isIdentifierPart(text.charAt(before));
    }

    /** The index just after the closing quote, or -1 when the string is not closed. */
    private static int stringEnd(String text, int from, String quote, boolean raw) {
        int i = from;
        while (i < text.length()) {
            if (!raw && text.charAt(i) == '\\') {
                i += 2;
                continue;
            }
            if (text.startsWith(quote, i)) {
                return i + quote.length();
            }
            i++;
        }
        return -1;
    }

    private static char opener(char closer) {
        return switch (closer) {
            case ')' -> '(';
            case ']' -> '[';
            default -> '{';
        };
    }

    private static String closers(Deque<Character> open) {
        StringBuilder s = new StringBuilder();
        for (char c : open) {
            s.append(switch (c) {
                case '(' -> ')';
                case '[' -> ']';
                default -> '}';
            });
        }
        return s.toString();
    }

    /** Whether {@code c} may appear in a CEL identifier or a dotted field path. */
    static boolean isIdentifierPart(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** A word of a command line, with where it stands in the line. */
    record Word(String text, int start, int end) {}

    /**
     * Splits command arguments on whitespace. A word may be quoted with {@code "…"} or {@code '…'} to hold
     * spaces (the quotes are removed; inside double quotes, a backslash escapes the next character). An
     * unclosed quote runs to the end of the line.
     */
    static List<Word> words(String line) {
        List<Word> out = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (i < n) {
            while (i < n && Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int start = i;
            StringBuilder w = new StringBuilder();
            while (i < n && !Character.isWhitespace(line.charAt(i))) {
                char c = line.charAt(i);
                if (c == '"' || c == '\'') {
                    i++;
                    while (i < n && line.charAt(i) != c) {
                        if (c == '"' && line.charAt(i) == '\\' && i + 1 < n) {
                            i++;
                        }
                        w.append(line.charAt(i));
                        i++;
                    }
                    i++;
                } else {
                    w.append(c);
                    i++;
                }
            }
            out.add(new Word(w.toString(), start, Math.min(i, n)));
        }
        return out;
    }
}

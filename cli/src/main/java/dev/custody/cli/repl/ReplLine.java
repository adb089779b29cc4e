package dev.custody.cli.repl;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jline.reader.CompletingParsedLine;

/**
 * An entry split into words for completion. A command line splits on whitespace ({@code :set}, the field,
 * the value…); a condition splits into its identifiers and dotted paths, so that the word under the cursor
 * of {@code withdrawal.valu > 1} is {@code withdrawal.valu}. When the cursor is not on a word, an empty word
 * stands at the cursor.
 *
 * <p>Candidates are inserted as they are: {@link #escape} adds no quoting. Immutable.
 *
 * @param line the whole entry
 * @param cursor the cursor position in {@code line}
 * @param words the words, including the one at the cursor
 * @param wordIndex the index of the word at the cursor
 * @param wordCursor the cursor position inside that word
 * @param command whether the entry is a command
 * @param inString whether the cursor is inside a string literal of a condition
 */
record ReplLine(String line, int cursor, List<String> words, int wordIndex, int wordCursor, boolean command,
        boolean inString) implements CompletingParsedLine {

    ReplLine {
        words = List.copyOf(words);
    }

    /** Splits {@code line} with the cursor at {@code cursor}. */
    static ReplLine of(String line, int cursor) {
        int at = Math.max(0, Math.min(cursor, line.length()));
        boolean command = LineSyntax.isCommand(line);
        List<int[]> spans = new ArrayList<>();
        if (command) {
            for (LineSyntax.Word w : LineSyntax.words(line)) {
                spans.add(new int[] {w.start(), w.end()});
            }
        } else {
            int i = 0;
            while (i < line.length()) {
                if (isPathChar(line.charAt(i))) {
                    int start = i;
                    while (i < line.length() && isPathChar(line.charAt(i))) {
                        i++;
                    }
                    spans.add(new int[] {start, i});
                } else {
                    i++;
                }
            }
        }
        List<String> words = new ArrayList<>();
        int index = -1;
        int wordCursor = 0;
        for (int[] s : spans) {
            if (index < 0 && s[0] <= at && at <= s[1]) {
                index = words.size();
                wordCursor = at - s[0];
            } else if (index < 0 && s[0] > at) {
                index = words.size();
                words.add("");
            }
            words.add(line.substring(s[0], s[1]));
        }
        if (index < 0) {
            index = words.size();
            words.add("");
        }
        boolean inString = false;
        if (!command) {
            Optional<String> missing = LineSyntax.missing(line.substring(0, at));
            inString = missing.isPresent() && (missing.get().startsWith("\"") || missing.get().startsWith("'"));
        }
        return new ReplLine(line, at, words, index, wordCursor, command, inString);
    }

    private static boolean isPathChar(char c) {
        return LineSyntax.isIdentifierPart(c) || c == '.';
    }

    @Override
    public String word() {
        return words.get(wordIndex);
    }

    /** The part of the word before the cursor: what candidates must start with. */
    String prefix() {
        return word().substring(0, wordCursor);
    }

    @Override
    public CharSequence escape(CharSequence candidate, boolean complete) {
        return candidate;
    }

    @Override
    public int rawWordCursor() {
        return wordCursor;
    }

    @Override
    public int rawWordLength() {
        return word().length();
    }
}

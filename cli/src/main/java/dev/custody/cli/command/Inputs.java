package dev.custody.cli.command;

import dev.custody.cli.CliException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reading what the user points at: a file, or standard input for {@code -}. */
final class Inputs {
    /** The name shown for standard input. */
    static final String STDIN = "-";

    private Inputs() {}

    /** The whole text of a file or of stdin ({@code -}), strict UTF-8. */
    static String readText(String pathOrDash, InputStream stdin) throws IOException {
        byte[] bytes = STDIN.equals(pathOrDash) ? stdin.readAllBytes() : Files.readAllBytes(Path.of(pathOrDash));
        return decode(bytes, STDIN.equals(pathOrDash) ? "standard input" : "`" + pathOrDash + "`");
    }

    /** Bytes as strict UTF-8 (a byte-order mark is dropped); malformed text is an input error. */
    static String decode(byte[] bytes, String what) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
            return !text.isEmpty() && text.charAt(0) == '\uFEFF' ? text.substring(1) : text;
        } catch (CharacterCodingException e) {
            throw CliException.input(what + " is not UTF-8 text");
        }
    }

    /** A line reader over a file or stdin ({@code -}); a missing file throws {@link java.nio.file.NoSuchFileException}. */
    static BufferedReader lines(String pathOrDash, InputStream stdin) throws IOException {
        Reader r = STDIN.equals(pathOrDash) ? new InputStreamReader(stdin, StandardCharsets.UTF_8)
                : new InputStreamReader(Files.newInputStream(Path.of(pathOrDash)), StandardCharsets.UTF_8);
        return new BufferedReader(r, 1 << 16);
    }

    /** The condition argument: the text itself, or stdin for {@code -} (trailing line breaks dropped). */
    static String condition(String argument, InputStream stdin) throws IOException {
        if (!STDIN.equals(argument)) {
            return argument;
        }
        String text = readText(STDIN, stdin);
        int end = text.length();
        while (end > 0 && (text.charAt(end - 1) == '\n' || text.charAt(end - 1) == '\r')) {
            end--;
        }
        return text.substring(0, end);
    }

    /** "1 error", "2 errors". */
    static String plural(long n, String noun) {
        return plural(n, noun, noun + "s");
    }

    /** "1 policy", "2 policies". */
    static String plural(long n, String singular, String pluralForm) {
        return n + " " + (n == 1 ? singular : pluralForm);
    }
}

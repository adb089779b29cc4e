package dev.custody.cli.command;

import dev.custody.cli.CliException;
import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
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
        byte[] bytes = STDIN.equals(pathOrDash) ? readStdin(stdin) : Files.readAllBytes(file(pathOrDash));
        return decode(bytes, STDIN.equals(pathOrDash) ? "standard input" : "`" + pathOrDash + "`");
    }

    /**
     * The path of a file argument. A directory is refused here, by name: opening one succeeds and only the first
     * read fails, with the bare "Is a directory" that does not say which argument was wrong.
     */
    private static Path file(String path) {
        Path p = Path.of(path);
        if (Files.isDirectory(p)) {
            throw CliException.io("`" + path + "` is a directory, not a file");
        }
        return p;
    }

    /** All of stdin; a failing read (stdin closed, say) names standard input rather than only the OS's reason. */
    private static byte[] readStdin(InputStream stdin) {
        try {
            return stdin.readAllBytes();
        } catch (IOException e) {
            throw CliException.io("cannot read standard input: " + reason(e));
        }
    }

    static String reason(IOException e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
        return m.isEmpty() ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
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

    /**
     * A line reader over a file or stdin ({@code -}); a missing file throws {@link java.nio.file.NoSuchFileException}.
     *
     * <p>Bytes that are not UTF-8 are read as U+0000, never as U+FFFD: JSON refuses a raw U+0000 anywhere in a
     * line, so such a line becomes one malformed record at the column of the bad byte and the stream goes on,
     * whereas U+FFFD is valid inside a JSON string and would let an action be decided on text nobody sent
     * (a Latin-1 {@code é} in an id or an address).
     */
    static BufferedReader lines(String pathOrDash, InputStream stdin) throws IOException {
        InputStream in = bytes(pathOrDash, stdin);
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)
                .replaceWith("\0");
        return new BufferedReader(new InputStreamReader(in, utf8), 1 << 16);
    }

    /**
     * The bytes of a file or stdin ({@code -}), for a reader that splits and decodes them itself (an
     * {@link dev.custody.engine.replay.ActionStream}, which reads bytes that are not UTF-8 as {@link #lines} does);
     * a missing file throws {@link java.nio.file.NoSuchFileException}.
     */
    static InputStream bytes(String pathOrDash, InputStream stdin) throws IOException {
        return STDIN.equals(pathOrDash) ? new StdinStream(stdin) : Files.newInputStream(file(pathOrDash));
    }

    /**
     * Standard input whose read failures name it (a closed stdin otherwise says only "bad file descriptor"). The
     * failure is a {@link CliException}, which passes through the readers above unchanged, so a stream verb reports
     * it exactly as {@link #readText} does.
     */
    private static final class StdinStream extends FilterInputStream {
        StdinStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            try {
                return super.read();
            } catch (IOException e) {
                throw CliException.io("cannot read standard input: " + reason(e));
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return super.read(b, off, len);
            } catch (IOException e) {
                throw CliException.io("cannot read standard input: " + reason(e));
            }
        }
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

package dev.custody.cli.command;

import dev.custody.cli.CliException;
import dev.custody.engine.replay.ActionStream;
import java.io.IOException;
import java.io.InputStream;
import picocli.CommandLine.Option;

/**
 * {@code --max-line-length}, shared by the verbs that read an action stream ({@code replay}, {@code diff},
 * {@code bench}), and the stream they open: a line longer than the limit is one malformed record with its line
 * number, skipped without being held in memory, and the stream goes on.
 */
final class StreamOptions {
    @Option(names = "--max-line-length", paramLabel = "CHARS", defaultValue = "" + ActionStream.DEFAULT_MAX_LINE,
            description = "Longest action line read, in characters (default: ${DEFAULT-VALUE}); a longer line is "
                    + "one malformed record.")
    int maxLineLength;

    /** The stream of a file, or of standard input for {@code -}. */
    ActionStream open(String actions, InputStream stdin) throws IOException {
        if (maxLineLength < 1) {
            throw CliException.usage("`--max-line-length` must be at least 1, got " + maxLineLength);
        }
        return new ActionStream(Inputs.bytes(actions, stdin), maxLineLength);
    }

    /**
     * Checks that every line read is accounted for: each non-blank line gave exactly one record (a decision, a
     * malformed-line record or an event), the rest were blank. A mismatch is a defect of the tool, reported as
     * an internal error rather than a silently shorter output.
     */
    static void checkAccounted(ActionStream stream, long records, String verb) {
        long accounted = records + stream.blankLines();
        if (accounted != stream.linesRead()) {
            throw new IllegalStateException(verb + " read " + stream.linesRead() + " lines but accounted for "
                    + accounted + " (" + records + " records, " + stream.blankLines() + " blank)");
        }
    }
}

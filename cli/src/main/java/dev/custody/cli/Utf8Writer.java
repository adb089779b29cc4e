package dev.custody.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/**
 * A {@link PrintWriter} over a UTF-8 byte stream that also takes text already encoded: a replay renders its
 * records as UTF-8 bytes on the deciding threads, and {@link #write(PrintWriter, byte[], int, int)} hands them
 * to standard output without decoding and re-encoding them on the writing thread. Like any {@code PrintWriter},
 * it never throws: a failed write sets {@link #checkError()}. Not thread-safe.
 */
public final class Utf8Writer extends PrintWriter {
    private final OutputStream bytes;

    /** Buffered text over {@code bytes}; encoded bytes go straight to {@code bytes}, after the text before them. */
    public Utf8Writer(OutputStream bytes, int bufferSize) {
        super(new BufferedWriter(new OutputStreamWriter(bytes, StandardCharsets.UTF_8), bufferSize), false);
        this.bytes = bytes;
    }

    /**
     * Writes UTF-8 text given as bytes: to the byte stream under {@code out} when it is a {@code Utf8Writer}, else
     * decoded (an in-memory writer of a test, say). The same characters come out either way.
     */
    public static void write(PrintWriter out, byte[] utf8, int offset, int length) {
        if (out instanceof Utf8Writer w) {
            w.writeBytes(utf8, offset, length);
        } else {
            out.write(new String(utf8, offset, length, StandardCharsets.UTF_8));
        }
    }

    private void writeBytes(byte[] utf8, int offset, int length) {
        synchronized (lock) {
            try {
                // the text written before must come out first
                ((Writer) out).flush();
                bytes.write(utf8, offset, length);
            } catch (IOException e) {
                setError();
            }
        }
    }
}

package dev.custody.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Text and UTF-8 bytes written to standard output come out in the order written, as the same characters. */
class Utf8WriterTest {
    static final byte[] RECORD = "{\"id\":\"a-é\"}\n".getBytes(StandardCharsets.UTF_8);

    @Test
    void bytesComeOutAfterTheTextBeforeThemAndBeforeTheTextAfter() {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        Utf8Writer out = new Utf8Writer(stdout, 1 << 16);
        out.print("[ü");
        Utf8Writer.write(out, RECORD, 0, RECORD.length);
        Utf8Writer.write(out, RECORD, 1, 5);
        out.print("]");
        out.flush();
        assertEquals("[ü{\"id\":\"a-é\"}\n\"id\":]", stdout.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anyOtherWriterGetsTheDecodedText() {
        StringWriter captured = new StringWriter();
        Utf8Writer.write(new PrintWriter(captured), RECORD, 0, RECORD.length);
        assertEquals("{\"id\":\"a-é\"}\n", captured.toString());
    }

    @Test
    void aFailedWriteIsReportedAsEveryPrintWriterReportsIt() {
        Utf8Writer out = new Utf8Writer(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("broken pipe");
            }
        }, 16);
        Utf8Writer.write(out, RECORD, 0, RECORD.length);
        assertTrue(out.checkError());
    }
}

package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The rules of the {@link Redactor}, one example each (CredentialEchoTest covers them at large). */
class RedactorTest {
    static final String SECRET = "c3c6aa8121b84d3aae4a4558956ee171";
    static final String KEY = "key-0123456789";
    final Redactor redactor = new Redactor(SECRET, KEY);

    @Test
    void wholeFragmentsAndCaseAreMasked() {
        assertEquals("a [redacted] b", redactor.redact("a " + SECRET + " b"));
        assertEquals("x[redacted]y", redactor.redact("x" + SECRET.substring(5, 13) + "y"));
        assertEquals("x[redacted]y", redactor.redact("x" + SECRET.substring(3, 20).toUpperCase() + "y"));
        // seven characters are not a fragment
        assertEquals("x" + SECRET.substring(5, 12) + "y", redactor.redact("x" + SECRET.substring(5, 12) + "y"));
        assertEquals("key [redacted]", redactor.redact("key " + KEY));
        assertEquals("> ACCESS-API-KEY: key-****", redactor.redact("> ACCESS-API-KEY: key-****"));
    }

    @Test
    void encodedEchoesAreMasked() {
        Redactor odd = new Redactor("s3cr/t+<&>\"ü-0123", "k");
        assertEquals("[redacted]", odd.redact("s3cr\\/t+\\u003c\\u0026\\u003e\\\"\\u00fc-0123"));
        assertEquals("[redacted]", odd.redact("s3cr%2Ft%2B%3C%26%3E%22%C3%BC-0123"));
        assertEquals("[redacted]", odd.redact("s3cr/t+&lt;&amp;&gt;&quot;ü-0123"));
    }

    @Test
    void signaturesBelongToTheirExchange() {
        Redactor exchange = redactor.withSignatures("f8dea93ca5272d175244c0c2b853f1fd");
        assertEquals("[redacted]", exchange.redact("f8dea93ca5272d175244c0c2b853f1fd"));
        assertEquals("f8dea93ca5272d175244c0c2b853f1fd", redactor.redact("f8dea93ca5272d175244c0c2b853f1fd"));
    }

    @Test
    void shortCredentialsAreMaskedWhole() {
        assertEquals("a [redacted] b", new Redactor("abc", null).redact("a abc b"));
    }

    @Test
    void causesAreRedactedOnlyWhenTheyNeedIt() {
        IOException clean = new IOException("connection reset");
        assertSame(clean, redactor.redact((Throwable) clean));
        Throwable dirty = redactor.redact((Throwable) new IOException("wrapper", new IOException("Invalid status line: \""
                + SECRET + "\"")));
        assertEquals("java.io.IOException: wrapper", dirty.getMessage());
        assertEquals("java.io.IOException: Invalid status line: \"[redacted]\"", dirty.getCause().getMessage());
    }
}

package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Recomputes ACCESS-SIGN independently of {@link RequestSigner}, as the server would. */
public final class Signatures {
    public static final String KEY = "key-0123456789";
    public static final String SECRET = "c3c6aa8121b84d3aae4a4558956ee171";

    private Signatures() {}

    public static String expected(String secret, String method, String path, String timestamp, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] digest = mac.doFinal(("method=" + method + "&path=" + path + "&timestamp=" + timestamp
                    + "&body=" + body).getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder();
            for (byte b : digest) {
                hex.append(String.format("%02x", b));
            }
            return Base64.getEncoder().encodeToString(hex.toString().getBytes(StandardCharsets.US_ASCII));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Asserts the request carries the key, the expected timestamp, and a signature that verifies. */
    public static void assertSigned(StubServer.Recorded r, long expectedTimestamp) {
        assertEquals(KEY, r.header("ACCESS-API-KEY"), "api key header");
        assertEquals(Long.toString(expectedTimestamp), r.header("ACCESS-TIMESTAMP"), "timestamp header");
        assertNotNull(r.header("ACCESS-SIGN"), "signature header");
        assertEquals(expected(SECRET, r.method(), r.path(), r.header("ACCESS-TIMESTAMP"), r.body()),
                r.header("ACCESS-SIGN"), "signature of " + r.method() + " " + r.path());
    }
}

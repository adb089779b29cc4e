package dev.custody.client;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Computes the {@code ACCESS-SIGN} header of an authenticated request (docs/design.md §6).
 *
 * <p>The signed text is {@code method=<METHOD>&path=<path>&timestamp=<ts>&body=<body>}, where the
 * path includes the {@code /api/v1} prefix and no query string, and the body is the exact JSON sent
 * (empty when there is none). It is keyed with the UTF-8 bytes of the API secret (HMAC-SHA256); the
 * lowercase hex digest is then base64-encoded, so the header is the base64 of 64 hex characters.
 *
 * <p>Part of the transport: package-private, since a user of the client never signs by hand.
 * Instances are immutable and thread-safe. {@link #toString()} never reveals the secret.
 */
final class RequestSigner {
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;

    /**
     * @param apiSecret the API secret; its UTF-8 bytes key the HMAC
     * @throws IllegalArgumentException if the secret is empty
     */
    RequestSigner(String apiSecret) {
        Objects.requireNonNull(apiSecret, "apiSecret");
        if (apiSecret.isEmpty()) {
            throw new IllegalArgumentException("api secret is empty");
        }
        this.key = new SecretKeySpec(apiSecret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
    }

    /** The text that is signed, exactly as docs/design.md §6 defines it. */
    static String canonicalText(String method, String path, long timestampSeconds, String body) {
        return "method=" + method + "&path=" + path + "&timestamp=" + timestampSeconds
                + "&body=" + (body == null ? "" : body);
    }

    /** The lowercase hex HMAC-SHA256 digest of {@link #canonicalText}. */
    String hexDigest(String method, String path, long timestampSeconds, String body) {
        Mac mac = newMac();
        byte[] digest = mac.doFinal(
                canonicalText(method, path, timestampSeconds, body).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest);
    }

    /** The {@code ACCESS-SIGN} header value: base64 of the lowercase hex digest. */
    String sign(String method, String path, long timestampSeconds, String body) {
        String hex = hexDigest(method, path, timestampSeconds, body);
        return Base64.getEncoder().encodeToString(hex.getBytes(StandardCharsets.US_ASCII));
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            // HmacSHA256 is mandatory on every Java platform; a raw key spec is always accepted.
            throw new IllegalStateException("hmac-sha256 is unavailable", e);
        }
    }

    @Override
    public String toString() {
        return "RequestSigner[secret=" + Redactor.MASK + "]";
    }
}

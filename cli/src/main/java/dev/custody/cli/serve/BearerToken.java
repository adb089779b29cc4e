package dev.custody.cli.serve;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;

/**
 * The {@code --token-file} secret and the check of an {@code Authorization: Bearer <token>} header against it.
 *
 * <p>The comparison takes the same time whatever the presented value: both sides are reduced to their SHA-256
 * digests (equal lengths, so {@link MessageDigest#isEqual}, which compares every byte, does not even leak the
 * length of the token) before they are compared. The token is never printed, in errors or elsewhere.
 *
 * <p>Immutable and thread-safe.
 */
final class BearerToken {
    private static final String PREFIX = "Bearer ";

    private final byte[] digest;

    private BearerToken(byte[] digest) {
        this.digest = digest;
    }

    /**
     * The token of a token file's text: the text without surrounding white space (a file written by {@code echo}
     * ends in a newline).
     *
     * @throws IllegalArgumentException when nothing is left, or the token has white space or control characters
     *     inside (it could not be sent in a header as it is)
     */
    static BearerToken of(String fileText) {
        String token = fileText.strip();
        if (token.isEmpty()) {
            throw new IllegalArgumentException("the token file is empty");
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= ' ' || c == 0x7f) {
                throw new IllegalArgumentException("the token has white space or a control character inside");
            }
        }
        return new BearerToken(sha256(token));
    }

    /** Whether an {@code Authorization} header value (null when absent) carries this token. */
    boolean allows(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            // no early answer by content: an absent header is not a secret
            return false;
        }
        return MessageDigest.isEqual(digest, sha256(authorization.substring(PREFIX.length()).strip()));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Objects.requireNonNull(s).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from the JDK", e);
        }
    }
}

package dev.custody.client;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Removes secrets (the API secret and every signature the client computed) from text that leaves
 * the client: exception messages, debug lines. Servers sometimes echo request headers in their
 * error messages, so the client scrubs what it shows instead of trusting the server.
 *
 * <p>Thread-safe: signatures are recorded in a concurrent set, bounded to the most recent ones.
 */
final class Redactor {
    /** What replaces a secret in any text the client produces. */
    static final String MASK = "[redacted]";

    private static final int MAX_REMEMBERED = 256;

    private final String secret;
    private final Set<String> signatures = ConcurrentHashMap.newKeySet();

    Redactor(String secret) {
        this.secret = secret == null || secret.isEmpty() ? null : secret;
    }

    void rememberSignature(String signature) {
        if (signatures.size() >= MAX_REMEMBERED) {
            signatures.clear();
        }
        signatures.add(signature);
    }

    String redact(String text) {
        if (text == null) {
            return null;
        }
        String out = text;
        if (secret != null) {
            out = out.replace(secret, MASK);
        }
        for (String signature : List.copyOf(signatures)) {
            out = out.replace(signature, MASK);
        }
        return out;
    }
}

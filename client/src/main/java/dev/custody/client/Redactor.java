package dev.custody.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Removes credentials from text that leaves the client: exception messages, debug lines, warnings,
 * and the text values of answers. Servers sometimes echo request headers in their answers (error
 * messages, {@code errors} lists, HTML error pages, even success envelopes), so the client scrubs
 * what it shows instead of trusting the server.
 *
 * <p>What is masked, with {@link #MASK}:
 * <ul>
 *   <li>the API secret, the API key and, in the redactor of one exchange ({@link #withSignatures}),
 *       the signature of that exchange (its hex digest and its base64 header value);</li>
 *   <li>not only whole: every run of text made of fragments of {@value #MIN_FRAGMENT} or more
 *       characters of one of them, compared without regard to case, so a server that cuts, quotes
 *       partly or upper-cases an echo does not get it through;</li>
 *   <li>also as the server may have encoded them: JSON-escaped in the styles of the usual server
 *       languages ({@code \/}; {@code \}{@code uXXXX} for non-ASCII, or for {@code < > &}),
 *       URL-encoded, HTML-escaped.</li>
 * </ul>
 * A credential shorter than {@value #MIN_FRAGMENT} characters is masked where it appears whole.
 *
 * <p>Callers redact <em>before</em> they cut text to a length, so a cut never leaves a piece of a
 * credential next to the ellipsis.
 *
 * <p>Immutable and thread-safe. Nothing is remembered between exchanges: the redactor of an exchange
 * is built from the transport's redactor and that exchange's signature, so no concurrent traffic can
 * make it forget the signature it must hide.
 */
final class Redactor {
    /** What replaces a credential in any text the client produces. */
    static final String MASK = "[redacted]";

    /** Fragments of a credential this long or longer are masked wherever they appear. */
    static final int MIN_FRAGMENT = 8;

    /** Every {@link #MIN_FRAGMENT}-character window of every credential (and its encodings), lower case. */
    private final Set<String> windows;
    /** The first characters of {@link #windows}: a quick filter before a set look-up. */
    private final BitSet firstChars;
    /** Credentials (and encodings) shorter than a window: masked where they appear whole. */
    private final List<String> shortTokens;

    /**
     * @param secret the API secret, or {@code null}
     * @param apiKey the API key, or {@code null}
     */
    Redactor(String secret, String apiKey) {
        this(new HashSet<>(), new BitSet(), new ArrayList<>());
        add(secret);
        add(apiKey);
    }

    private Redactor(Set<String> windows, BitSet firstChars, List<String> shortTokens) {
        this.windows = windows;
        this.firstChars = firstChars;
        this.shortTokens = shortTokens;
    }

    /** A redactor for one exchange: this one, plus the given signatures (hex digest, header value). */
    Redactor withSignatures(String... signatures) {
        Redactor r = new Redactor(new HashSet<>(windows), (BitSet) firstChars.clone(), new ArrayList<>(shortTokens));
        for (String s : signatures) {
            r.add(s);
        }
        return r;
    }

    /** Only while building: instances are not modified once published. */
    private void add(String credential) {
        if (credential == null || credential.isEmpty()) {
            return;
        }
        for (String variant : encodings(credential)) {
            if (variant.length() < MIN_FRAGMENT) {
                if (!shortTokens.contains(variant)) {
                    shortTokens.add(variant);
                }
                continue;
            }
            String lower = lower(variant);
            for (int i = 0; i + MIN_FRAGMENT <= lower.length(); i++) {
                windows.add(lower.substring(i, i + MIN_FRAGMENT));
                firstChars.set(lower.charAt(i));
            }
        }
    }

    /** {@code text} with every credential, whole or in fragments of 8 or more characters, masked. */
    String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        BitSet hidden = new BitSet(text.length());
        if (!windows.isEmpty() && text.length() >= MIN_FRAGMENT) {
            String lower = lower(text);
            for (int i = 0; i + MIN_FRAGMENT <= lower.length(); i++) {
                if (firstChars.get(lower.charAt(i)) && windows.contains(lower.substring(i, i + MIN_FRAGMENT))) {
                    hidden.set(i, i + MIN_FRAGMENT);
                }
            }
        }
        for (String token : shortTokens) {
            for (int at = text.indexOf(token); at >= 0; at = text.indexOf(token, at + 1)) {
                hidden.set(at, at + token.length());
            }
        }
        if (hidden.isEmpty()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            int start = hidden.nextSetBit(i);
            if (start < 0) {
                out.append(text, i, text.length());
                break;
            }
            int end = hidden.nextClearBit(start);
            out.append(text, i, start).append(MASK);
            i = end;
        }
        return out.toString();
    }

    /**
     * {@code t} with every message of it and its causes redacted: {@code t} itself when nothing
     * needs it, else a copy of the chain (same classes named, same stack traces) whose messages are
     * redacted. Keeps the cause of a transport failure safe to print with {@code --debug}.
     */
    Throwable redact(Throwable t) {
        if (t == null || clean(t)) {
            return t;
        }
        Throwable cause = t.getCause() == t ? null : redact(t.getCause());
        String message = t.getMessage() == null ? t.getClass().getName()
                : t.getClass().getName() + ": " + redact(t.getMessage());
        RedactedCause copy = new RedactedCause(message, cause);
        copy.setStackTrace(t.getStackTrace());
        return copy;
    }

    private boolean clean(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage();
            if (m != null && !m.equals(redact(m))) {
                return false;
            }
        }
        return true;
    }

    /** Stands for an exception whose message had to be redacted; its message names the original class. */
    static final class RedactedCause extends Exception {
        private static final long serialVersionUID = 1L;

        RedactedCause(String message, Throwable cause) {
            super(message, cause);
        }

        @Override
        public String toString() {
            return getMessage();
        }
    }

    /** The ways a server may write {@code s} back: as is, JSON-escaped, URL-encoded, HTML-escaped. */
    static Set<String> encodings(String s) {
        Set<String> out = new LinkedHashSet<>();
        out.add(s);
        for (int style = 0; style < 8; style++) {
            out.add(jsonEscape(s, (style & 1) != 0, (style & 2) != 0, (style & 4) != 0));
        }
        String url = URLEncoder.encode(s, StandardCharsets.UTF_8);
        out.add(url);
        out.add(url.replace("+", "%20"));
        out.add(htmlEscape(s));
        return out;
    }

    /**
     * {@code s} JSON-escaped as servers do: quotes, backslashes and control characters always; with
     * {@code slash}, {@code /} as {@code \/} (PHP); with {@code asciiOnly}, non-ASCII as
     * {@code \}{@code uXXXX} (Python); with {@code htmlSafe}, {@code < > &} as {@code \}{@code uXXXX} (Go).
     */
    private static String jsonEscape(String s, boolean slash, boolean asciiOnly, boolean htmlSafe) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '/' -> sb.append(slash ? "\\/" : "/");
                default -> {
                    if (c < 0x20 || (asciiOnly && c > 0x7e) || (htmlSafe && (c == '<' || c == '>' || c == '&'))) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }

    private static String htmlEscape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }

    /** Lower case, char by char, so indexes stay those of {@code s}. */
    private static String lower(String s) {
        char[] chars = s.toCharArray();
        for (int i = 0; i < chars.length; i++) {
            chars[i] = Character.toLowerCase(chars[i]);
        }
        return new String(chars);
    }
}

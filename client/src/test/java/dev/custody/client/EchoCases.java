package dev.custody.client;

import static org.junit.jupiter.api.Assertions.fail;

import dev.custody.client.StubServer.Recorded;
import dev.custody.client.StubServer.Reply;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Generated cases of a server that echoes credentials back: random API keys and secrets, and answers
 * that embed the key, the secret or the signature of the very request they answer (whole, as a
 * fragment of 8 or more characters, upper-cased, encoded, or straddling the points where the client
 * cuts text), in the places a server puts text (failure envelopes, {@code errors} lists, success
 * envelopes, field names, HTML error pages, plain text). Shared by the client and cli suites.
 *
 * <p>Cases are reproducible: the same seed and index always give the same case. Set the system
 * property {@code echo.seed} to explore other seeds.
 */
public final class EchoCases {
    /** The seed of the suites, unless {@code -Decho.seed=…}. */
    public static final long SEED = Long.getLong("echo.seed", 20_240_201L);

    /** Where the client cuts text: error snippets (200 characters) and debug bodies (2,000). */
    static final int SNIPPET_CUT = 200;
    static final int DEBUG_CUT = 2_000;

    /** What the server echoes. */
    public enum Target { SECRET, KEY, SIGNATURE, SIGNATURE_HEX }

    /** How it is written back. */
    public enum Form {
        WHOLE, FRAGMENT, UPPER_CASE, URL_ENCODED, PYTHON_JSON, GO_JSON, PHP_JSON, HTML_ESCAPED,
        ACROSS_SNIPPET_CUT, ACROSS_DEBUG_CUT
    }

    /** Where it is written. */
    public enum Place {
        ERROR_MESSAGE, ERRORS_LIST, ERRORS_OBJECTS, SUCCESS_FALSE, SUCCESS_DATA, SUCCESS_MESSAGE, FIELD_NAME,
        NUMBER_LIKE, HTML_PAGE, PLAIN_TEXT
    }

    /** The endpoint called: a GET (retried on 5xx) or a POST with a body (sent once). */
    public enum Call { STATS, RESCAN }

    /** One generated case. */
    public record Case(int index, String apiKey, String apiSecret, Target target, Form form, Place place, int status,
            Call call, long salt) {

        /** The reply to {@code request}: the echo of what it carried, in this case's place and form. */
        public Reply reply(Recorded request) {
            Random r = new Random(salt);
            String token = switch (target) {
                case SECRET -> apiSecret;
                case KEY -> apiKey;
                case SIGNATURE -> request.header("ACCESS-SIGN");
                case SIGNATURE_HEX -> new String(Base64.getDecoder().decode(request.header("ACCESS-SIGN")),
                        StandardCharsets.US_ASCII);
            };
            String echo = switch (form) {
                case FRAGMENT -> {
                    int length = 8 + r.nextInt(token.length() - 7);
                    int start = r.nextInt(token.length() - length + 1);
                    yield token.substring(start, length + start);
                }
                case UPPER_CASE -> token.toUpperCase(Locale.ROOT);
                case URL_ENCODED -> URLEncoder.encode(token, StandardCharsets.UTF_8);
                case HTML_ESCAPED -> htmlEscape(token);
                default -> token;
            };
            boolean json = place != Place.HTML_PAGE && place != Place.PLAIN_TEXT;
            JsonStyle style = switch (form) {
                case PYTHON_JSON -> JsonStyle.PYTHON;
                case GO_JSON -> JsonStyle.GO;
                case PHP_JSON -> JsonStyle.PHP;
                default -> JsonStyle.PLAIN;
            };
            String written = json || style != JsonStyle.PLAIN ? escape(echo, style) : echo;
            String marked = "\u0000" + written;
            String body = switch (place) {
                case ERROR_MESSAGE -> "{\"success\":false,\"code\":" + status * 100 + ",\"message\":\"invalid signature "
                        + marked + " for this request\",\"errors\":[]}";
                case ERRORS_LIST -> "{\"success\":false,\"code\":" + status * 100 + ",\"message\":\"rejected\","
                        + "\"errors\":[\"header ACCESS-SIGN: " + marked + "\",\"other\"]}";
                case ERRORS_OBJECTS -> "{\"success\":false,\"code\":" + status * 100 + ",\"message\":\"rejected\","
                        + "\"errors\":[{\"field\":\"ACCESS-API-KEY\",\"value\":\"" + marked + "\"}]}";
                case SUCCESS_FALSE -> "{\"success\":false,\"code\":10001,\"message\":\"echo: " + marked + "\"}";
                case SUCCESS_DATA -> "{\"success\":true,\"message\":\"ok\",\"code\":0,\"data\":{\"total_value\":\""
                        + marked + "\",\"total_wallets\":2,\"daily_volume_stats\":[{\"id\":{\"month\":1,\"day\":2},"
                        + "\"total\":\"" + written + "\"}],\"debug\":{\"headers\":[\"" + written + "\"]}}}";
                case SUCCESS_MESSAGE -> "{\"success\":true,\"message\":\"signed with " + marked + "\",\"code\":0,"
                        + "\"data\":{\"total_value\":\"1\"}}";
                case FIELD_NAME -> "{\"success\":true,\"message\":\"ok\",\"code\":0,\"data\":{\"total_value\":\"1\",\""
                        + marked + "\":true}}";
                case NUMBER_LIKE -> "{\"success\":true,\"message\":\"ok\",\"code\":0,\"data\":{\"total_value\":\"1\","
                        + "\"total_wallets\":" + (echo.matches("[1-9][0-9]{0,17}") ? echo : "\"" + marked + "\"")
                        + "}}";
                case HTML_PAGE -> "<!DOCTYPE html><html><head><title>" + status + "</title></head><body><h1>Error</h1>"
                        + "<p>request with key " + marked + " refused</p></body></html>";
                case PLAIN_TEXT -> "error: signature mismatch, got " + marked + " (check your clock)";
            };
            return new Reply(status, pad(body, r));
        }

        /** Puts the echo across a cut when the form asks for it; drops the marker. */
        private String pad(String body, Random r) {
            int at = body.indexOf('\u0000');
            if (at < 0) {
                return body;
            }
            int cut = form == Form.ACROSS_SNIPPET_CUT ? SNIPPET_CUT : form == Form.ACROSS_DEBUG_CUT ? DEBUG_CUT : -1;
            String padding = "";
            if (cut > 0) {
                int inside = 1 + r.nextInt(7 + 8);   // characters of the echo before the cut: 1..15
                padding = ".".repeat(Math.max(0, cut - inside - at));
            }
            return body.substring(0, at) + padding + body.substring(at + 1);
        }

        @Override
        public String toString() {
            return "#" + index + " " + target + " " + form + " in " + place + " (" + status + ", " + call + ", key `"
                    + apiKey + "`, secret `" + apiSecret + "`, seed " + SEED + ")";
        }
    }

    private EchoCases() {
    }

    /** {@code count} cases from {@link #SEED}, every target, form and place represented. */
    public static List<Case> cases(int count) {
        List<Case> out = new ArrayList<>();
        Random r = new Random(SEED);
        for (int i = 0; i < count; i++) {
            Target target = Target.values()[i % Target.values().length];
            Form form = Form.values()[(i / Target.values().length) % Form.values().length];
            Place place = Place.values()[r.nextInt(Place.values().length)];
            Call call = r.nextBoolean() ? Call.STATS : Call.RESCAN;
            int status = switch (place) {
                case SUCCESS_FALSE, SUCCESS_DATA, SUCCESS_MESSAGE, FIELD_NAME, NUMBER_LIKE -> 200;
                case HTML_PAGE -> new int[] {200, 401, 403, 502}[r.nextInt(4)];
                case PLAIN_TEXT -> new int[] {200, 400, 401, 503}[r.nextInt(4)];
                default -> new int[] {400, 401, 403, 404, 422, 500}[r.nextInt(6)];
            };
            out.add(new Case(i, credential(r, 12 + r.nextInt(29)), credential(r, 16 + r.nextInt(49)), target, form,
                    place, status, call, r.nextLong()));
        }
        return out;
    }

    /** A random credential; its alphabet varies: hex, alphanumeric, base64, printable ASCII, some non-ASCII. */
    static String credential(Random r, int length) {
        String alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        String alphabet = switch (r.nextInt(5)) {
            case 0 -> "0123456789abcdef";
            case 1 -> alnum;
            case 2 -> alnum + "+/=";
            case 3 -> alnum + "!\"#$%&'()+,-./:;<=>?@[\\]^_`{|}~ ";
            default -> alnum + "éüßñ€中文ä";
        };
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        // no credential starts or ends with a blank: an environment variable would not keep it
        return sb.toString().strip().length() == length ? sb.toString() : "k" + sb.toString().strip() + "k";
    }

    /** The credentials a run exposed: the case's key and secret, and every signature the server received. */
    public static List<String> credentials(Case c, List<Recorded> requests) {
        List<String> out = new ArrayList<>(List.of(c.apiKey(), c.apiSecret()));
        for (Recorded r : requests) {
            String sign = r.header("ACCESS-SIGN");
            if (sign != null) {
                out.add(sign);
                out.add(new String(Base64.getDecoder().decode(sign), StandardCharsets.US_ASCII));
            }
        }
        return out;
    }

    /**
     * Fails if {@code text} holds 8 or more characters in a row of any credential, in any case, as is or
     * in one of the encodings a server may use.
     */
    public static void assertClean(Case c, String where, String text, List<String> credentials) {
        if (text == null) {
            return;
        }
        java.util.Map<String, String> windows = new java.util.HashMap<>();
        for (String credential : credentials) {
            for (String form : encodings(credential)) {
                String lower = form.toLowerCase(Locale.ROOT);
                for (int i = 0; i + 8 <= lower.length(); i++) {
                    windows.putIfAbsent(lower.substring(i, i + 8), credential);
                }
            }
        }
        String haystack = text.toLowerCase(Locale.ROOT);
        for (int i = 0; i + 8 <= haystack.length(); i++) {
            String window = haystack.substring(i, i + 8);
            if (windows.containsKey(window)) {
                fail(c + ": " + where + " leaks `" + window + "` of `" + windows.get(window) + "`:\n" + text);
            }
        }
    }

    private static Set<String> encodings(String s) {
        Set<String> out = new LinkedHashSet<>();
        out.add(s);
        out.add(URLEncoder.encode(s, StandardCharsets.UTF_8));
        out.add(htmlEscape(s));
        for (JsonStyle style : JsonStyle.values()) {
            out.add(escape(s, style));
        }
        return out;
    }

    /** How servers write JSON strings: Jackson, Python's ensure_ascii, Go's HTML-safe, PHP's escaped slashes. */
    enum JsonStyle { PLAIN, PYTHON, GO, PHP }

    static String escape(String s, JsonStyle style) {
        StringBuilder sb = new StringBuilder();
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                sb.append('\\').append(ch);
            } else if (ch == '/' && style == JsonStyle.PHP) {
                sb.append("\\/");
            } else if (ch < 0x20 || (ch > 0x7e && style == JsonStyle.PYTHON)
                    || ((ch == '<' || ch == '>' || ch == '&') && style == JsonStyle.GO)) {
                sb.append(String.format("\\u%04x", (int) ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }

    static String htmlEscape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }
}

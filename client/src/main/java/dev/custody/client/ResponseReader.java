package dev.custody.client;

import static dev.custody.client.Text.firstLine;
import static dev.custody.client.Text.oneLine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Reads the final answer of an exchange: unwraps the envelope {@code {success, message, code, data}}
 * (or takes bare JSON, per {@link ApiRequest.Shape}), converts {@code data} to the typed value, and
 * maps a non-2xx status, {@code success: false} or an unreadable body to {@link CustodyApiException}
 * with the HTTP status and the envelope's code, message and errors.
 *
 * <p>Every text of the body goes through the {@link Redactor} of the exchange, since a server may
 * echo request headers: the values of the parsed answer (successful ones too, so the typed data and
 * the raw tree hold no credential), and the snippets of unreadable bodies, redacted before they are
 * cut. Exceptions never keep a Jackson cause, whose message may quote the body.
 *
 * <p>Thread-safe: stateless apart from the (thread-safe) mapper.
 */
final class ResponseReader {
    private final ObjectMapper mapper;

    ResponseReader(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * The answer {@code status}/{@code body} to {@code request} as a typed response; {@code select}
     * picks the part of {@code data} to convert; {@code redactor} is the one of the exchange, and
     * every text value of the answer goes through it, successful answers included.
     *
     * @throws CustodyApiException if the status is not 2xx, the envelope says {@code success: false},
     *     or the body is not what {@code request} expects
     */
    <T> ApiResponse<T> read(ApiRequest request, int status, String body, JavaType type,
            Function<JsonNode, JsonNode> select, Redactor redactor) {
        JsonNode root = scrub(parse(body), redactor);
        if (status < 200 || status > 299) {
            throw failure(status, root, body, redactor);
        }
        if (root == null && !body.isBlank()) {
            throw new CustodyApiException(status, null, "response is not json: " + snippet(body, redactor), List.of(),
                    null);
        }
        if (root == null) {
            // an empty 2xx answer (204 No Content) carries no data, whatever the shape
            return value(request, status, NullNode.getInstance(), null, type, select, redactor);
        }
        boolean enveloped = switch (request.shape) {
            case ENVELOPE -> true;
            case BARE -> false;
            case AUTO -> root != null && root.isObject() && root.path("success").isBoolean();
        };
        JsonNode data;
        String message = null;
        if (enveloped) {
            if (root == null || !root.isObject() || !root.path("success").isBoolean()) {
                throw new CustodyApiException(status, null, "response is not an api envelope: "
                        + snippet(body, redactor), List.of(), null);
            }
            if (!root.get("success").booleanValue()) {
                throw failure(status, root, body, redactor);
            }
            message = root.hasNonNull("message") ? redactor.redact(root.get("message").asText()) : null;
            data = root.path("data");
        } else {
            data = root;
        }
        return value(request, status, data.isMissingNode() ? NullNode.getInstance() : data, message, type, select,
                redactor);
    }

    /**
     * Converts {@code data} to {@code type}. Absent data reads as an empty list for list types, as
     * {@code null} where the request allows it, and is a {@link CustodyApiException} otherwise.
     */
    private <T> ApiResponse<T> value(ApiRequest request, int status, JsonNode data, String message, JavaType type,
            Function<JsonNode, JsonNode> select, Redactor redactor) {
        JsonNode selected = select.apply(data);
        if (selected.isNull() && !type.hasRawClass(JsonNode.class)) {
            if (type.isCollectionLikeType()) {
                @SuppressWarnings("unchecked")
                T empty = (T) List.of();
                return new ApiResponse<>(empty, data, message);
            }
            if (!request.optionalData) {
                throw new CustodyApiException(status, null, "response to `" + request.method + " " + request.path
                        + "` has no data", List.of(), null);
            }
            return new ApiResponse<>(null, data, message);
        }
        try {
            T value = mapper.convertValue(selected, type);
            return new ApiResponse<>(value, data, message);
        } catch (IllegalArgumentException e) {
            // the cause is dropped on purpose: its message may quote response content, unredacted
            throw new CustodyApiException(status, null, "unexpected response shape for `" + request.method + " "
                    + request.path + "`: " + redactor.redact(firstLine(e.getMessage())), List.of(), null);
        }
    }

    /** The typed exception of a failed answer: HTTP status, and the envelope's code, message and errors. */
    private CustodyApiException failure(int status, JsonNode root, String body, Redactor redactor) {
        Integer code = null;
        String message = null;
        List<String> errors = new ArrayList<>();
        if (root != null && root.isObject()) {
            JsonNode c = root.path("code");
            if (c.canConvertToInt()) {
                code = c.intValue();
            } else if (c.isTextual() && c.asText().matches("-?\\d{1,9}")) {
                code = Integer.parseInt(c.asText());
            }
            JsonNode m = root.path("message");
            message = m.isValueNode() && !m.isNull() ? m.asText() : null;
            JsonNode e = root.path("errors");
            if (e.isArray()) {
                for (JsonNode item : e) {
                    errors.add(redactor.redact(oneLine(item.isTextual() ? item.asText() : item.toString())));
                }
            } else if (e.isTextual() || e.isObject()) {
                errors.add(redactor.redact(oneLine(e.isTextual() ? e.asText() : e.toString())));
            }
        } else if (body != null && !body.isBlank()) {
            message = snippet(body, redactor);
        }
        if (message == null && status >= 300) {
            message = "http status " + status;
        }
        return new CustodyApiException(status, code, message == null ? null : redactor.redact(oneLine(message)),
                errors, null);
    }

    private JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return mapper.readTree(body);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** At most 200 characters of {@code body}, on one line, redacted before it is cut. */
    private static String snippet(String body, Redactor redactor) {
        String one = redactor.redact(oneLine(redactor.redact(body.strip())));
        return one.length() > 200 ? one.substring(0, 200) + "…" : one;
    }

    /**
     * {@code node} with every credential out of its text values, field names and numbers (a number
     * that holds one becomes the masked text); {@code null} stays {@code null}. Changes the tree in
     * place: it was just parsed, and nobody else holds it.
     */
    static JsonNode scrub(JsonNode node, Redactor redactor) {
        if (node == null) {
            return null;
        }
        if (node.isTextual() || node.isNumber()) {
            String text = node.asText();
            String clean = redactor.redact(text);
            return clean.equals(text) ? node : TextNode.valueOf(clean);
        }
        if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, scrub(array.get(i), redactor));
            }
        } else if (node instanceof ObjectNode object) {
            Map<String, JsonNode> fields = new LinkedHashMap<>();
            object.fields().forEachRemaining(f -> fields.put(redactor.redact(f.getKey()), scrub(f.getValue(), redactor)));
            object.removeAll();
            object.setAll(fields);
        }
        return node;
    }
}

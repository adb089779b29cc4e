package dev.custody.client;

import static dev.custody.client.Text.firstLine;
import static dev.custody.client.Text.oneLine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Reads the final answer of an exchange: unwraps the envelope {@code {success, message, code, data}}
 * (or takes bare JSON, per {@link ApiRequest.Shape}), converts {@code data} to the typed value, and
 * maps a non-2xx status, {@code success: false} or an unreadable body to {@link CustodyApiException}
 * with the HTTP status and the envelope's code, message and errors.
 *
 * <p>Every text taken from the body into a message goes through the {@link Redactor}, since a server
 * may echo request headers. Exceptions never keep a Jackson cause, whose message may quote the body.
 *
 * <p>Thread-safe: stateless apart from the (thread-safe) mapper and redactor.
 */
final class ResponseReader {
    private final ObjectMapper mapper;
    private final Redactor redactor;

    ResponseReader(ObjectMapper mapper, Redactor redactor) {
        this.mapper = mapper;
        this.redactor = redactor;
    }

    /**
     * The answer {@code status}/{@code body} to {@code request} as a typed response; {@code select}
     * picks the part of {@code data} to convert.
     *
     * @throws CustodyApiException if the status is not 2xx, the envelope says {@code success: false},
     *     or the body is not what {@code request} expects
     */
    <T> ApiResponse<T> read(ApiRequest request, int status, String body, JavaType type,
            Function<JsonNode, JsonNode> select) {
        JsonNode root = parse(body);
        if (status < 200 || status > 299) {
            throw failure(status, root, body);
        }
        if (root == null && !body.isBlank()) {
            throw new CustodyApiException(status, null, "response is not json: " + snippet(body), List.of(), null);
        }
        if (root == null) {
            // an empty 2xx answer (204 No Content) carries no data, whatever the shape
            return value(request, status, NullNode.getInstance(), null, type, select);
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
                throw new CustodyApiException(status, null, "response is not an api envelope: " + snippet(body),
                        List.of(), null);
            }
            if (!root.get("success").booleanValue()) {
                throw failure(status, root, body);
            }
            message = root.hasNonNull("message") ? redactor.redact(root.get("message").asText()) : null;
            data = root.path("data");
        } else {
            data = root;
        }
        return value(request, status, data.isMissingNode() ? NullNode.getInstance() : data, message, type, select);
    }

    /**
     * Converts {@code data} to {@code type}. Absent data reads as an empty list for list types, as
     * {@code null} where the request allows it, and is a {@link CustodyApiException} otherwise.
     */
    private <T> ApiResponse<T> value(ApiRequest request, int status, JsonNode data, String message, JavaType type,
            Function<JsonNode, JsonNode> select) {
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
    private CustodyApiException failure(int status, JsonNode root, String body) {
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
            message = snippet(body);
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

    /** At most 200 characters of {@code body}, on one line, redacted. */
    private String snippet(String body) {
        String one = oneLine(body.strip());
        return redactor.redact(one.length() > 200 ? one.substring(0, 200) + "…" : one);
    }
}

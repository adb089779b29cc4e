package dev.custody.client;

import java.util.List;

/**
 * The server answered, but not with success: a non-2xx HTTP status, an envelope with
 * {@code success: false} (even with HTTP 200), or a body the client cannot read as the spec
 * describes. Carries the HTTP status, the envelope's {@code code}, {@code message} and
 * {@code errors} when present.
 *
 * <p>{@link #getMessage()} is one line such as {@code api returned 404 (code 40401): policy not
 * found}; it is redacted, so it never contains the API secret or a signature. Immutable and thread-safe.
 */
public final class CustodyApiException extends CustodyClientException {
    private static final long serialVersionUID = 1L;

    private final int httpStatus;
    private final Integer code;
    private final String serverMessage;
    private final List<String> errors;

    CustodyApiException(int httpStatus, Integer code, String serverMessage, List<String> errors, Throwable cause) {
        super(render(httpStatus, code, serverMessage), cause);
        this.httpStatus = httpStatus;
        this.code = code;
        this.serverMessage = serverMessage;
        this.errors = List.copyOf(errors);
    }

    private static String render(int httpStatus, Integer code, String serverMessage) {
        StringBuilder sb = new StringBuilder("api returned ").append(httpStatus);
        if (code != null) {
            sb.append(" (code ").append(code).append(')');
        }
        sb.append(": ").append(serverMessage == null || serverMessage.isBlank() ? "no message" : serverMessage);
        return sb.toString();
    }

    /** The HTTP status of the response (200 when the envelope said {@code success: false}). */
    public int httpStatus() {
        return httpStatus;
    }

    /** The envelope's {@code code}, or {@code null} when the body carried none. */
    public Integer code() {
        return code;
    }

    /** The envelope's {@code message} (redacted), or {@code null}. */
    public String serverMessage() {
        return serverMessage;
    }

    /** The envelope's {@code errors}, one line each (objects as compact JSON); empty when absent. */
    public List<String> errors() {
        return errors;
    }
}

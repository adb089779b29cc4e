package dev.custody.engine.velocity;

/**
 * A {@link VelocitySource} could not give the figures for an action (a database that does not answer, an
 * instant the in-memory ledger no longer holds data for). The action must then be denied fail-closed
 * (spec, Errors 2): a velocity rule cannot be decided soundly without its figures. The message is one
 * line, lowercase, without a final period.
 */
public class VelocityException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public VelocityException(String message) {
        super(message);
    }

    public VelocityException(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.custody.engine;

/** What a decision says about an action. */
public enum Outcome {
    /** An ALLOW rule matched and no DENY rule did: approval is bypassed. */
    ALLOW,
    /**
     * A DENY rule matched, or the evaluation failed (fail-closed: see {@link Decision#failClosed()}): the
     * action is blocked.
     */
    DENY,
    /** No rule matched: the normal approval flow continues. */
    NO_MATCH
}

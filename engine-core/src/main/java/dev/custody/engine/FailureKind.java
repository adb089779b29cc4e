package dev.custody.engine;

/**
 * Why a decision was denied fail-closed: a stable word for programs (dashboards, alerts, the {@code "failure"}
 * field of replay's records), beside the one-line {@link Decision#error()} meant for people. Code decides on
 * the kind, never on the message text.
 *
 * <p>A {@code switch} over this enum breaks when a kind is added, which is the point: a caller that treats
 * kinds differently (e.g. pages an operator on {@link #LOAD} but not on {@link #RULE_ERROR}) must decide
 * about the new one.
 */
public enum FailureKind {
    /** The workspace's policies could not be loaded: the source failed, or policy files do not read cleanly. */
    LOAD("load"),
    /** An enabled rule of an active policy does not compile (or the policies are invalid): the whole bundle denies. */
    COMPILE("compile"),
    /** The action itself is malformed: an unreadable line, a wrong field type, an unknown field or section. */
    MALFORMED_ACTION("malformed_action"),
    /** A rule that had to be evaluated failed: an absent field, a non-boolean result, an arithmetic error. */
    RULE_ERROR("rule_error"),
    /**
     * Deciding cost more than the cost limit ({@link dev.custody.engine.compile.CostMeter}): a property of the
     * rules and the action, the same on every machine and under every load, so deciding again gives the same.
     */
    COST_BUDGET("cost_budget"),
    /**
     * Deciding ran past the wall-clock budget, a far backstop (default 1 s) against what the cost cannot see.
     * Unlike {@link #COST_BUDGET} it depends on the machine's load: the same action may decide otherwise later.
     */
    TIME_BUDGET("time_budget"),
    /**
     * The durable velocity ledger ({@code custody serve --ledger}) did not answer: its database is down or too slow,
     * so the withdrawal's attempt could not be recorded or its figures read. Transient: the same action may decide
     * otherwise once the ledger answers again.
     */
    LEDGER("ledger"),
    /** A defect of the engine itself (an unexpected exception); the action is still denied. */
    INTERNAL("internal");

    private final String wireName;

    FailureKind(String wireName) {
        this.wireName = wireName;
    }

    /** The word used in JSON output: {@code load}, {@code compile}, {@code malformed_action}, … */
    public String wireName() {
        return wireName;
    }
}

package dev.custody.analysis;

import java.util.Locale;

/** The kinds of analysis finding (docs/design.md §5.1), in the order a rule's findings are listed. */
public enum FindingKind {
    /** No valid action makes the rule true. */
    UNSATISFIABLE("error"),
    /** Every valid action makes the rule true. */
    ALWAYS_TRUE("warning"),
    /**
     * An earlier rule with the same effect and an equivalent condition (same results and same failures on every
     * action) whose policy targets every wallet and workspace this rule's does: it never gets attribution.
     */
    DUPLICATE("warning"),
    /** Whenever the rule is true, an earlier rule of the same effect that targets the action's wallet is too. */
    SHADOWED("warning"),
    /** An ALLOW rule that is true only when a DENY rule targeting the action's wallet is true: it never allows. */
    OVERRIDDEN("warning"),
    /** Some valid action makes the rule fail at run time, and no DENY rule decides it first: a fail-closed DENY. */
    MAY_ERROR("error"),
    /** The condition is outside the analysed fragment; nothing is claimed about it. */
    NOT_ANALYZED("info"),
    /** The solver ran out of time (or a witness did not replay); nothing is claimed. */
    UNKNOWN("info");

    private final String severity;

    FindingKind(String severity) {
        this.severity = severity;
    }

    /** The JSON name, e.g. {@code always_true}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** {@code error}, {@code warning} or {@code info}; an error makes {@code custody analyze} exit 1. */
    public String severity() {
        return severity;
    }
}

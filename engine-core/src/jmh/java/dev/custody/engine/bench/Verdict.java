package dev.custody.engine.bench;

import dev.custody.engine.Outcome;

/**
 * The decision of the comparison engines (raw cel-java, hand-written Java): what, which rule, and whether
 * by failure, as {@link dev.custody.engine.Decision} has it.
 */
record Verdict(Outcome decision, String ruleId, boolean failClosed) {
    static final Verdict NO_MATCH = new Verdict(Outcome.NO_MATCH, null, false);
}

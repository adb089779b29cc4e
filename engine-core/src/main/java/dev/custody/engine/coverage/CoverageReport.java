package dev.custody.engine.coverage;

import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.TriggerAction;
import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link CoverageRecorder} counted, at one moment: every rule it knows with how often it was evaluated,
 * true, false and failing, and every branch of their conditions with how often it was true and false. Rules are
 * in the order the recorder first learnt of them (declaration order when it was given the policies up front),
 * branches by rule, then by position in the condition. Immutable and thread-safe.
 *
 * <h2>The percentage</h2>
 * Each branch has two outcomes, true and false; an outcome is seen when the branch was that at least once.
 * {@link #percent()} is {@code 100 × seen outcomes / (2 × branches)}, and 100 when there are no branches
 * (nothing was missed). {@link #below} compares exactly, without rounding.
 *
 * @param rules per rule, in order
 * @param branches per branch, by rule then position
 */
public record CoverageReport(List<RuleCoverage> rules, List<BranchCoverage> branches) {

    public CoverageReport {
        rules = List.copyOf(rules);
        branches = List.copyOf(branches);
    }

    /**
     * One rule's counts. {@code evaluated} is {@code trueCount + falseCount + errorCount}.
     *
     * @param policyId the policy's id
     * @param ruleId the rule's id
     * @param action the rule's trigger action
     * @param effect ALLOW or DENY
     * @param condition the condition text
     * @param evaluated how many decisions evaluated it
     * @param trueCount how many times it was true
     * @param falseCount how many times it was false
     * @param errorCount how many times it failed (an error, an absent field, a time-out: it then denied)
     */
    public record RuleCoverage(String policyId, String ruleId, TriggerAction action, Effect effect, String condition,
            long evaluated, long trueCount, long falseCount, long errorCount) {
        public RuleCoverage {
            Objects.requireNonNull(policyId, "policyId");
            Objects.requireNonNull(ruleId, "ruleId");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(effect, "effect");
            Objects.requireNonNull(condition, "condition");
        }
    }

    /**
     * One branch's counts (see {@link dev.custody.engine.compile.ConditionBranches} for what a branch is and
     * when it is counted).
     *
     * @param policyId the policy's id
     * @param ruleId the rule's id
     * @param action the rule's trigger action
     * @param line the 1-based line of the branch's start inside the condition
     * @param column the 1-based column (code points) of its start inside the condition
     * @param offset where its text starts in the condition, in code points
     * @param length its length in code points
     * @param text its source text
     * @param trueCount how many times it evaluated to true
     * @param falseCount how many times it evaluated to false
     */
    public record BranchCoverage(String policyId, String ruleId, TriggerAction action, int line, int column,
            int offset, int length, String text, long trueCount, long falseCount) {
        public BranchCoverage {
            Objects.requireNonNull(policyId, "policyId");
            Objects.requireNonNull(ruleId, "ruleId");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(text, "text");
        }

        /** How many of its two outcomes were seen: 0, 1 or 2. */
        public int outcomesSeen() {
            return (trueCount > 0 ? 1 : 0) + (falseCount > 0 ? 1 : 0);
        }
    }

    /** Every branch outcome: twice the number of branches. */
    public long outcomes() {
        return 2L * branches.size();
    }

    /** The branch outcomes seen at least once. */
    public long outcomesSeen() {
        long n = 0;
        for (BranchCoverage b : branches) {
            n += b.outcomesSeen();
        }
        return n;
    }

    /** {@code 100 × outcomesSeen() / outcomes()}, or 100 without branches. */
    public double percent() {
        long all = outcomes();
        return all == 0 ? 100.0 : 100.0 * outcomesSeen() / all;
    }

    /** Whether fewer than {@code percent} % of the branch outcomes were seen, compared exactly. */
    public boolean below(BigDecimal percent) {
        Objects.requireNonNull(percent, "percent");
        long all = outcomes();
        if (all == 0) {
            return BigDecimal.valueOf(100).compareTo(percent) < 0;
        }
        return BigDecimal.valueOf(outcomesSeen()).multiply(BigDecimal.valueOf(100))
                .compareTo(percent.multiply(BigDecimal.valueOf(all))) < 0;
    }
}

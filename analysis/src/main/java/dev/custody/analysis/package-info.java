/**
 * Static analysis of policy sets with the Z3 SMT solver (docs/design.md §5.1, §5.2, §13):
 * {@link dev.custody.analysis.PolicySet} keeps the rules the evaluator would keep,
 * {@link dev.custody.analysis.PolicyAnalyzer} reports {@link dev.custody.analysis.FindingKind findings} about
 * each rule for every valid action, and {@link dev.custody.analysis.SemanticDiff} proves whether two sets decide
 * every valid action alike. Every witness action is replayed through {@link dev.custody.engine.PolicyEngine}
 * before it is reported.
 */
package dev.custody.analysis;

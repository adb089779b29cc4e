/**
 * Coverage of policies by the actions decided: which rules ran and how often each was true, false or failed
 * ({@link dev.custody.engine.coverage.CoverageReport.RuleCoverage}), and how often each branch of each
 * condition was true and false ({@link dev.custody.engine.coverage.CoverageReport.BranchCoverage}).
 *
 * <p>The engine reports to an {@link dev.custody.engine.coverage.EvaluationObserver} that is also
 * the {@code EngineObserver} given to {@code PolicyEngine.Builder.observer}, a tool-only extension (this package is not part of
 * the embedding API: its types name the project's tool types); {@link dev.custody.engine.coverage.CoverageRecorder}
 * is the observer that counts. Without an observer the engine does no coverage work at all. Coverage is
 * told after a decision is made and never changes one (docs/design.md §5.3).
 */
package dev.custody.engine.coverage;

/**
 * What a decision is: {@link dev.custody.engine.eval.Decision} (outcome, attribution, failure kind, trace),
 * {@link dev.custody.engine.eval.Outcome}, {@link dev.custody.engine.eval.FailureKind} and
 * {@link dev.custody.engine.eval.TraceEntry}. Values only; the evaluator that makes them is internal.
 */
package dev.custody.engine.eval;

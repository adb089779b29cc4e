/**
 * Internal, not API (may change in any release): the evaluator that decides one action against one compiled
 * bundle (docs/design.md §3: DENY over ALLOW, first match, fail-closed, the time budget). Reached through
 * {@link dev.custody.engine.PolicyEngine}.
 */
package dev.custody.engine.internal.eval;

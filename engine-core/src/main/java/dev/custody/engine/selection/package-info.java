/**
 * Which rules of which policies apply: the one implementation of the selection of docs/design.md §3 steps 1–2
 * and 7 (active policies, enabled rules, policy and rule ids, wallet targeting, declaration order, and the errors
 * that make a workspace's bundle deny everything). The engine's bundle is built from a
 * {@link dev.custody.engine.selection.RuleSelection}; {@code analyze}, {@code diff --semantic}, coverage and the
 * test runner see a workspace's rules through the same class, so what they report is what the engine decides by.
 * Exported only to the modules of this project that need it.
 */
package dev.custody.engine.selection;

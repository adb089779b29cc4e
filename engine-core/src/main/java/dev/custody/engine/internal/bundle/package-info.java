/**
 * Internal, not API (may change in any release): the compiled bundle of a workspace (rules indexed by action and
 * effect, bound to wallet targeting) and its warm-up. Built and cached by {@link dev.custody.engine.PolicyEngine}.
 */
package dev.custody.engine.internal.bundle;

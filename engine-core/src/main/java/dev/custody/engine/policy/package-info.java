/**
 * The policy model as written (policies, rules, rule updates), reading policy files with source positions,
 * validation of every limit of the spec, and the errors that make a bundle invalid
 * ({@link dev.custody.engine.policy.BundleError}). What lint reports and what the engine loads.
 */
package dev.custody.engine.policy;

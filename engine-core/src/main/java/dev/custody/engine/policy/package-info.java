/**
 * The policy model as a policy source returns it (policies and rules, wire values unchecked) and the errors that
 * make a bundle invalid ({@link dev.custody.engine.policy.BundleError}). Reading policy files and validating
 * policies are the tools' (packages {@code dev.custody.engine.files} and {@code dev.custody.engine.validate}).
 */
package dev.custody.engine.policy;

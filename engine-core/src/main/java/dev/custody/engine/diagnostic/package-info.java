/**
 * Diagnostics as values: a stable code, a severity, a position and a one-line message with an optional hint, as
 * an invalid bundle reports them. Rendering them (one-line, caret) is the tools' (package
 * {@code dev.custody.engine.validate}).
 */
package dev.custody.engine.diagnostic;

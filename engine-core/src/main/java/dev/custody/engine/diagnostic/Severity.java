package dev.custody.engine.diagnostic;

import java.util.Locale;

/** How serious a diagnostic is. Errors make a condition or policy invalid; warnings do not. */
public enum Severity {
    /** The condition or policy is invalid: it is not saved, and a bundle containing it denies. */
    ERROR,
    /** Valid, but likely wrong (e.g. an unguarded read of an optional field). */
    WARNING;

    /** The lowercase wire name, e.g. {@code "error"}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package dev.custody.cli;

/**
 * ANSI colour for text output, on only when stdout is a terminal and {@code NO_COLOR} is unset
 * ({@link CliEnvironment#colour()}); off, every method returns its argument unchanged. Immutable.
 */
public final class Style {
    private final boolean on;

    public Style(boolean on) {
        this.on = on;
    }

    public String red(String s) {
        return wrap("31", s);
    }

    public String green(String s) {
        return wrap("32", s);
    }

    public String yellow(String s) {
        return wrap("33", s);
    }

    public String bold(String s) {
        return wrap("1", s);
    }

    public String dim(String s) {
        return wrap("2", s);
    }

    /** Red for errors, yellow for warnings. */
    public String severity(dev.custody.engine.diagnostic.Severity severity, String s) {
        return severity == dev.custody.engine.diagnostic.Severity.ERROR ? red(s) : yellow(s);
    }

    private String wrap(String code, String s) {
        return on ? "\u001b[" + code + "m" + s + "\u001b[0m" : s;
    }
}

package dev.custody.engine.files;

/**
 * A file that is not well-formed JSON or YAML. The message is one line, lowercase; {@link #line()} and
 * {@link #column()} are 1-based, 0 when unknown.
 */
public final class DocumentException extends Exception {
    private final int line;
    private final int column;

    public DocumentException(String message, int line, int column) {
        super(message, null, false, false);
        this.line = line;
        this.column = column;
    }

    /** 1-based line of the problem, or 0. */
    public int line() {
        return line;
    }

    /** 1-based column of the problem, or 0. */
    public int column() {
        return column;
    }
}

package dev.custody.cli.lsp;

import dev.custody.cli.command.LintCommand;
import dev.custody.cli.command.PolicyTestFile;
import dev.custody.engine.files.DocumentException;
import dev.custody.engine.files.DocumentParser;
import dev.custody.engine.files.SourceNode;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyFiles;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.lsp4j.Diagnostic;
import org.eclipse.lsp4j.DiagnosticSeverity;
import org.eclipse.lsp4j.Range;

/**
 * One version of an open document, analysed once: its text, its parsed tree (null while it does not parse)
 * and its diagnostics. A policy file's diagnostics are {@code custody lint}'s findings for the text, through
 * {@link LintCommand#lintTexts} (the same code, message and start position; the range covers the offending
 * token); a policy test file's are the problems {@code custody test} reports for it. Immutable and
 * thread-safe.
 */
final class PolicyBuffer {
    /** The {@code source} of every diagnostic the server publishes. */
    static final String SOURCE = "custody";
    /** The code of a test file's problems, which {@code custody test} reports without a code. */
    static final String TEST_FILE_CODE = "test_file";

    private final String uri;
    private final int version;
    private final String name;
    private final TextIndex index;
    private final SourceNode root;
    private final boolean json;
    private final boolean testFile;
    private final List<Diagnostic> diagnostics;

    private PolicyBuffer(String uri, int version, String text) {
        this.uri = uri;
        this.version = version;
        this.name = fileName(uri);
        this.index = new TextIndex(text);
        this.json = !DocumentParser.isYaml(name);
        this.testFile = PolicyFiles.isTestFile(name);
        SourceNode parsed;
        try {
            parsed = DocumentParser.parse(text, name);
        } catch (DocumentException | RuntimeException e) {
            parsed = null;
        }
        this.root = parsed;
        this.diagnostics = testFile ? testFileDiagnostics() : lintDiagnostics();
    }

    /** Analyses a text. Never throws on any text: a text that does not parse has a parse-error diagnostic. */
    static PolicyBuffer of(String uri, int version, String text) {
        return new PolicyBuffer(uri, version, text);
    }

    String uri() {
        return uri;
    }

    int version() {
        return version;
    }

    /** The file name lint would use: the path of a {@code file:} URI, else the URI itself. */
    String name() {
        return name;
    }

    TextIndex index() {
        return index;
    }

    String text() {
        return index.text();
    }

    /** The parsed tree, or null while the text is not well-formed. */
    SourceNode root() {
        return root;
    }

    boolean json() {
        return json;
    }

    boolean testFile() {
        return testFile;
    }

    List<Diagnostic> diagnostics() {
        return diagnostics;
    }

    private List<Diagnostic> lintDiagnostics() {
        LintCommand.LintedFile linted = LintCommand.lintTexts(List.of(new LintCommand.Source(name, text()))).get(0);
        List<Diagnostic> out = new ArrayList<>();
        for (Finding f : linted.findings()) {
            dev.custody.engine.diagnostic.Diagnostic d = f.diagnostic();
            Diagnostic x = new Diagnostic(tokenRange(f.line(), f.column(), d.line() > 0), d.message(),
                    d.isError() ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning, SOURCE, d.code().id());
            // the hint and pointer travel with the diagnostic: the quick fixes read the hint back
            Map<String, String> data = new java.util.LinkedHashMap<>();
            data.put("pointer", f.pointer());
            if (d.hint() != null) {
                data.put("hint", d.hint());
            }
            x.setData(data);
            out.add(x);
        }
        return List.copyOf(out);
    }

    private List<Diagnostic> testFileDiagnostics() {
        Path dir = directory();
        List<Diagnostic> out = new ArrayList<>();
        for (PolicyTestFile.Problem p : PolicyTestFile.problems(text(), name, dir)) {
            // a problem of a referenced policy file names that file: it is placed at the start of this one
            boolean here = p.file().equals(name);
            Range r = here ? tokenRange(p.line(), p.column(), false) : index.range(0, 0);
            String message = here ? p.message() : p.file() + (p.line() > 0 ? ":" + p.line() + ":" + p.column() : "")
                    + ": " + p.message();
            out.add(new Diagnostic(r, message, DiagnosticSeverity.Error, SOURCE, TEST_FILE_CODE));
        }
        // in the file's order, as lint orders its findings
        out.sort(java.util.Comparator.comparingInt((Diagnostic d) -> d.getRange().getStart().getLine())
                .thenComparingInt(d -> d.getRange().getStart().getCharacter()));
        return List.copyOf(out);
    }

    private Path directory() {
        try {
            Path p = Path.of(name).toAbsolutePath().getParent();
            return p != null ? p : Path.of("").toAbsolutePath();
        } catch (RuntimeException e) {
            return Path.of("").toAbsolutePath();
        }
    }

    /**
     * The range of the token a finding at a 1-based line and column points at. Inside a condition: an
     * identifier, a string literal or an operator. Elsewhere: the key or scalar value that starts there (its
     * whole source, quotes included), else the identifier there, else one character. A finding with no
     * position (line 0) covers the start of the file.
     */
    Range tokenRange(int line, int column, boolean inCondition) {
        if (line <= 0) {
            return index.range(0, 0);
        }
        int start = index.offset(line, Math.max(1, column));
        int lineEnd = index.lineEnd(line - 1);
        if (!inCondition && root != null) {
            SourceNode.ScalarNode s = scalarAt(root, line, column);
            if (s != null && s.end() > s.start()) {
                return index.range(s.start(), s.end());
            }
        }
        return index.range(start, tokenEnd(index.text(), start, lineEnd));
    }

    /** The end of the token starting at {@code start}, not past {@code lineEnd}. */
    static int tokenEnd(String text, int start, int lineEnd) {
        if (start >= lineEnd) {
            return start;
        }
        char c = text.charAt(start);
        int i = start + 1;
        if (isIdentifier(c)) {
            while (i < lineEnd && isIdentifier(text.charAt(i))) {
                i++;
            }
            return i;
        }
        if (c == '"' || c == '\'') {
            while (i < lineEnd && text.charAt(i) != c) {
                i += text.charAt(i) == '\\' ? 2 : 1;
            }
            return Math.min(lineEnd, i + 1);
        }
        if ("<>=!&|".indexOf(c) >= 0) {
            while (i < lineEnd && "<>=!&|".indexOf(text.charAt(i)) >= 0) {
                i++;
            }
            return i;
        }
        return i;
    }

    static boolean isIdentifier(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** The key or scalar value of the tree that starts at a 1-based line and column, or null. */
    static SourceNode.ScalarNode scalarAt(SourceNode node, int line, int column) {
        if (node instanceof SourceNode.ScalarNode s) {
            return s.line() == line && s.column() == column ? s : null;
        }
        if (node instanceof SourceNode.ObjectNode o) {
            for (Map.Entry<String, SourceNode> e : o.fields().entrySet()) {
                SourceNode.ScalarNode k = o.keys().get(e.getKey());
                if (k != null && k.line() == line && k.column() == column) {
                    return k;
                }
                SourceNode.ScalarNode v = scalarAt(e.getValue(), line, column);
                if (v != null) {
                    return v;
                }
            }
        } else if (node instanceof SourceNode.ArrayNode a) {
            for (SourceNode item : a.items()) {
                SourceNode.ScalarNode v = scalarAt(item, line, column);
                if (v != null) {
                    return v;
                }
            }
        }
        return null;
    }

    private static String fileName(String uri) {
        try {
            URI u = URI.create(uri);
            if ("file".equals(u.getScheme())) {
                return Path.of(u).toString();
            }
        } catch (RuntimeException e) {
            // not a file URI: the URI names the buffer
        }
        return uri;
    }
}

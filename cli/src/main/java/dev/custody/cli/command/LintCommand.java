package dev.custody.cli.command;

import dev.custody.cli.CliException;
import dev.custody.cli.Compilers;
import dev.custody.cli.CliRoot;
import dev.custody.cli.DebugOption;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Style;
import dev.custody.cli.VersionProvider;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.files.SourceNode;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.schema.PolicyStatus;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code custody lint}: validates policy files and directories (recursive), reporting every finding at its
 * file:line:column, inside the condition on the offending token (through JSON escapes and YAML block
 * scalars). Beyond each policy's own checks, it reports policy ids shared by two active policies of a
 * workspace, which would make the workspace's bundle deny everything. Exit 1 on errors (and on warnings with
 * {@code --strict}). With {@code --format json} each diagnostic also carries {@code condition_line} and
 * {@code condition_column}, its 1-based position inside the condition, when it points at a condition token.
 */
@Command(name = "lint",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Validate policy files and directories; findings at file:line:column.",
            "Directories are searched recursively; *.test.yaml|yml|json files are skipped."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody lint policies/",
            "  custody lint --strict policies/treasury.yaml policies/roles.yaml",
            "  custody lint --format sarif policies/ > lint.sarif   # code scanning",
            "  custody lint --format github policies/               # annotations",
            "",
            "JSON diagnostics: file, pointer, line, column, severity, code, message, hint,",
            "condition_line, condition_column. line/column are in the file;",
            "condition_line/condition_column (1-based) are inside the rule's condition,",
            "left out when the finding is not about a token of a condition.",
        })
public final class LintCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { text, json, sarif, github }

    @ParentCommand
    CliRoot root;

    @Mixin
    DebugOption debug;

    @Spec
    CommandSpec spec;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--strict", description = "Fail (exit 1) on warnings too.")
    boolean strict;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Policy files (.json, .yaml, .yml) or directories.")
    List<Path> paths;

    /**
     * One linted file: its text lines (for the caret display) and its findings, sorted by position. Immutable.
     *
     * @param file the file name as given
     * @param lines the text's lines
     * @param findings every finding, sorted by line, then column
     * @param policies how many policies the file holds
     * @param rules how many rules its policies hold
     */
    public record LintedFile(String file, List<String> lines, List<Finding> findings, int policies, int rules) {}

    /**
     * One text to lint, as an editor holds it (the language server lints unsaved buffers).
     *
     * @param name the file name findings carry and policy ids derive from
     * @param text the file's text, or null when the file is not UTF-8
     */
    public record Source(String name, String text) {
        public Source {
            java.util.Objects.requireNonNull(name, "name");
        }
    }

    @Override
    public Integer call() throws Exception {
        List<Path> files = PolicyFiles.discover(paths);
        if (files.isEmpty()) {
            throw CliException.input("no policy files (.json, .yaml, .yml) under " + quoted(paths));
        }
        List<LintedFile> linted = lint(files);
        int errors = 0;
        int warnings = 0;
        int policies = 0;
        int rules = 0;
        for (LintedFile f : linted) {
            policies += f.policies();
            rules += f.rules();
            for (Finding x : f.findings()) {
                if (x.diagnostic().isError()) {
                    errors++;
                } else {
                    warnings++;
                }
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        String summary = Inputs.plural(files.size(), "file") + ", " + Inputs.plural(policies, "policy", "policies")
                + ", " + Inputs.plural(rules, "rule") + ": " + Inputs.plural(errors, "error") + ", "
                + Inputs.plural(warnings, "warning");
        switch (format) {
            case text -> {
                Style style = root.style();
                for (LintedFile f : linted) {
                    for (Finding x : f.findings()) {
                        printText(out, f, x, style);
                    }
                }
                out.println(summary);
            }
            case json -> out.println(JsonOutput.write(json(linted, files.size(), policies, rules, errors, warnings)));
            case sarif -> out.println(JsonOutput.write(Sarif.report(linted)));
            case github -> {
                for (LintedFile f : linted) {
                    for (Finding x : f.findings()) {
                        out.println(github(x));
                    }
                }
                spec.commandLine().getErr().println(summary);
            }
            default -> throw new IllegalStateException(format.name());
        }
        out.flush();
        return errors > 0 || (strict && warnings > 0) ? ExitCode.INPUT : ExitCode.OK;
    }

    static List<LintedFile> lint(List<Path> files) throws java.io.IOException {
        List<Source> sources = new ArrayList<>();
        for (Path p : files) {
            String name = p.toString();
            byte[] bytes = Files.readAllBytes(p);
            String text;
            try {
                text = Inputs.decode(bytes, "`" + name + "`");
            } catch (CliException e) {
                text = null;
            }
            sources.add(new Source(name, text));
        }
        return lintTexts(sources);
    }

    /**
     * Lints texts as {@code custody lint} lints files: the one code path behind the command's findings and the
     * language server's diagnostics ({@code custody lsp}), so both report the same codes, messages and
     * positions. Policy ids shared across the texts are reported as in a run over all of them. Thread-safe (the
     * shared compiler is).
     *
     * @param sources the texts, in the order findings of shared ids are attributed
     * @return one result per source, in order
     */
    public static List<LintedFile> lintTexts(List<Source> sources) {
        PolicyValidator validator = new PolicyValidator(Compilers.shared());
        List<String> names = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        List<PolicyDocument> docs = new ArrayList<>();
        List<List<Finding>> findings = new ArrayList<>();
        for (Source source : sources) {
            String name = source.name();
            String text = source.text();
            names.add(name);
            texts.add(text == null ? "" : text);
            if (text == null) {
                docs.add(null);
                findings.add(new ArrayList<>(List.of(new Finding(name, "", 0, 0, Diagnostic.at("",
                        DiagnosticCode.PARSE_ERROR, "file is not UTF-8 text", "save it as UTF-8")))));
                continue;
            }
            PolicyDocument doc = PolicyReader.parse(text, name);
            docs.add(doc);
            findings.add(new ArrayList<>(doc.validate(validator)));
        }
        duplicateIds(docs, findings);
        List<LintedFile> out = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            List<Finding> fs = findings.get(i);
            fs.sort(Comparator.comparingInt((Finding f) -> f.line()).thenComparingInt(Finding::column));
            PolicyDocument doc = docs.get(i);
            int policies = doc == null ? 0 : doc.policies().size();
            int rules = doc == null ? 0 : doc.policies().stream().mapToInt(sp -> sp.policy().rules().size()).sum();
            out.add(new LintedFile(names.get(i), texts.get(i).lines().toList(), List.copyOf(fs), policies, rules));
        }
        return out;
    }

    /**
     * Two active policies of a workspace with one id make its bundle invalid (every action denied); ids
     * derived from file names collide too ({@code a/limits.yaml}, {@code b/limits.yaml}). Reported on the
     * later policy.
     */
    private static void duplicateIds(List<PolicyDocument> docs, List<List<Finding>> findings) {
        record Seen(String file, String workspace) {}
        Map<String, List<Seen>> seen = new LinkedHashMap<>();
        for (int i = 0; i < docs.size(); i++) {
            PolicyDocument doc = docs.get(i);
            if (doc == null) {
                continue;
            }
            for (SourcedPolicy sp : doc.policies()) {
                Optional<PolicyStatus> status = sp.policy().effectiveStatus();
                if (sp.policy().id() == null || status.isEmpty() || status.get() != PolicyStatus.ACTIVE) {
                    continue;
                }
                String ws = sp.policy().workspaceId();
                List<Seen> earlier = seen.computeIfAbsent(sp.policy().id(), k -> new ArrayList<>());
                Optional<Seen> clash = earlier.stream()
                        .filter(s -> s.workspace() == null || ws == null || s.workspace().equalsIgnoreCase(ws))
                        .findFirst();
                if (clash.isPresent()) {
                    boolean explicit = sp.node() instanceof SourceNode.ObjectNode o && o.fields().containsKey("id");
                    String where = clash.get().file().equals(doc.file()) ? "an earlier policy of this file"
                            : "`" + clash.get().file() + "`";
                    Diagnostic d = Diagnostic.at("/id", DiagnosticCode.DUPLICATE_ID, "policy id `" + sp.policy().id()
                            + "`" + (explicit ? "" : " (derived from the file name)") + " is also used by " + where,
                            explicit ? "ids must be unique among the active policies of a workspace"
                                    : "give the policies explicit `id`s");
                    findings.get(i).add(doc.locate(sp, d));
                }
                earlier.add(new Seen(doc.file(), ws));
            }
        }
    }

    private static void printText(PrintWriter out, LintedFile f, Finding x, Style style) {
        Diagnostic d = x.diagnostic();
        String head = d.severity().wireName() + "[" + d.code().id() + "]";
        out.println(style.bold(location(x)) + ": " + style.severity(d.severity(), head) + " " + d.message());
        if (x.line() > 0 && x.line() <= f.lines().size()) {
            String number = Integer.toString(x.line());
            String gutter = " ".repeat(number.length());
            String line = f.lines().get(x.line() - 1);
            int col = Math.max(1, Math.min(x.column(), line.length() + 1));
            int start = 0;
            int end = line.length();
            if (line.length() > 120) {
                start = Math.max(0, col - 1 - 60);
                end = Math.min(line.length(), start + 120);
            }
            String shown = (start > 0 ? "…" : "") + line.substring(start, end) + (end < line.length() ? "…" : "");
            StringBuilder caret = new StringBuilder();
            if (start > 0) {
                caret.append(' ');
            }
            for (int i = start; i < col - 1; i++) {
                caret.append(line.charAt(i) == '\t' ? '\t' : ' ');
            }
            out.println(" " + number + " | " + shown);
            out.println(" " + gutter + " | " + caret + style.severity(d.severity(), "^"));
        }
        if (d.hint() != null) {
            out.println(" = hint: " + d.hint());
        }
    }

    private static String location(Finding x) {
        return x.line() > 0 ? x.file() + ":" + x.line() + ":" + x.column() : x.file();
    }

    private static Map<String, Object> json(List<LintedFile> linted, int files, int policies, int rules, int errors,
            int warnings) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("files", files);
        m.put("policies", policies);
        m.put("rules", rules);
        m.put("errors", errors);
        m.put("warnings", warnings);
        List<Object> ds = new ArrayList<>();
        for (LintedFile f : linted) {
            for (Finding x : f.findings()) {
                Diagnostic d = x.diagnostic();
                Map<String, Object> j = new LinkedHashMap<>();
                j.put("file", x.file());
                j.put("pointer", x.pointer());
                j.put("line", x.line());
                j.put("column", x.column());
                j.put("severity", d.severity().wireName());
                j.put("code", d.code().id());
                j.put("message", d.message());
                j.put("hint", d.hint());
                if (d.line() > 0) {
                    // the position inside the condition (what validate reports), beside the file position
                    j.put("condition_line", d.line());
                    j.put("condition_column", d.column());
                }
                ds.add(j);
            }
        }
        m.put("diagnostics", ds);
        return m;
    }

    /**
     * A GitHub Actions workflow command: {@code ::error file=F,line=L,col=C::message}, escaped as the runner
     * expects ({@code %}, CR and LF everywhere; also {@code :} and {@code ,} in properties).
     */
    static String github(Finding x) {
        Diagnostic d = x.diagnostic();
        StringBuilder s = new StringBuilder("::").append(d.isError() ? "error" : "warning")
                .append(" file=").append(escapeProperty(x.file()));
        if (x.line() > 0) {
            s.append(",line=").append(x.line()).append(",col=").append(x.column());
        }
        String message = d.message() + (d.hint() == null ? "" : " (hint: " + d.hint() + ")") + " [" + d.code().id() + "]";
        return s.append("::").append(escapeData(message)).toString();
    }

    private static String escapeData(String s) {
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
    }

    private static String escapeProperty(String s) {
        return escapeData(s).replace(":", "%3A").replace(",", "%2C");
    }

    private static String quoted(List<Path> paths) {
        TreeSet<String> names = new TreeSet<>();
        paths.forEach(p -> names.add("`" + p + "`"));
        return String.join(", ", names);
    }
}

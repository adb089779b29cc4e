package dev.custody.cli.repl;

import dev.custody.engine.schema.Uuids;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.EngineObserver;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.compile.CompileResult;
import dev.custody.engine.compile.ConditionResult;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.format.DiagnosticFormatter;
import dev.custody.engine.text.Suggestions;
import dev.custody.engine.Decision;
import dev.custody.engine.TraceEntry;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.files.Finding;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.compile.CostMeter;
import dev.custody.engine.compile.ThreadClock;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The REPL itself, without any terminal: it takes one entry at a time (a command or a condition, possibly
 * spanning lines) and prints what it has to say on a {@link PrintWriter}. Both front-ends, the jline shell
 * and the piped-input reader, drive this class; tests drive it directly.
 *
 * <h2>What an entry is</h2>
 * An entry whose first non-blank character is {@code :} is a command ({@link Verb} lists them); a blank
 * entry or one starting with {@code #} (a comment, for scripts) does nothing; anything else is a condition,
 * compiled for the current trigger action ({@link RuleCompiler}), run against the current payload (checked by
 * {@link PayloadValidator}) and answered with {@code true}, {@code false}, the compiler's diagnostics with a
 * caret under the offending token, or the runtime error.
 *
 * <h2>Errors</h2>
 * {@link #execute} never throws: a mistake in an entry prints one line, {@code error: …} (diagnostics print
 * in the compiler's caret form), and comes back as {@link Status#ERROR}; anything unexpected is caught the
 * same way, so no entry can end the session. Everything, results and errors, goes to the one writer, so a
 * transcript reads in order.
 *
 * <h2>Time</h2>
 * {@code context.*} comes from the instant fixed with {@code :at} (or read from a loaded action's
 * {@code at}), else from the injected {@link Clock} at each evaluation ({@code :at now}, the default).
 *
 * <p>Not thread-safe: one session per user, driven from one thread.
 */
public final class Session {

    /** How an entry went. */
    public enum Status {
        /** Done (a condition that evaluated to false is done too). */
        OK,
        /** The entry had a problem, which was printed. */
        ERROR,
        /** The user asked to leave ({@code :quit}). */
        QUIT
    }

    private static final ObjectWriter PRETTY = JsonMapper.builder().build().writer(new DefaultPrettyPrinter()
            .withSeparators(Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER))
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n")));
    private static final ObjectWriter COMPACT = JsonMapper.builder().build().writer();

    private final PrintWriter out;
    private final Clock clock;
    private final Path workingDirectory;
    private final Duration timeBudget;
    private final long costLimit;
    private final RuleCompiler compiler;
    private final PolicyValidator validator;
    private final ActionDraft draft;

    private PolicyEngine engine;
    private boolean policiesValid;
    private List<PolicyDocument> policyDocuments = List.of();

    private Session(Builder b) {
        this.out = Objects.requireNonNull(b.out, "out");
        this.clock = b.clock;
        this.workingDirectory = b.workingDirectory.toAbsolutePath().normalize();
        this.timeBudget = b.timeBudget;
        this.costLimit = b.costLimit;
        this.compiler = b.compiler;
        this.validator = new PolicyValidator(compiler);
        this.draft = new ActionDraft(b.action);
    }

    /** A builder for a session printing on {@code out}. */
    public static Builder builder(PrintWriter out) {
        return new Builder(out);
    }

    /** The current trigger action. */
    public TriggerAction action() {
        return draft.action();
    }

    /** The directory relative paths ({@code :load}, {@code :policies}) are resolved against. */
    public Path workingDirectory() {
        return workingDirectory;
    }

    ActionDraft draft() {
        return draft;
    }

    /**
     * Runs one entry: a command, a condition, a comment or nothing. Never throws; the writer is flushed
     * before it returns.
     */
    public Status execute(String entry) {
        return guarded(() -> dispatch(entry == null ? "" : entry.strip()));
    }

    /** Runs {@code :load file} (the {@code --payload} option). */
    Status load(String file) {
        return guarded(() -> load(List.of(file)));
    }

    /** Runs {@code :policies paths} (the {@code --policies} option). */
    Status policies(List<String> paths) {
        return guarded(() -> loadPolicies(paths));
    }

    /** Runs {@code :at timestamp} (the {@code --at} option). */
    Status at(String timestamp) {
        return guarded(() -> at(List.of(timestamp)));
    }

    private interface Step {
        Status run();
    }

    private Status guarded(Step step) {
        try {
            return step.run();
        } catch (CommandError e) {
            line("error: " + e.getMessage());
            return Status.ERROR;
        } catch (RuntimeException | StackOverflowError | LinkageError e) {
            String message = e.getMessage() == null ? "" : ": " + e.getMessage().lines().findFirst().orElse("");
            line("error: internal error: " + e.getClass().getSimpleName() + message);
            return Status.ERROR;
        } finally {
            out.flush();
        }
    }

    private Status dispatch(String text) {
        if (text.isEmpty() || text.startsWith("#")) {
            return Status.OK;
        }
        if (!text.startsWith(":")) {
            return condition(text);
        }
        String name = LineSyntax.firstWord(text);
        String rest = text.substring(name.length()).strip();
        Verb verb = Verb.of(name).orElseThrow(() -> unknownCommand(name));
        List<String> args = LineSyntax.words(rest).stream().map(LineSyntax.Word::text).toList();
        return switch (verb) {
            case ACTION -> action(args);
            case LOAD -> load(args);
            case SET -> set(rest);
            case UNSET -> unset(args);
            case SHOW -> show(args);
            case AT -> at(args);
            case POLICIES -> args.isEmpty() ? listPolicies() : loadPolicies(args);
            case DECIDE -> decide(args);
            case ANALYZE -> analyze(args);
            case SCHEMA -> schema(args);
            case HELP -> help(args);
            case QUIT -> {
                noArguments(Verb.QUIT, args);
                yield Status.QUIT;
            }
        };
    }

    private static CommandError unknownCommand(String name) {
        String hint = Suggestions.closest(name, Verb.commands()).map(s -> " (did you mean `" + s + "`?)").orElse("");
        return new CommandError("unknown command `" + name + "`" + hint + "; `:help` lists the commands");
    }

    private static void noArguments(Verb verb, List<String> args) {
        if (!args.isEmpty()) {
            throw new CommandError("`" + verb.command() + "` takes no argument; got `" + String.join(" ", args) + "`");
        }
    }

    // ---------------------------------------------------------------- conditions

    private Status condition(String text) {
        CompileResult result = compiler.compile(draft.action(), text);
        for (Diagnostic d : result.diagnostics()) {
            out.print(DiagnosticFormatter.render(d, text));
        }
        if (!(result instanceof CompileResult.Success success)) {
            return Status.ERROR;
        }
        Instant now = now();
        PayloadResult checked = PayloadValidator.validate(draft.toAction(now), now);
        if (checked instanceof PayloadResult.Invalid invalid) {
            throw new CommandError("malformed payload: " + invalid.error());
        }
        Payload payload = ((PayloadResult.Valid) checked).payload();
        ConditionResult value = success.compiled().evaluate(payload, ThreadClock.now() + timeBudget.toNanos(),
                new CostMeter(costLimit));
        if (value instanceof ConditionResult.Value v) {
            line(String.valueOf(v.value()));
            return Status.OK;
        }
        throw new CommandError(((ConditionResult.Failure) value).message());
    }

    // ---------------------------------------------------------------- :action

    private Status action(List<String> args) {
        if (args.isEmpty()) {
            line("action: " + draft.action());
            return Status.OK;
        }
        if (args.size() > 1) {
            throw new CommandError("`:action` takes one action; got `" + String.join(" ", args) + "`");
        }
        draft.action(triggerAction(args.get(0)));
        line("action: " + draft.action());
        reportInapplicable();
        return Status.OK;
    }

    private static TriggerAction triggerAction(String name) {
        return TriggerAction.fromWireName(name).orElseThrow(() -> {
            List<String> names = actionNames();
            String hint = Suggestions.closest(name, names).map(s -> " (did you mean `" + s + "`?)").orElse("");
            return new CommandError("unknown action `" + name + "`" + hint + "; actions: " + String.join(", ", names));
        });
    }

    static List<String> actionNames() {
        List<String> names = new ArrayList<>();
        for (TriggerAction a : TriggerAction.values()) {
            names.add(a.wireName());
        }
        return names;
    }

    private void reportInapplicable() {
        List<String> stale = draft.inapplicable();
        if (!stale.isEmpty()) {
            line("fields that do not apply to " + draft.action() + " (kept): " + String.join(", ", stale));
        }
    }

    // ---------------------------------------------------------------- :load

    private Status load(List<String> args) {
        if (args.size() != 1) {
            throw new CommandError("`:load` takes one file; got " + (args.isEmpty() ? "none" : "`" + String.join(" ", args) + "`"));
        }
        Path file = resolve(args.get(0));
        String text = readText(file);
        ActionReader.Result read = ActionReader.read(text);
        if (read instanceof ActionReader.Malformed e) {
            throw new CommandError("`" + display(file) + "`: " + e.message());
        }
        if (!(read instanceof ActionReader.Read r)) {
            throw new CommandError("`" + display(file) + "`: a settlement record is not an action");
        }
        Action action = r.action();
        Action checkable = action.walletId() == null ? new Action(action.id(), action.action(),
                ActionDraft.DEFAULT_WALLET_ID, action.workspaceId(), action.at(), action.sections()) : action;
        PayloadResult checked = PayloadValidator.validate(checkable, Instant.EPOCH);
        if (checked instanceof PayloadResult.Invalid invalid) {
            throw new CommandError("`" + display(file) + "`: " + invalid.error());
        }
        Payload payload = ((PayloadResult.Valid) checked).payload();
        draft.action(action.action());
        draft.id(action.id());
        draft.walletId(action.walletId());
        draft.workspaceId(action.workspaceId());
        draft.clearFields();
        int count = 0;
        for (Map.Entry<String, Map<String, Object>> section : action.sections().entrySet()) {
            Section s = Section.fromWireName(section.getKey()).orElseThrow();
            for (FieldSpec f : FieldSchema.fields(s)) {
                Object raw = section.getValue() == null ? null : section.getValue().get(f.name());
                if (raw == null) {
                    continue;
                }
                // scalars as the engine converted them; a map as written, so :show keeps its key order
                Object value = f.type() == FieldType.MAP ? raw
                        : payload.sections().get(s.wireName()).get(f.name());
                draft.set(f, value);
                count++;
            }
        }
        if (action.at() != null) {
            draft.fixedAt(action.at());
        }
        String id = action.id() == null ? "" : " `" + action.id() + "`";
        line("loaded " + action.action() + " action" + id + " from `" + display(file) + "` (" + plural(count, "field")
                + ")");
        if (action.at() != null) {
            line(atLine());
        }
        return Status.OK;
    }

    private String readText(Path file) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (NoSuchFileException e) {
            throw new CommandError("`" + display(file) + "` does not exist");
        } catch (CharacterCodingException e) {
            throw new CommandError("`" + display(file) + "` is not UTF-8 text");
        } catch (FileSystemException e) {
            String reason = e.getReason() == null ? "" : ": " + e.getReason().toLowerCase(Locale.ROOT);
            throw new CommandError("cannot read `" + display(file) + "`" + reason);
        } catch (IOException e) {
            throw new CommandError("cannot read `" + display(file) + "`: " + e.getMessage());
        }
    }

    // ---------------------------------------------------------------- :set / :unset

    private static final List<String> TOP_LEVEL = List.of("id", "wallet_id", "workspace_id");

    private Status set(String rest) {
        String field = LineSyntax.firstWord(rest);
        String value = rest.substring(field.length()).strip();
        if (field.isEmpty() || value.isEmpty()) {
            throw new CommandError("`:set` needs a field and a value: `:set FIELD VALUE`");
        }
        switch (field) {
            case "id" -> {
                draft.id(FieldValues.string("id", value));
                line("id = " + json(draft.id()));
                return Status.OK;
            }
            case "workspace_id" -> {
                draft.workspaceId(FieldValues.string("workspace_id", value));
                line("workspace_id = " + json(draft.workspaceId()));
                return Status.OK;
            }
            case "wallet_id" -> {
                String wallet = FieldValues.string("wallet_id", value);
                if (!Uuids.isUuid(wallet)) {
                    throw new CommandError("`wallet_id` is a UUID; `" + value + "` is not");
                }
                draft.walletId(wallet);
                line("wallet_id = " + json(wallet));
                return Status.OK;
            }
            default -> {
            }
        }
        FieldSpec spec = field(field, false);
        Object typed = FieldValues.parse(spec, value);
        // the engine's own check has the last word (e.g. the depth and size limits of decoded_args)
        Action trial = Action.builder(draft.action()).walletId(ActionDraft.DEFAULT_WALLET_ID).field(spec.path(), typed)
                .build();
        if (PayloadValidator.validate(trial, Instant.EPOCH) instanceof PayloadResult.Invalid invalid) {
            throw new CommandError(invalid.error());
        }
        draft.set(spec, typed);
        line(spec.path() + " = " + json(typed));
        return Status.OK;
    }

    private Status unset(List<String> args) {
        if (args.size() != 1) {
            throw new CommandError("`:unset` takes one field; got " + (args.isEmpty() ? "none" : "`" + String.join(" ", args) + "`"));
        }
        String path = args.get(0);
        switch (path) {
            case "id" -> draft.id(null);
            case "workspace_id" -> draft.workspaceId(null);
            case "wallet_id" -> draft.walletId(null);
            default -> {
                FieldSpec spec = field(path, true);
                line(draft.unset(spec.path()) ? "unset " + spec.path() : spec.path() + " was not set");
                return Status.OK;
            }
        }
        line("unset " + path + (path.equals("wallet_id") ? " (back to " + ActionDraft.DEFAULT_WALLET_ID + ")" : ""));
        return Status.OK;
    }

    /**
     * The field at {@code path} for the current action. With {@code anyAction}, a field of the other action's
     * sections is accepted too (so {@code :unset} can clear fields kept from before a switch).
     */
    private FieldSpec field(String path, boolean anyAction) {
        Optional<FieldSpec> own = FieldSchema.field(draft.action(), path);
        if (own.isPresent()) {
            if (own.get().section() == Section.CONTEXT) {
                throw new CommandError("`" + path + "` is computed from the instant; set it with `:at TIMESTAMP`");
            }
            return own.get();
        }
        int dot = path.indexOf('.');
        Optional<Section> section = dot < 0 ? Optional.empty() : Section.fromWireName(path.substring(0, dot));
        Optional<FieldSpec> other = section.flatMap(s -> FieldSchema.field(s, path.substring(dot + 1)));
        if (other.isPresent()) {
            if (anyAction) {
                return other.get();
            }
            TriggerAction owner = FieldSchema.hasSection(TriggerAction.WITHDRAWAL_CREATE, other.get().section())
                    ? TriggerAction.WITHDRAWAL_CREATE : TriggerAction.WEB3_CONTRACT_CALL;
            throw new CommandError("`" + path + "` is not a field of " + draft.action() + " (switch with `:action "
                    + owner + "`)");
        }
        List<String> candidates = new ArrayList<>(TOP_LEVEL);
        for (FieldSpec f : FieldSchema.fields(draft.action())) {
            if (f.section() != Section.CONTEXT) {
                candidates.add(f.path());
            }
        }
        if (anyAction) {
            candidates.addAll(draft.setPaths());
        }
        String hint = Suggestions.closest(path, candidates).map(s -> " (did you mean `" + s + "`?)").orElse("");
        throw new CommandError("unknown field `" + path + "`" + hint + "; `:schema` lists the fields");
    }

    // ---------------------------------------------------------------- :show / :at

    private Status show(List<String> args) {
        noArguments(Verb.SHOW, args);
        line("action: " + draft.action());
        line(atLine());
        try {
            line(PRETTY.writeValueAsString(draft.toJsonTree()));
        } catch (JsonProcessingException e) {
            throw new CommandError("payload cannot be shown as JSON: " + e.getOriginalMessage());
        }
        reportInapplicable();
        return Status.OK;
    }

    private Status at(List<String> args) {
        if (args.size() > 1) {
            throw new CommandError("`:at` takes one timestamp; got `" + String.join(" ", args) + "`");
        }
        if (!args.isEmpty()) {
            String text = args.get(0);
            if (text.equals("now")) {
                draft.fixedAt(null);
            } else {
                try {
                    draft.fixedAt(Instant.parse(text));
                } catch (DateTimeException e) {
                    throw new CommandError("`" + text + "` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z` (or `now`)");
                }
            }
        }
        line(atLine());
        return Status.OK;
    }

    /** {@code at: 2026-11-03T14:05:00Z (context.hour == 14, context.day_of_week == "Tuesday")}. */
    private String atLine() {
        Instant instant = now();
        ZonedDateTime utc = instant.atZone(ZoneOffset.UTC);
        String context = "context.hour == " + utc.getHour() + ", context.day_of_week == \""
                + FieldSchema.DAYS_OF_WEEK.get(utc.getDayOfWeek().getValue() - 1) + "\"";
        return draft.fixedAt().isPresent() ? "at: " + instant + " (" + context + ")"
                : "at: now, " + instant.truncatedTo(ChronoUnit.SECONDS) + " (" + context + ")";
    }

    // ---------------------------------------------------------------- :policies / :decide

    private Status loadPolicies(List<String> args) {
        List<Path> paths = args.stream().map(this::resolve).toList();
        List<PolicyDocument> documents;
        try {
            documents = PolicyFiles.read(paths);
        } catch (NoSuchFileException e) {
            throw new CommandError("`" + display(Path.of(e.getFile())) + "` does not exist");
        } catch (FileSystemException e) {
            String reason = e.getReason() == null ? "" : ": " + e.getReason().toLowerCase(Locale.ROOT);
            throw new CommandError("cannot read `" + display(Path.of(e.getFile())) + "`" + reason);
        } catch (IOException e) {
            throw new CommandError("cannot read the policies: " + String.valueOf(e.getMessage())
                    .replace(workingDirectory + File.separator, ""));
        }
        if (documents.isEmpty()) {
            throw new CommandError("no policy file (.json, .yaml, .yml) under `" + String.join("`, `", args) + "`");
        }
        List<Finding> findings = new ArrayList<>();
        boolean errors = false;
        for (PolicyDocument doc : documents) {
            for (Finding f : doc.validate(validator)) {
                findings.add(f);
                errors |= f.diagnostic().isError();
                Finding shown = new Finding(display(Path.of(f.file())), f.pointer(), f.line(), f.column(), f.diagnostic());
                String hint = f.diagnostic().hint() == null ? "" : " (hint: " + f.diagnostic().hint() + ")";
                line(shown.oneLine() + hint);
            }
        }
        // :decide decides through the engine a service embeds, over these documents
        List<BundleError> compileErrors = new ArrayList<>();
        String[] loadError = {null};
        PolicyEngine built = PolicyEngine.builder(FilePolicySource.of(documents)::policies)
                .timeBudget(timeBudget)
                .costLimit(costLimit)
                .invalidBundleRetry(Duration.ofDays(1))
                .observer(new EngineObserver() {
                    @Override
                    public void bundleLoaded(String workspaceId, List<BundleError> errors) {
                        compileErrors.addAll(errors);
                    }

                    @Override
                    public void loadFailed(String workspaceId, String message) {
                        loadError[0] = message;
                    }
                })
                .build();
        built.preload(draft.toAction(now()));
        if (loadError[0] != null) {
            line("error: " + loadError[0].replace(workingDirectory + File.separator, ""));
        }
        for (BundleError e : compileErrors) {
            if (findings.stream().noneMatch(f -> f.diagnostic().equals(e.diagnostic()))) {
                line("error: " + e.describe());
            }
        }
        this.engine = built;
        this.policyDocuments = List.copyOf(documents);
        this.policiesValid = loadError[0] == null && compileErrors.isEmpty();
        if (!policiesValid) {
            line("error: the policies do not compile: `:decide` denies every action (fail-closed) until they are fixed");
            return Status.ERROR;
        }
        int active = 0;
        int enabled = 0;
        for (PolicyDocument doc : documents) {
            for (SourcedPolicy sp : doc.policies()) {
                if (sp.policy().effectiveStatus().orElse(null) == PolicyStatus.ACTIVE) {
                    active++;
                    enabled += (int) sp.policy().rules().stream().filter(Rule::enabled).count();
                }
            }
        }
        line("loaded " + plural(documents.size(), "file") + ": " + plural(active, "active policy",
                "active policies") + ", " + plural(enabled, "enabled rule"));
        return errors ? Status.ERROR : Status.OK;
    }

    private Status listPolicies() {
        if (engine == null) {
            line("no policies loaded; load them with `:policies PATH...`");
            return Status.OK;
        }
        for (PolicyDocument doc : policyDocuments) {
            line(display(Path.of(doc.file())));
            for (SourcedPolicy sp : doc.policies()) {
                String status = sp.policy().status() == null ? "active" : sp.policy().status();
                line("  " + sp.policy().id() + ": " + status + ", " + plural(sp.policy().rules().size(), "rule"));
            }
        }
        if (!policiesValid) {
            line("the policies do not compile: `:decide` denies every action (fail-closed)");
        }
        return Status.OK;
    }

    /** {@code :analyze [A]}: {@code custody analyze} over the loaded policies, in its text form. */
    private Status analyze(List<String> args) {
        if (args.size() > 1) {
            throw new CommandError("`:analyze` takes at most one trigger action; got `" + String.join(" ", args) + "`");
        }
        if (engine == null) {
            throw new CommandError("no policies loaded; load them with `:policies PATH...`");
        }
        java.util.Optional<TriggerAction> only = java.util.Optional.empty();
        if (!args.isEmpty()) {
            only = java.util.Optional.of(TriggerAction.fromWireName(args.get(0)).orElseThrow(() -> new CommandError(
                    "unknown trigger action `" + args.get(0) + "`; trigger actions: withdrawal.create, "
                            + "web3.contract_call")));
        }
        dev.custody.analysis.PolicySet set = dev.custody.analysis.PolicySet.of(policyDocuments, compiler);
        set.problems().forEach(p -> line("error: " + p));
        dev.custody.analysis.AnalysisReport report = new dev.custody.analysis.PolicyAnalyzer(
                dev.custody.analysis.PolicyAnalyzer.DEFAULT_TIMEOUT_MS).analyze(set, only);
        dev.custody.cli.command.AnalyzeCommand.printText(report, out);
        out.flush();
        return report.hasErrors() || !set.problems().isEmpty() ? Status.ERROR : Status.OK;
    }

    private Status decide(List<String> args) {
        boolean explain = false;
        for (String a : args) {
            if (!a.equals("--explain")) {
                throw new CommandError("`:decide` takes only `--explain`; got `" + a + "`");
            }
            explain = true;
        }
        if (engine == null) {
            throw new CommandError("no policies loaded; load them with `:policies PATH...`");
        }
        Decision d = engine.evaluate(draft.toAction(now()), explain);
        line(d.outcome() + (d.failClosed() ? " (fail-closed)" : ""));
        if (d.ruleId() != null) {
            line("  rule_id: " + d.ruleId());
        }
        if (d.policyId() != null) {
            line("  policy_id: " + d.policyId());
        }
        if (d.reason() != null) {
            line("  reason: " + d.reason());
        }
        if (d.error() != null) {
            line("  error: " + d.error());
        }
        if (explain) {
            if (d.trace().isEmpty()) {
                line("  trace: no rule was evaluated");
            } else {
                line("  trace:");
                for (TraceEntry t : d.trace()) {
                    String result = switch (t.result()) {
                        case TRUE -> "true";
                        case FALSE -> "false";
                        case ERROR -> "error: " + t.error();
                    };
                    line("    " + t.ruleId() + " (" + t.effect() + "): " + result);
                }
            }
        }
        return Status.OK;
    }

    // ---------------------------------------------------------------- :schema / :help

    private Status schema(List<String> args) {
        if (args.size() > 1) {
            throw new CommandError("`:schema` takes one section or action; got `" + String.join(" ", args) + "`");
        }
        if (args.isEmpty()) {
            printFields(draft.action() + " fields:", FieldSchema.fields(draft.action()));
            return Status.OK;
        }
        String name = args.get(0);
        Optional<TriggerAction> action = TriggerAction.fromWireName(name);
        if (action.isPresent()) {
            printFields(action.get() + " fields:", FieldSchema.fields(action.get()));
            return Status.OK;
        }
        Optional<Section> section = Section.fromWireName(name);
        if (section.isPresent()) {
            String note = FieldSchema.hasSection(draft.action(), section.get()) ? ""
                    : " (not part of " + draft.action() + ")";
            printFields(section.get().wireName() + " fields" + note + ":", FieldSchema.fields(section.get()));
            return Status.OK;
        }
        List<String> names = new ArrayList<>();
        for (Section s : Section.values()) {
            names.add(s.wireName());
        }
        names.addAll(actionNames());
        String hint = Suggestions.closest(name, names).map(s -> " (did you mean `" + s + "`?)").orElse("");
        throw new CommandError("unknown section or action `" + name + "`" + hint + "; sections: "
                + String.join(", ", names.subList(0, Section.values().length)));
    }

    private void printFields(String title, List<FieldSpec> fields) {
        line(title);
        int width = fields.stream().mapToInt(f -> f.path().length()).max().orElse(0);
        for (FieldSpec f : fields) {
            StringBuilder s = new StringBuilder("  ").append(f.path()).append(" ".repeat(width - f.path().length() + 2))
                    .append(f.type().wireName()).append(" ".repeat(9 - f.type().wireName().length()))
                    .append(f.description());
            if (f.optional()) {
                s.append("; optional");
            }
            if (!f.enumValues().isEmpty()) {
                s.append("; one of ").append(String.join(", ", f.enumValues()));
            }
            line(s.toString());
        }
    }

    private Status help(List<String> args) {
        noArguments(Verb.HELP, args);
        line("commands:");
        int width = 0;
        for (Verb v : Verb.values()) {
            width = Math.max(width, usage(v).length());
        }
        for (Verb v : Verb.values()) {
            String u = usage(v);
            line("  " + u + " ".repeat(width - u.length() + 2) + v.description());
        }
        line("any other line is a condition, evaluated against the payload: prints true, false or the error");
        line("lines starting with # are comments; open brackets and quotes continue on the next line");
        return Status.OK;
    }

    private static String usage(Verb v) {
        return v.synopsis().isEmpty() ? v.command() : v.command() + " " + v.synopsis();
    }

    // ---------------------------------------------------------------- helpers

    /** The evaluation instant: the fixed one, else the clock's (read only when needed). */
    private Instant now() {
        return draft.fixedAt().orElseGet(clock::instant);
    }

    private Path resolve(String path) {
        return workingDirectory.resolve(path).normalize();
    }

    /** A path as the user would type it: relative to the working directory when it is inside it. */
    private String display(Path path) {
        Path p = path.toAbsolutePath().normalize();
        return p.startsWith(workingDirectory) && !p.equals(workingDirectory) ? workingDirectory.relativize(p).toString()
                : path.toString();
    }

    private static String json(Object value) {
        try {
            return COMPACT.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            return String.valueOf(value);
        }
    }

    private static String plural(int n, String one) {
        return plural(n, one, one + "s");
    }

    private static String plural(int n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    private void line(String s) {
        out.print(s);
        out.print('\n');
    }

    /** Builds a {@link Session}. Not thread-safe. */
    public static final class Builder {
        private final PrintWriter out;
        private TriggerAction action = TriggerAction.WITHDRAWAL_CREATE;
        private Clock clock = Clock.systemUTC();
        private Path workingDirectory = Path.of("");
        private Duration timeBudget = PolicyEngine.DEFAULT_TIME_BUDGET;
        private long costLimit = CostMeter.DEFAULT_LIMIT;
        private RuleCompiler compiler;

        private Builder(PrintWriter out) {
            this.out = Objects.requireNonNull(out, "out");
        }

        /** The trigger action the session starts with (default {@code withdrawal.create}). */
        public Builder action(TriggerAction initial) {
            this.action = Objects.requireNonNull(initial, "action");
            return this;
        }

        /** The clock behind {@code context.*} while no instant is fixed (default: the system UTC clock). */
        public Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        /** The directory relative paths are resolved against (default: the process's working directory). */
        public Builder workingDirectory(Path dir) {
            this.workingDirectory = Objects.requireNonNull(dir, "workingDirectory");
            return this;
        }

        /** The cost limit of one evaluation (default {@link CostMeter#DEFAULT_LIMIT}); must be positive. */
        public Builder costLimit(long limit) {
            this.costLimit = CostMeter.checkLimit(limit);
            return this;
        }

        /** The wall-clock backstop of one evaluation (default {@link PolicyEngine#DEFAULT_TIME_BUDGET}); must be positive. */
        public Builder timeBudget(Duration budget) {
            Objects.requireNonNull(budget, "timeBudget");
            if (budget.isNegative() || budget.isZero()) {
                throw new IllegalArgumentException("time budget must be positive, got " + budget);
            }
            this.timeBudget = budget;
            return this;
        }

        /** The compiler for conditions and policies (default {@link RuleCompiler#shared()}, the one the engine uses). */
        public Builder compiler(RuleCompiler c) {
            this.compiler = Objects.requireNonNull(c, "compiler");
            return this;
        }

        public Session build() {
            if (compiler == null) {
                compiler = RuleCompiler.shared();
            }
            return new Session(this);
        }
    }
}

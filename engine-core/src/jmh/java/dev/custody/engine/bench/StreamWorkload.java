package dev.custody.engine.bench;

import com.google.common.collect.ImmutableMap;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelBuilder;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelOptions;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.PolicySource;
import dev.custody.engine.Decision;
import dev.custody.engine.Outcome;
import dev.custody.engine.payload.Action;
import dev.custody.engine.compile.RuleCompiler;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.selection.RuleSelection;
import dev.custody.engine.selection.SelectedRule;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The realistic workload of issue 11: the example policy repository ({@code examples/policies}: 7 policies, 20
 * kept rules of both effects for withdrawals and contract calls, wallet targeting, a workspace-scoped policy, a
 * pending one and a disabled rule) and an action stream written by the examples' {@code ActionStreamGenerator}
 * (20,000 distinct actions of both kinds, about 810 bytes per line, full velocity sections, settlement records in
 * between), decided by three engines that must agree on every action:
 * <ul>
 *   <li>{@code engine}: {@link PolicyEngine#evaluate(Action, boolean)} on a {@link FilePolicySource}, as
 *       {@code custody bench} and a service decide (cache lookup, payload check, budgets, attribution);
 *   <li>{@code rawCel}: the same rules on plain cel-java, every section a {@code map(string, dyn)} variable,
 *       {@code program.eval(Map)} per kept rule, the selection and DENY over ALLOW coded by hand;
 *   <li>{@code handWritten}: the same rules as Java predicates over the action's section maps.
 * </ul>
 * The files are read with the project's own readers ({@link FilePolicySource}, {@link ActionStream}), as
 * {@code custody bench --policies examples/policies --actions FILE} reads them. Paths come from the system
 * properties {@code workload.policies} (default {@code examples/policies}) and {@code workload.actions} (default
 * {@code /tmp/stream-20k.jsonl}); make the stream with
 * <pre>
 * ./mvnw -B -q -pl examples -am package -DskipTests
 * java -cp examples/target/classes dev.custody.examples.ActionStreamGenerator --count 20000 --out /tmp/stream-20k.jsonl
 * </pre>
 */
final class StreamWorkload {
    final Action[] actions;
    final PolicyEngine engine;
    final RawCel rawCel;
    final HandWritten handWritten;

    private StreamWorkload(Action[] actions, PolicyEngine engine, RawCel rawCel, HandWritten handWritten) {
        this.actions = actions;
        this.engine = engine;
        this.rawCel = rawCel;
        this.handWritten = handWritten;
    }

    /** Reads the files, builds the three engines and checks that they agree on every action. */
    static StreamWorkload load() throws Exception {
        Path policies = Path.of(System.getProperty("workload.policies", "examples/policies"));
        Path stream = Path.of(System.getProperty("workload.actions", "/tmp/stream-20k.jsonl"));
        if (!Files.isRegularFile(stream)) {
            throw new IllegalStateException("no action stream at " + stream + ": see StreamWorkload's Javadoc");
        }
        FilePolicySource source = FilePolicySource.read(List.of(policies));
        List<Action> read = new ArrayList<>();
        try (ActionStream in = new ActionStream(Files.newBufferedReader(stream, StandardCharsets.UTF_8))) {
            ActionStream.Line line;
            while ((line = in.next()) != null) {
                if (line instanceof ActionStream.ActionLine a) {
                    read.add(a.action());
                }
            }
        }
        Action[] actions = read.toArray(new Action[0]);
        PolicyEngine engine = PolicyEngine.builder(source).build();
        Map<String, List<Policy>> byWorkspace = new HashMap<>();
        for (Action a : actions) {
            String key = workspace(a);
            if (!byWorkspace.containsKey(key)) {
                byWorkspace.put(key, source.policies(key));
            }
        }
        StreamWorkload w = new StreamWorkload(actions, engine, new RawCel(byWorkspace), new HandWritten(byWorkspace));
        w.checkAgreement();
        return w;
    }

    /** The cache key the engine decides an action under (docs/design.md §2.1). */
    static String workspace(Action a) {
        return a.workspaceId() == null || a.workspaceId().isBlank() ? PolicySource.NO_WORKSPACE
                : a.workspaceId().strip().toLowerCase(Locale.ROOT);
    }

    private void checkAgreement() {
        Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
        for (Action a : actions) {
            Decision d = engine.evaluate(a, false);
            Verdict ours = new Verdict(d.outcome(), d.ruleId(), d.failClosed());
            Verdict raw = rawCel.decide(a);
            Verdict hand = handWritten.decide(a);
            if (!ours.equals(raw) || !ours.equals(hand)) {
                throw new IllegalStateException("engines disagree on " + a.id() + ": engine " + ours + ", raw cel-java "
                        + raw + ", hand-written " + hand);
            }
            outcomes.merge(d.outcome(), 1, Integer::sum);
        }
        System.err.println("workload: " + actions.length + " actions, the three engines agree on each: " + outcomes);
    }

    /** One kept rule of the comparison engines: its policy's wallets and, by trigger and effect, its place. */
    private record Kept<T>(String ruleId, Set<String> wallets, T condition) {
        boolean targets(String wallet) {
            return wallets.isEmpty() || wallets.contains(wallet);
        }
    }

    /** The kept rules of one workspace, by trigger, DENY and ALLOW apart, in declaration order. */
    private record Selection<T>(Map<TriggerAction, List<Kept<T>>> deny, Map<TriggerAction, List<Kept<T>>> allow) {}

    private interface Translator<T> {
        T translate(Rule rule, TriggerAction trigger) throws Exception;
    }

    /** The rules of each workspace as engine-core's {@link RuleSelection} selects them, translated. */
    private static <T> Map<String, Selection<T>> select(Map<String, List<Policy>> byWorkspace, Translator<T> translator)
            throws Exception {
        PolicyValidator validator = new PolicyValidator(RuleCompiler.create());
        Map<String, Selection<T>> out = new HashMap<>();
        for (Map.Entry<String, List<Policy>> e : byWorkspace.entrySet()) {
            Map<TriggerAction, List<Kept<T>>> deny = new EnumMap<>(TriggerAction.class);
            Map<TriggerAction, List<Kept<T>>> allow = new EnumMap<>(TriggerAction.class);
            RuleSelection selection = RuleSelection.of(e.getValue(), validator);
            if (!selection.valid()) {
                throw new IllegalStateException("the workload's policies do not compile: " + selection.errors());
            }
            for (SelectedRule r : selection.rules()) {
                Rule rule = e.getValue().get(r.policyIndex()).rules().get(r.ruleIndex());
                Kept<T> kept = new Kept<>(r.ruleId(), r.walletIds(), translator.translate(rule, r.action()));
                (r.effect() == Effect.DENY ? deny : allow).computeIfAbsent(r.action(), t -> new ArrayList<>())
                        .add(kept);
            }
            out.put(e.getKey(), new Selection<>(deny, allow));
        }
        return out;
    }

    /** What a rule gave: true, false, or a failure (null). */
    private interface Runner<T> {
        Boolean run(T condition);
    }

    /** docs/design.md §3: DENY rules in order, a failure denies unless a DENY rule is true; then ALLOW rules. */
    private static <T> Verdict decide(Selection<T> s, TriggerAction trigger, String wallet, Runner<T> runner) {
        String firstFailed = null;
        for (Kept<T> r : s.deny().getOrDefault(trigger, List.of())) {
            if (!r.targets(wallet)) {
                continue;
            }
            Boolean b = runner.run(r.condition());
            if (b == null) {
                firstFailed = firstFailed == null ? r.ruleId() : firstFailed;
            } else if (b) {
                return new Verdict(Outcome.DENY, r.ruleId(), false);
            }
        }
        if (firstFailed != null) {
            return new Verdict(Outcome.DENY, firstFailed, true);
        }
        String firstTrue = null;
        for (Kept<T> r : s.allow().getOrDefault(trigger, List.of())) {
            if (!r.targets(wallet)) {
                continue;
            }
            Boolean b = runner.run(r.condition());
            if (b == null) {
                return new Verdict(Outcome.DENY, r.ruleId(), true);
            }
            if (b && firstTrue == null) {
                firstTrue = r.ruleId();
            }
        }
        return firstTrue != null ? new Verdict(Outcome.ALLOW, firstTrue, false) : Verdict.NO_MATCH;
    }

    /** The rules on plain cel-java: no payload check, no budget, no messages. */
    static final class RawCel {
        private final Map<String, Selection<CelRuntime.Program>> selections;

        RawCel(Map<String, List<Policy>> byWorkspace) throws Exception {
            Map<TriggerAction, Cel> envs = new EnumMap<>(TriggerAction.class);
            for (TriggerAction t : TriggerAction.values()) {
                CelBuilder b = CelFactory.standardCelBuilder()
                        .setOptions(CelOptions.current().enableHeterogeneousNumericComparisons(true).build())
                        .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                        .setResultType(SimpleType.BOOL);
                for (Section s : FieldSchema.sections(t)) {
                    b.addVar(s.wireName(), MapType.create(SimpleType.STRING, SimpleType.DYN));
                }
                envs.put(t, b.build());
            }
            this.selections = select(byWorkspace, (rule, trigger) -> {
                Cel cel = envs.get(trigger);
                return cel.createProgram(cel.compile(rule.condition()).getAst());
            });
        }

        /** Activations built once per action, as the engine checks an action once and the hand-written reads maps. */
        private final Map<Action, Map<String, Object>> activations = new java.util.IdentityHashMap<>();

        Verdict decide(Action a) {
            Map<String, Object> vars = activations.computeIfAbsent(a, RawCel::activation);
            return StreamWorkload.decide(selections.get(workspace(a)), a.action(), a.walletId().toLowerCase(Locale.ROOT),
                    program -> {
                        try {
                            return program.eval(vars) instanceof Boolean b ? b : null;
                        } catch (CelEvaluationException e) {
                            return null;
                        }
                    });
        }

        /**
         * The sections with numbers in CEL's types (JSON's small integers arrive as {@code Integer}, which cel-java's
         * operators do not take), plus {@code context}; an immutable map, which cel-java does not copy.
         */
        static Map<String, Object> activation(Action action) {
            ZonedDateTime utc = action.at().atZone(ZoneOffset.UTC);
            ImmutableMap.Builder<String, Object> vars = ImmutableMap.builderWithExpectedSize(6);
            action.sections().forEach((k, v) -> vars.put(k, celValue(v)));
            for (Section s : FieldSchema.sections(action.action())) {
                if (s != Section.CONTEXT && !action.sections().containsKey(s.wireName())) {
                    vars.put(s.wireName(), Map.of());
                }
            }
            vars.put("context", ImmutableMap.of("hour", (long) utc.getHour(),
                    "day_of_week", FieldSchema.DAYS_OF_WEEK.get(utc.getDayOfWeek().getValue() - 1)));
            return vars.buildOrThrow();
        }

        private static Object celValue(Object v) {
            if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
                return ((Number) v).longValue();
            }
            if (v instanceof Float f) {
                return f.doubleValue();
            }
            if (v instanceof Map<?, ?> m) {
                ImmutableMap.Builder<String, Object> out = ImmutableMap.builderWithExpectedSize(m.size());
                m.forEach((k, x) -> {
                    if (x != null) {
                        out.put((String) k, celValue(x));
                    }
                });
                return out.buildOrThrow();
            }
            if (v instanceof List<?> l) {
                return l.stream().map(RawCel::celValue).toList();
            }
            return v;
        }
    }

    /** The rules as Java predicates over the action's sections; a read of an absent field throws (the rule fails). */
    static final class HandWritten {
        private static final String W = "withdrawal";
        private static final String R = "resource";
        private static final Set<String> STABLES = Set.of("USDC", "USDT");
        private static final Set<String> TOKENS = Set.of("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
                "0xdac17f958d2ee523a2206206994597c13d831ec7", "0x6b175474e89094c44da98b954eedeac495271d0f");
        private static final Set<String> CALLERS = Set.of("owner", "admin", "signer");
        private static final String UNLIMITED =
                "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        private static final Map<String, Predicate<HandWrittenEngine.Fields>> RULES = Map.ofEntries(
                Map.entry("unlisted-destination", f -> !f.bool(W, "is_whitelisted") && f.num(W, "value_usd") > 10000),
                Map.entry("fresh-entry-cooldown", f -> f.bool(W, "is_whitelisted") && f.num(W, "address_age_sec") < 86400
                        && f.num(W, "value_usd") > 5000),
                Map.entry("routine-payout", f -> f.bool(W, "is_whitelisted") && f.num(W, "address_age_sec") >= 604800
                        && f.num(W, "value_usd") <= 2000 && STABLES.contains(f.str(W, "asset_symbol"))),
                Map.entry("contract-not-allowlisted", f -> !TOKENS.contains(f.str(R, "contract_address"))),
                Map.entry("unlimited-approval", f -> f.str(R, "method_selector").equals("0x095ea7b3")
                        && f.args().get("value") != null && UNLIMITED.equals(f.args().get("value"))),
                Map.entry("ether-with-token-call", f -> !f.str(R, "value_wei").equals("0")),
                Map.entry("transfer-to-treasury", f -> f.str(R, "method_selector").equals("0xa9059cbb")
                        && f.args().get("to") != null && "0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c".equals(f.args().get("to"))),
                Map.entry("night-large-withdrawal", f -> (f.hour >= 22 || f.hour < 6) && f.num(W, "value_usd") > 25000),
                Map.entry("weekend-large-withdrawal", f -> f.weekend() && f.num(W, "value_usd") > 50000),
                Map.entry("weekend-contract-value", f -> f.weekend() && !f.str(R, "value_wei").equals("0")),
                Map.entry("read-only-roles", f -> {
                    String role = f.str("principal", "role");
                    return role.equals("viewer") || role.equals("guest");
                }),
                Map.entry("proposer-ceiling", f -> f.str("principal", "role").equals("proposer") && f.num(W, "value_usd") > 5000),
                Map.entry("signer-ceiling", f -> f.str("principal", "role").equals("signer") && f.num(W, "value_usd") > 100000),
                Map.entry("contract-call-roles", f -> !CALLERS.contains(f.str("principal", "role"))),
                Map.entry("company-accounts-only", f -> f.has("principal", "user_email")
                        && !f.str("principal", "user_email").endsWith("@example.com")),
                Map.entry("treasury-single-cap", f -> f.num(W, "value_usd") > 250000),
                Map.entry("treasury-daily-cap", f -> f.has("wallet", "outflow_24h")
                        && f.num("wallet", "outflow_24h") + f.num(W, "value_usd") > 1000000),
                Map.entry("treasury-stablecoins-only", f -> f.num(W, "value_usd") > 50000
                        && !STABLES.contains(f.str(W, "asset_symbol"))),
                Map.entry("wallet-burst", f -> f.has("wallet", "withdrawal_count_1h")
                        && f.integer("wallet", "withdrawal_count_1h") >= 12),
                Map.entry("network-daily-outflow", f -> f.has("workspace", "network_outflow_24h")
                        && f.num("workspace", "network_outflow_24h") + f.num(W, "value_usd") > 2500000));

        private final Map<String, Selection<Predicate<HandWrittenEngine.Fields>>> selections;

        HandWritten(Map<String, List<Policy>> byWorkspace) throws Exception {
            this.selections = select(byWorkspace, (rule, trigger) -> Objects.requireNonNull(RULES.get(rule.ruleId()),
                    () -> "no hand-written form of rule `" + rule.ruleId() + "`"));
        }

        Verdict decide(Action a) {
            HandWrittenEngine.Fields f = new HandWrittenEngine.Fields(a);
            return StreamWorkload.decide(selections.get(workspace(a)), a.action(), a.walletId().toLowerCase(Locale.ROOT),
                    p -> {
                        try {
                            return p.test(f);
                        } catch (RuntimeException e) {
                            return null;
                        }
                    });
        }
    }
}

package dev.custody.engine.bench;

import com.google.common.collect.ImmutableMap;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelBuilder;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.custody.engine.Outcome;
import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The baseline: the same rules in a plain cel-java environment where every section is a
 * {@code map(string, dyn)} variable, each rule a program run with {@code program.eval(Map)}, and docs/design.md §3.8
 * coded by hand around them (kept rules in declaration order, DENY over ALLOW, errors fail closed). No
 * payload check, no time budget, no error messages: what a team would write directly on cel-java.
 */
final class RawCelEngine {
    private record RawRule(String ruleId, Set<String> wallets, CelRuntime.Program program) {
        boolean targets(String wallet) {
            return wallets.isEmpty() || wallets.contains(wallet);
        }
    }

    private final List<RawRule> deny = new ArrayList<>();
    private final List<RawRule> allow = new ArrayList<>();

    RawCelEngine(List<Realistic.PolicySpec> policies) throws CelValidationException, CelEvaluationException {
        CelBuilder b = CelFactory.standardCelBuilder()
                .setOptions(CelOptions.current().enableHeterogeneousNumericComparisons(true).build())
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                .setResultType(SimpleType.BOOL);
        for (Section s : FieldSchema.sections(TriggerAction.WITHDRAWAL_CREATE)) {
            b.addVar(s.wireName(), MapType.create(SimpleType.STRING, SimpleType.DYN));
        }
        Cel cel = b.build();
        for (Realistic.PolicySpec p : policies) {
            Set<String> wallets = Set.copyOf(p.wallets().stream().map(w -> w.toLowerCase(Locale.ROOT)).toList());
            for (Realistic.RuleSpec r : p.rules()) {
                if (!r.trigger().equals(TriggerAction.WITHDRAWAL_CREATE.wireName())) {
                    continue;
                }
                CelRuntime.Program program = cel.createProgram(cel.compile(r.condition()).getAst());
                (r.effect().equals("DENY") ? deny : allow).add(new RawRule(r.id(), wallets, program));
            }
        }
    }

    Verdict decide(Action action) {
        Map<String, Object> vars = activation(action);
        String wallet = action.walletId().toLowerCase(Locale.ROOT);
        String firstFailed = null;
        for (RawRule r : deny) {
            if (!r.targets(wallet)) {
                continue;
            }
            Boolean b = run(r, vars);
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
        for (RawRule r : allow) {
            if (!r.targets(wallet)) {
                continue;
            }
            Boolean b = run(r, vars);
            if (b == null) {
                return new Verdict(Outcome.DENY, r.ruleId(), true);
            }
            if (b && firstTrue == null) {
                firstTrue = r.ruleId();
            }
        }
        return firstTrue != null ? new Verdict(Outcome.ALLOW, firstTrue, false) : Verdict.NO_MATCH;
    }

    private static Boolean run(RawRule r, Map<String, Object> vars) {
        try {
            return r.program().eval(vars) instanceof Boolean b ? b : null;
        } catch (CelEvaluationException e) {
            return null;
        }
    }

    /** The sections as given, plus {@code context} from the action's instant (an immutable map: cel-java does not copy it). */
    static Map<String, Object> activation(Action action) {
        ZonedDateTime utc = action.at().atZone(ZoneOffset.UTC);
        ImmutableMap.Builder<String, Object> vars = ImmutableMap.builderWithExpectedSize(6);
        action.sections().forEach(vars::put);
        vars.put("context", ImmutableMap.of("hour", (long) utc.getHour(),
                "day_of_week", FieldSchema.DAYS_OF_WEEK.get(utc.getDayOfWeek().getValue() - 1)));
        return vars.buildOrThrow();
    }
}

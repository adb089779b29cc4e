package dev.custody.engine.internal.bundle;

import dev.custody.engine.policy.BundleError;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.selection.RuleSelection;
import dev.custody.engine.selection.SelectedRule;
import dev.custody.engine.validate.PolicyValidation;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The compiled policies of one workspace: what the evaluator runs and what the cache holds.
 *
 * <p>Built from the workspace's policies in declaration order. Only {@code active} policies count
 * (a policy without a status is active; pending, inactive and rejected ones are skipped whatever they
 * contain); of those, only enabled rules are compiled. Rules are indexed by trigger action and effect, in
 * declaration order (policy order, then rule position), each bound to its policy's wallet targeting.
 *
 * <p><b>Fail-closed.</b> If an active policy has any error (an enabled rule that does not compile, an
 * invalid trigger action or effect, a non-UUID wallet id, an unknown status, a duplicate policy id, …) the
 * bundle is <em>invalid</em>: it holds the errors and no rules, and the evaluator denies every action with
 * {@code fail_closed}. Disabled rules are never compiled and cannot make a bundle invalid.
 *
 * <p>Immutable and thread-safe.
 */
public final class PolicyBundle {
    private final Map<TriggerAction, List<BoundRule>> deny;
    private final Map<TriggerAction, List<BoundRule>> allow;
    private final List<BundleError> errors;
    private final int policyCount;
    private final int ruleCount;
    private final String revision;

    private PolicyBundle(Map<TriggerAction, List<BoundRule>> deny, Map<TriggerAction, List<BoundRule>> allow,
            List<BundleError> errors, int policyCount, int ruleCount, String revision) {
        this.revision = revision;
        this.deny = deny;
        this.allow = allow;
        this.errors = List.copyOf(errors);
        this.policyCount = policyCount;
        this.ruleCount = ruleCount;
    }

    /**
     * Compiles policies into a bundle: the rules of their {@link RuleSelection}. Never throws for invalid
     * policies: they make the bundle invalid. A policy without an id gets {@code #<position>} as its id; a rule
     * without an id gets {@code <policy id>#<index>}.
     */
    public static PolicyBundle compile(List<Policy> policies, PolicyValidator validator) {
        RuleSelection selection = RuleSelection.of(policies, validator);
        Map<TriggerAction, List<BoundRule>> deny = new EnumMap<>(TriggerAction.class);
        Map<TriggerAction, List<BoundRule>> allow = new EnumMap<>(TriggerAction.class);
        for (TriggerAction a : TriggerAction.values()) {
            deny.put(a, new ArrayList<>());
            allow.put(a, new ArrayList<>());
        }
        for (SelectedRule r : selection.rules()) {
            BoundRule bound = new BoundRule(r.policyId(), r.ruleId(), r.effect(), r.description(), r.condition(),
                    r.walletIds(), r.order());
            (r.effect() == Effect.DENY ? deny : allow).get(r.action()).add(bound);
        }
        deny.replaceAll((a, l) -> List.copyOf(l));
        allow.replaceAll((a, l) -> List.copyOf(l));
        return new PolicyBundle(deny, allow, selection.errors(), selection.activePolicies(),
                selection.rules().size(), revision(policies));
    }

    /** A bundle that denies everything because its policies could not be loaded or built. */
    public static PolicyBundle failed(BundleError error) {
        Map<TriggerAction, List<BoundRule>> none = new EnumMap<>(TriggerAction.class);
        for (TriggerAction a : TriggerAction.values()) {
            none.put(a, List.of());
        }
        return new PolicyBundle(none, none, List.of(error), 0, 0, null);
    }

    /**
     * The revision of a list of policies: the first 16 hex digits of a SHA-256 over what decides, in declaration
     * order: of each policy that counts (active, or with a status the evaluator does not know, which makes the
     * bundle deny), its id, position, status, version and targeted wallets (lower case, sorted: targeting is a
     * set); of each of its rules, in order, its id, trigger action, effect, enabled flag, condition and description
     * (the description is a decision's reason). Pending, inactive and rejected policies change nothing a decision
     * says, so they change no revision. Every field is length-prefixed, so no two lists share a text by accident.
     */
    static String revision(List<Policy> policies) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
        StringBuilder text = new StringBuilder(256);
        for (int p = 0; p < policies.size(); p++) {
            Policy policy = policies.get(p);
            if (policy.effectiveStatus().map(st -> st != PolicyStatus.ACTIVE).orElse(false)) {
                continue;
            }
            field(text, "policy");
            field(text, policy.id() == null ? "#" + p : policy.id());
            field(text, policy.status());
            field(text, policy.version() == null ? null : policy.version().toString());
            List<String> wallets = new ArrayList<>();
            policy.walletIds().forEach(w -> wallets.add(w == null ? "\u0000" : w.toLowerCase(Locale.ROOT)));
            wallets.sort(null);
            field(text, String.join(",", wallets));
            for (Rule rule : policy.rules()) {
                field(text, "rule");
                field(text, rule.ruleId());
                field(text, rule.triggerAction());
                field(text, rule.effect());
                field(text, String.valueOf(rule.enabled()));
                field(text, rule.condition());
                field(text, rule.description());
            }
            sha.update(text.toString().getBytes(StandardCharsets.UTF_8));
            text.setLength(0);
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 8);
    }

    private static void field(StringBuilder text, String value) {
        if (value == null) {
            text.append("-1:");
        } else {
            text.append(value.length()).append(':').append(value);
        }
    }

    /**
     * The bundle's revision ({@link #revision(List)}): equal for equal policies, different when anything that
     * decides changes; null for a bundle that could not be built at all.
     */
    public String revision() {
        return revision;
    }

    /**
     * Evaluates every rule once on a synthetic payload, so that the first real action does not pay for
     * loading and linking the interpreter's classes (which on a busy machine can exceed the time budget).
     * Conditions are pure: this changes nothing but timing. Returns this bundle.
     */
    public PolicyBundle warmUp() {
        Warmup.run(this);
        return this;
    }

    /** Whether the bundle is valid; an invalid one denies every action. */
    public boolean valid() {
        return errors.isEmpty();
    }

    /** Why the bundle is invalid; empty when it is valid. */
    public List<BundleError> errors() {
        return errors;
    }

    /** The enabled DENY rules of active policies for this action, in declaration order. */
    public List<BoundRule> denyRules(TriggerAction action) {
        return deny.get(action);
    }

    /** The enabled ALLOW rules of active policies for this action, in declaration order. */
    public List<BoundRule> allowRules(TriggerAction action) {
        return allow.get(action);
    }

    /** Every bound rule of every action, in declaration order. */
    public List<BoundRule> rules() {
        List<BoundRule> all = new ArrayList<>();
        for (TriggerAction a : TriggerAction.values()) {
            all.addAll(deny.get(a));
            all.addAll(allow.get(a));
        }
        all.sort((x, y) -> Integer.compare(x.order(), y.order()));
        return List.copyOf(all);
    }

    /** The number of active policies. */
    public int policyCount() {
        return policyCount;
    }

    /** The number of enabled rules of active policies. */
    public int ruleCount() {
        return ruleCount;
    }

    /**
     * The number of those rules whose condition has a compiled form
     * ({@link dev.custody.engine.compile.CompiledCondition#compiled()}); the others run on cel-java's interpreter.
     */
    public int compiledRuleCount() {
        int n = 0;
        for (TriggerAction a : TriggerAction.values()) {
            for (BoundRule r : deny.get(a)) {
                n += r.condition().compiled() ? 1 : 0;
            }
            for (BoundRule r : allow.get(a)) {
                n += r.condition().compiled() ? 1 : 0;
            }
        }
        return n;
    }
}

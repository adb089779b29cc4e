package dev.custody.engine.selection;

import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.policy.BundleError;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.validate.PolicyValidation;
import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import dev.custody.engine.schema.Uuids;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * The rules that apply to one workspace's actions, selected from the policies its {@link
 * dev.custody.engine.PolicySource} returns, in declaration order (docs/design.md §3): the one implementation of
 * "which rules of which policies apply", used by the engine's bundle and by every tool that must see what the
 * engine sees.
 *
 * <ul>
 *   <li>Only active policies count: a policy without a status is active; {@code pending}, {@code inactive} and
 *       {@code rejected} ones are left out whatever they contain ({@link Exclusion.Reason#NOT_ACTIVE}).
 *   <li>A policy without an id (null or blank) is {@code #<position in the list>}; a rule without an id is
 *       {@code <policy id>#<position in the policy>}.
 *   <li>Of an active policy, the enabled rules are compiled and kept, in declaration order (policy order, then
 *       rule position), each with its policy's wallet ids in lower case (empty: every wallet); disabled ones are
 *       never compiled ({@link Exclusion.Reason#DISABLED}).
 *   <li>An unknown status, an active policy whose id an earlier active policy of the list has, and an active policy
 *       that does not validate are errors ({@link #errors()}). One error makes the selection invalid: it keeps no
 *       rule at all, for the engine denies every action of the workspace (fail-closed).
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class RuleSelection {
    private final List<SelectedRule> rules;
    private final List<Exclusion> exclusions;
    private final List<BundleError> errors;
    private final int activePolicies;

    private RuleSelection(List<SelectedRule> rules, List<Exclusion> exclusions, List<BundleError> errors,
            int activePolicies) {
        this.rules = List.copyOf(rules);
        this.exclusions = List.copyOf(exclusions);
        this.errors = List.copyOf(errors);
        this.activePolicies = activePolicies;
    }

    /**
     * Selects the rules of one workspace's policies, given in declaration order. Never throws for invalid
     * policies: they make the selection invalid.
     */
    public static RuleSelection of(List<Policy> policies, PolicyValidator validator) {
        return of(policies, p -> validator.validate(policies.get(p), false));
    }

    /**
     * {@link #of(List, PolicyValidator)} with the validation of the policy at each position given (a caller that
     * selects one policy for several workspaces validates it once).
     */
    public static RuleSelection of(List<Policy> policies, IntFunction<PolicyValidation> validate) {
        List<SelectedRule> rules = new ArrayList<>();
        List<Exclusion> exclusions = new ArrayList<>();
        List<BundleError> errors = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        int active = 0;
        for (int p = 0; p < policies.size(); p++) {
            Policy policy = policies.get(p);
            String policyId = policyId(policy, p);
            if (policy.effectiveStatus().isEmpty()) {
                Diagnostic d = Diagnostic.at("/status", DiagnosticCode.INVALID_STATUS,
                        "unknown status `" + policy.status() + "`", "statuses: pending, active, inactive, rejected");
                exclusions.add(new Exclusion(p, -1, policyId, Exclusion.Reason.UNKNOWN_STATUS, d));
                errors.add(new BundleError(policyId, d));
                continue;
            }
            if (policy.effectiveStatus().get() != PolicyStatus.ACTIVE) {
                exclusions.add(new Exclusion(p, -1, policyId, Exclusion.Reason.NOT_ACTIVE, null));
                continue;
            }
            active++;
            boolean duplicate = !ids.add(policyId);
            if (duplicate) {
                Diagnostic d = Diagnostic.at("/id", DiagnosticCode.DUPLICATE_ID,
                        "policy id `" + policyId + "` is used by an earlier active policy", null);
                exclusions.add(new Exclusion(p, -1, policyId, Exclusion.Reason.DUPLICATE_POLICY_ID, d));
                errors.add(new BundleError(policyId, d));
            }
            PolicyValidation validation = validate.apply(p);
            for (Diagnostic d : validation.errors()) {
                exclusions.add(new Exclusion(p, -1, policyId, Exclusion.Reason.INVALID, d));
                errors.add(new BundleError(policyId, d));
            }
            if (duplicate || !validation.valid()) {
                continue;
            }
            Set<String> wallets = new HashSet<>();
            policy.walletIds().forEach(w -> wallets.add(w.toLowerCase(Locale.ROOT)));
            for (int r = 0; r < policy.rules().size(); r++) {
                Rule rule = policy.rules().get(r);
                if (!rule.enabled()) {
                    exclusions.add(new Exclusion(p, r, policyId, Exclusion.Reason.DISABLED, null));
                    continue;
                }
                CompiledCondition condition = validation.compiled(r).orElseThrow();
                String ruleId = rule.ruleId() != null ? rule.ruleId() : policyId + "#" + r;
                rules.add(new SelectedRule(p, r, rules.size(), policyId, ruleId, condition.action(),
                        Effect.fromWireName(rule.effect()).orElseThrow(), rule.description(), wallets, condition));
            }
        }
        return new RuleSelection(errors.isEmpty() ? rules : List.of(), exclusions, errors, active);
    }

    /**
     * The workspace key of actions that name no workspace: the empty string, the same key as
     * {@code PolicySource.NO_WORKSPACE} of the engine's API (which this package, below the engine, does not name).
     */
    public static final String NO_WORKSPACE = "";

    /** The id a policy goes by: its own, or {@code #<position>} when it has none (null or blank). */
    public static String policyId(Policy policy, int position) {
        return policy.id() != null && !policy.id().isBlank() ? policy.id() : "#" + position;
    }

    /**
     * The one answer to "does a policy target an action of this wallet and workspace" (docs/design.md §3.1, §4.1),
     * with the engine's case handling: the action's wallet id in its canonical case ({@link Uuids#lowerCase}) among
     * the policy's (lower-case) wallet ids, or the policy names none; and the policy among the policies of the
     * action's workspace key ({@link #workspaceKey}, {@link #inWorkspace}). The engine answers the two halves where
     * it meets them (a bundle's rule for the wallet, the policy source for the workspace); the tools that reason
     * about actions without deciding them (the analysis) ask this.
     *
     * @param policyWallets the policy's wallet ids in lower case, as selected ({@link SelectedRule#walletIds});
     *     empty for every wallet
     * @param policyWorkspace the policy's workspace, any case; null for every workspace
     * @param walletId the action's wallet id as given, any case; null when it has none
     * @param workspaceId the action's workspace id as given, any case; null or blank when it names none
     */
    public static boolean targets(Set<String> policyWallets, String policyWorkspace, String walletId,
            String workspaceId) {
        return targetsWallet(policyWallets, walletId == null ? null : Uuids.lowerCase(walletId))
                && inWorkspace(policyWorkspace, workspaceKey(workspaceId));
    }

    /**
     * Whether a policy with these wallet ids targets a wallet: it names none, or this one. The evaluator's test for
     * each rule (the payload's wallet id is canonical already).
     *
     * @param policyWallets the policy's wallet ids in lower case; empty for every wallet
     * @param canonicalWallet the action's wallet id in its canonical case ({@link Uuids#lowerCase}); null for none
     */
    public static boolean targetsWallet(Set<String> policyWallets, String canonicalWallet) {
        return policyWallets.isEmpty() || canonicalWallet != null && policyWallets.contains(canonicalWallet);
    }

    /**
     * The key under which the engine decides an action of this workspace, and asks its source for the policies:
     * {@link #NO_WORKSPACE} for none (null or blank), else the id without surrounding white space in its canonical
     * case ({@link Uuids#lowerCase}).
     */
    public static String workspaceKey(String workspaceId) {
        return workspaceId == null || workspaceId.isBlank() ? NO_WORKSPACE : Uuids.lowerCase(workspaceId.strip());
    }

    /**
     * Whether a policy of {@code policyWorkspace} (null: of every workspace) is among the policies of
     * {@code workspaceId}: the policies of a workspace are those that name none and those that name it
     * (case-insensitive); {@link #NO_WORKSPACE} gets only those that name none.
     */
    public static boolean inWorkspace(String policyWorkspace, String workspaceId) {
        if (policyWorkspace == null) {
            return true;
        }
        return !NO_WORKSPACE.equals(workspaceId)
                && policyWorkspace.equalsIgnoreCase(workspaceId);
    }

    /** Whether no policy had an error; an invalid selection keeps no rule (the engine denies every action). */
    public boolean valid() {
        return errors.isEmpty();
    }

    /** The kept rules in declaration order; empty when the selection is invalid. */
    public List<SelectedRule> rules() {
        return rules;
    }

    /** The kept rules of one trigger action, in declaration order. */
    public List<SelectedRule> rules(TriggerAction action) {
        return rules.stream().filter(r -> r.action() == action).toList();
    }

    /** What was left out and why, in declaration order (an invalid policy has one entry per error). */
    public List<Exclusion> exclusions() {
        return exclusions;
    }

    /** The errors, in declaration order, each with its policy's id; empty when the selection is valid. */
    public List<BundleError> errors() {
        return errors;
    }

    /** How many of the policies are active (those with an error included). */
    public int activePolicies() {
        return activePolicies;
    }
}

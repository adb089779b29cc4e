package dev.custody.cli.command;

import dev.custody.analysis.AnalysisFinding;
import dev.custody.analysis.AnalysisReport;
import dev.custody.analysis.AnalyzedRule;
import dev.custody.analysis.PolicyAnalyzer;
import dev.custody.analysis.PolicySet;
import dev.custody.analysis.SemanticDiff;
import dev.custody.engine.Decision;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.SourcedPolicy;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The content of a {@code custody review}: what a change to a policy set does, put together from what exists and
 * nothing else. The rule changes come from comparing the rules each side's engine keeps ({@link PolicySet}, the
 * engine's own selection); the behaviour from {@link SemanticDiff} (a proof over every valid action, with
 * replayed witnesses); the analysis findings the change introduces or resolves from {@link PolicyAnalyzer} run
 * on the rules the change touches ({@link PolicyAnalyzer#touched}) on each side; the traffic from
 * {@link TrafficDiff}, the decision path of {@code diff --actions} and {@code replay --from-log}. This class only
 * compares and attributes. Immutable once built.
 */
final class PolicyReview {
    /** A rule's identity across the two sides: its workspace (null for every workspace), policy, rule and action. */
    record RuleKey(String workspaceId, String policyId, String ruleId, TriggerAction action) {
        static RuleKey of(AnalyzedRule r) {
            return new RuleKey(r.workspaceId(), r.policyId(), r.ruleId(), r.action());
        }

        String label() {
            return policyId + "/" + ruleId;
        }

        /** Whether a decision is attributed to this rule (policy and rule id; the workspace is the action's). */
        boolean decides(Decision d) {
            return d != null && policyId.equals(d.policyId()) && ruleId.equals(d.ruleId());
        }
    }

    /** How a rule kept by the engine differs between the sides. */
    enum Kind {
        ADDED, REMOVED, CHANGED,
        /** Kept on the base side; on the head side still written, but disabled (or its policy not active). */
        DISABLED,
        /** The reverse of {@link #DISABLED}. */
        ENABLED;

        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One changed rule.
     *
     * @param before the rule as the base side keeps it; null when it is not kept there
     * @param after the rule as the head side keeps it; null when it is not kept there
     * @param semantic the changes on which either side's decision is attributed to this rule, one replayed
     *     witness per kind of change ({@link SemanticDiff.Focused}); equivalent when none exists (proved)
     * @param introduced analysis findings on the head side, not on the base side, about this rule or naming it
     * @param resolved the reverse
     */
    record RuleChange(RuleKey key, Kind kind, AnalyzedRule before, AnalyzedRule after, SemanticDiff.Result semantic,
            List<AnalysisFinding> introduced, List<AnalysisFinding> resolved) {
        RuleChange {
            introduced = List.copyOf(introduced);
            resolved = List.copyOf(resolved);
        }

        /** The condition text on the side that has the rule (the head's when both do). */
        AnalyzedRule either() {
            return after != null ? after : before;
        }
    }

    /** An action whose decision changed, for the traffic section. */
    record Example(String id, long line, String workspaceId, Object valueUsd, Decision before, Decision after) {}

    /** A transition with its count and its newest examples, newest first. */
    record TransitionRow(TrafficDiff.Transition transition, long count, List<Example> newest) {
        TransitionRow {
            newest = List.copyOf(newest);
        }
    }

    /**
     * The traffic section.
     *
     * @param source {@code actions} or {@code decision_log}
     * @param file the file as given
     * @param actions the actions (and unreadable records) read
     * @param changed the actions decided differently
     * @param malformed the records that could not be decided (denied on both sides)
     */
    record Traffic(String source, String file, long actions, long changed, long malformed, List<TransitionRow> rows) {
        Traffic {
            rows = List.copyOf(rows);
        }
    }

    /** How many of something were added, removed and changed (and, for rules, disabled and enabled). */
    record Counts(int added, int removed, int changed, int disabled, int enabled) {}

    /**
     * The whole review.
     *
     * @param policies policies (by workspace and id, any status) added, removed, changed
     * @param rules rules kept by the engine, by kind of change
     * @param changes the rule changes, in the head's declaration order, then the removed ones in the base's
     * @param semantic the proof over every valid action
     * @param otherDifferences semantic differences no changed rule is attributed on either side
     * @param otherIntroduced findings introduced on rules that no change names
     * @param otherResolved findings resolved on rules that no change names
     * @param analysed how many rules were analysed on the base and on the head side
     * @param traffic null when no traffic was given
     */
    record Report(Counts policies, Counts rules, List<RuleChange> changes, SemanticDiff.Result semantic,
            List<SemanticDiff.Difference> otherDifferences, List<AnalysisFinding> otherIntroduced,
            List<AnalysisFinding> otherResolved, int[] analysed, Traffic traffic) {
        Report {
            changes = List.copyOf(changes);
            otherDifferences = List.copyOf(otherDifferences);
            otherIntroduced = List.copyOf(otherIntroduced);
            otherResolved = List.copyOf(otherResolved);
            analysed = analysed.clone();
        }

        /** This report with a traffic section. */
        Report withTraffic(Traffic t) {
            return new Report(policies, rules, changes, semantic, otherDifferences, otherIntroduced, otherResolved,
                    analysed, t);
        }

        /** Whether behaviour changes: not proved equivalent, or some recorded action decided differently. */
        boolean changesBehaviour() {
            return !semantic.equivalent() || traffic != null && (traffic.changed() > 0 || traffic.malformed() > 0);
        }

        /** The verdict, in words. */
        String verdict() {
            if (traffic != null && traffic.changed() > 0) {
                return "changes " + grouped(traffic.changed()) + " decision" + (traffic.changed() == 1 ? "" : "s")
                        + " of " + grouped(traffic.actions()) + " recorded";
            }
            if (semantic.equivalent()) {
                return "no behaviour change (proved)";
            }
            String proved = semantic.differences().isEmpty()
                    ? "behaviour change not decided (" + Inputs.plural(semantic.undecided().size(), "question")
                            + " undecided)"
                    : "changes behaviour (proved)";
            return traffic == null ? proved : proved + ", not seen in the traffic given";
        }

        /** The verdict as a stable word, for tools. */
        String verdictCode() {
            if (traffic != null && traffic.changed() > 0) {
                return "changes_recorded_decisions";
            }
            if (semantic.equivalent()) {
                return "no_behaviour_change";
            }
            if (semantic.differences().isEmpty()) {
                return "undecided";
            }
            return traffic == null ? "changes_behaviour" : "changes_behaviour_not_in_traffic";
        }

        /** The one-line summary. */
        String summary() {
            return "policies: " + policies.added() + " added, " + policies.removed() + " removed, "
                    + policies.changed() + " changed; rules: " + rules.added() + " added, " + rules.removed()
                    + " removed, " + rules.changed() + " changed"
                    + (rules.disabled() > 0 ? ", " + rules.disabled() + " disabled" : "")
                    + (rules.enabled() > 0 ? ", " + rules.enabled() + " enabled" : "")
                    + " — " + verdict();
        }
    }

    private PolicyReview() {}

    /** 1,200 (a thin space would not survive every terminal; a comma reads in every PR list). */
    static String grouped(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** The semantic verdict of a rule change not yet compared. */
    private static final SemanticDiff.Result NOT_ASKED = new SemanticDiff.Result(false, List.of(),
            List.of("not compared"));

    /** The rule changes between two sets, without behaviour, findings or traffic. */
    static List<RuleChange> ruleChanges(PolicySet base, PolicySet head) {
        Map<RuleKey, AnalyzedRule> before = byKey(base);
        Map<RuleKey, AnalyzedRule> after = byKey(head);
        Set<String> writtenBase = written(base.documents());
        Set<String> writtenHead = written(head.documents());
        List<RuleChange> out = new ArrayList<>();
        for (Map.Entry<RuleKey, AnalyzedRule> e : after.entrySet()) {
            AnalyzedRule b = before.get(e.getKey());
            AnalyzedRule h = e.getValue();
            Kind kind;
            if (b == null) {
                kind = writtenBase.contains(written(e.getKey())) ? Kind.ENABLED : Kind.ADDED;
            } else if (b.effect() != h.effect() || !b.walletIds().equals(h.walletIds())
                    || !WordDiff.sameWords(b.condition().source(), h.condition().source())) {
                kind = Kind.CHANGED;
            } else {
                continue;
            }
            out.add(new RuleChange(e.getKey(), kind, b, h, NOT_ASKED, List.of(), List.of()));
        }
        for (Map.Entry<RuleKey, AnalyzedRule> e : before.entrySet()) {
            if (!after.containsKey(e.getKey())) {
                Kind kind = writtenHead.contains(written(e.getKey())) ? Kind.DISABLED : Kind.REMOVED;
                out.add(new RuleChange(e.getKey(), kind, e.getValue(), null, NOT_ASKED, List.of(), List.of()));
            }
        }
        return out;
    }

    /**
     * The review without traffic: the sets compared by {@code diff} (whole, and once per changed rule) and,
     * meanwhile on a thread of its own, the findings of the touched rules of each side, from {@code analyzer} on
     * {@code run}. The wall time of the {@code semantic} and {@code analysis} phases is put in {@code timings}, in
     * nanoseconds.
     */
    static Report build(PolicySet base, PolicySet head, SemanticDiff diff, PolicyAnalyzer analyzer,
            PolicyAnalyzer.Run run, Map<String, Long> timings) throws java.io.IOException {
        List<RuleChange> changes = ruleChanges(base, head);
        Set<RuleKey> changed = new HashSet<>();
        changes.forEach(c -> changed.add(c.key()));
        Set<RuleKey> touched = new HashSet<>();
        for (PolicySet s : List.of(base, head)) {
            PolicyAnalyzer.touched(s, r -> changed.contains(RuleKey.of(r))).forEach(r -> touched.add(RuleKey.of(r)));
        }
        Predicate<AnalyzedRule> only = r -> touched.contains(RuleKey.of(r));
        java.util.concurrent.FutureTask<AnalysisReport[]> analysis = new java.util.concurrent.FutureTask<>(() -> {
            long t = System.nanoTime();
            AnalysisReport none = new AnalysisReport(0, 0, List.of(), 0);
            AnalysisReport[] out = {
                touched.isEmpty() ? none : analyzer.analyze(base, Optional.empty(), run, only),
                touched.isEmpty() ? none : analyzer.analyze(head, Optional.empty(), run, only)};
            timings.put("analysis", System.nanoTime() - t);
            return out;
        });
        Thread thread = new Thread(analysis, "custody-review-analysis");
        thread.setDaemon(true);
        thread.start();
        long start = System.nanoTime();
        List<Predicate<AnalyzedRule>> focus = new ArrayList<>();
        changes.forEach(c -> focus.add(r -> RuleKey.of(r).equals(c.key())));
        SemanticDiff.Focused compared = diff.compare(base, head, Optional.empty(), focus);
        SemanticDiff.Result semantic = compared.whole();
        timings.put("semantic", System.nanoTime() - start);
        AnalysisReport[] reports = join(analysis);
        AnalysisReport baseReport = reports[0];
        AnalysisReport headReport = reports[1];
        List<AnalysisFinding> introduced = minus(headReport.findings(), baseReport.findings());
        List<AnalysisFinding> resolved = minus(baseReport.findings(), headReport.findings());

        List<RuleChange> full = new ArrayList<>();
        Set<AnalysisFinding> placed = new HashSet<>();
        for (int i = 0; i < changes.size(); i++) {
            RuleChange c = changes.get(i);
            List<AnalysisFinding> in = names(introduced, c.key());
            List<AnalysisFinding> out = names(resolved, c.key());
            placed.addAll(in);
            placed.addAll(out);
            full.add(new RuleChange(c.key(), c.kind(), c.before(), c.after(), compared.focused().get(i), in, out));
        }
        // a change whose witness no changed rule decides on either side (rules moved, say) is shown on its own
        List<SemanticDiff.Difference> otherDiffs = semantic.differences().stream()
                .filter(d -> changes.stream().noneMatch(c -> c.key().action() == d.action()
                        && (c.key().decides(d.base()) || c.key().decides(d.head()))))
                .toList();
        List<AnalysisFinding> otherIn = introduced.stream().filter(f -> !placed.contains(f)).toList();
        List<AnalysisFinding> otherOut = resolved.stream().filter(f -> !placed.contains(f)).toList();
        int[] kinds = new int[Kind.values().length];
        changes.forEach(c -> kinds[c.kind().ordinal()]++);
        Counts rules = new Counts(kinds[Kind.ADDED.ordinal()], kinds[Kind.REMOVED.ordinal()],
                kinds[Kind.CHANGED.ordinal()], kinds[Kind.DISABLED.ordinal()], kinds[Kind.ENABLED.ordinal()]);
        return new Report(policyCounts(base.documents(), head.documents()), rules, full, semantic, otherDiffs,
                otherIn, otherOut, new int[] {baseReport.rules(), headReport.rules()}, null);
    }

    /** The value of a task run on another thread; what it threw is thrown again, unwrapped. */
    static <T> T join(java.util.concurrent.FutureTask<T> task) throws java.io.IOException {
        try {
            return task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reviewing", e);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error r) {
                throw r;
            }
            if (cause instanceof java.io.IOException io) {
                throw io;
            }
            throw new IllegalStateException(cause);
        }
    }

    private static Map<RuleKey, AnalyzedRule> byKey(PolicySet set) {
        Map<RuleKey, AnalyzedRule> out = new LinkedHashMap<>();
        for (AnalyzedRule r : set.rules()) {
            out.putIfAbsent(RuleKey.of(r), r);
        }
        return out;
    }

    /** Every rule written in the documents, whatever its status, as workspace, policy and rule id. */
    private static Set<String> written(List<PolicyDocument> documents) {
        Set<String> out = new HashSet<>();
        for (PolicyDocument d : documents) {
            for (SourcedPolicy sp : d.policies()) {
                Policy p = sp.policy();
                for (Rule r : p.rules()) {
                    out.add(written(workspace(p), p.id(), r.ruleId()));
                }
            }
        }
        return out;
    }

    private static String written(RuleKey k) {
        return written(k.workspaceId(), k.policyId(), k.ruleId());
    }

    private static String written(String workspace, String policyId, String ruleId) {
        return workspace + "\u0000" + policyId + "\u0000" + ruleId;
    }

    private static String workspace(Policy p) {
        return p.workspaceId() == null ? null : p.workspaceId().toLowerCase(Locale.ROOT);
    }

    /**
     * Policies by workspace and id, whatever their status: added, removed, and changed (anything but the
     * whitespace of conditions differs).
     */
    private static Counts policyCounts(List<PolicyDocument> base, List<PolicyDocument> head) {
        Map<String, Policy> b = policies(base);
        Map<String, Policy> h = policies(head);
        int added = 0;
        int changed = 0;
        for (Map.Entry<String, Policy> e : h.entrySet()) {
            Policy p = b.get(e.getKey());
            if (p == null) {
                added++;
            } else if (!p.equals(e.getValue())) {
                changed++;
            }
        }
        int removed = (int) b.keySet().stream().filter(k -> !h.containsKey(k)).count();
        return new Counts(added, removed, changed, 0, 0);
    }

    private static Map<String, Policy> policies(List<PolicyDocument> documents) {
        Map<String, Policy> out = new LinkedHashMap<>();
        for (PolicyDocument d : documents) {
            for (SourcedPolicy sp : d.policies()) {
                Policy p = sp.policy();
                List<Rule> rules = p.rules().stream().map(r -> new Rule(r.ruleId(), r.triggerAction(),
                        r.condition() == null ? null : String.join(" ", WordDiff.words(r.condition())), r.effect(),
                        r.description(), r.isEnabled())).toList();
                out.putIfAbsent(workspace(p) + "\u0000" + p.id(), p.withRules(rules));
            }
        }
        return out;
    }

    /** A finding's identity across the sides: kind, rule and related rules (witnesses and lines may move). */
    private static List<Object> identity(AnalysisFinding f) {
        List<Object> id = new ArrayList<>();
        id.add(f.kind());
        id.add(RuleKey.of(f.rule()));
        f.related().forEach(r -> id.add(RuleKey.of(r)));
        return id;
    }

    private static List<AnalysisFinding> minus(List<AnalysisFinding> a, List<AnalysisFinding> b) {
        Set<List<Object>> there = new HashSet<>();
        b.forEach(f -> there.add(identity(f)));
        return a.stream().filter(f -> !there.contains(identity(f))).toList();
    }

    private static List<AnalysisFinding> names(List<AnalysisFinding> findings, RuleKey k) {
        return findings.stream().filter(f -> RuleKey.of(f.rule()).equals(k)
                || f.related().stream().anyMatch(r -> RuleKey.of(r).equals(k))).toList();
    }

    /** The value of an action for the traffic table: {@code value_usd} of its first section that has one. */
    static Object valueUsd(dev.custody.engine.payload.Action a) {
        for (Map<String, Object> section : a.sections().values()) {
            Object v = section == null ? null : section.get("value_usd");
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    static String attribution(Decision d) {
        return d.ruleId() == null ? "-" : Objects.requireNonNullElse(d.policyId(), "") + "/" + d.ruleId();
    }
}

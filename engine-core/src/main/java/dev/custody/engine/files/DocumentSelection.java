package dev.custody.engine.files;

import dev.custody.engine.selection.Exclusion;
import dev.custody.engine.selection.RuleSelection;
import dev.custody.engine.selection.SelectedRule;
import dev.custody.engine.validate.PolicyValidation;
import dev.custody.engine.validate.PolicyValidator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The rules that apply, in every workspace, to policy files read once: what the engine over a
 * {@link FilePolicySource} of these documents decides by, for a tool that looks at all
 * workspaces at once ({@code analyze}, {@code diff --semantic}, coverage, {@code test}).
 *
 * <p>Each workspace the documents name gets the policies the source gives it (those that name no workspace, then
 * its own, in declaration order: sorted path, then position in the file), and its rules are its
 * {@link RuleSelection}; the policies that name no workspace are also selected on their own (the workspace of an
 * action that names none). A rule of a policy that names no workspace is listed once, with a null workspace, from
 * that last selection; a rule of a workspace's own policy is listed with that workspace (lower case). So every
 * listed rule is a rule the engine evaluates in each workspace it is listed for:
 * <ul>
 *   <li>a document that does not read cleanly fails every load, so the engine denies every action: no rule is
 *       listed (its read errors are {@link #problems()});
 *   <li>a workspace whose selection is invalid (an error in one of its own policies, or its own policy reusing the
 *       id of a policy of every workspace) is denied whole: none of its own rules is listed; an error in a policy
 *       of every workspace makes every workspace invalid, and no rule is listed.
 * </ul>
 * A policy of every workspace that is valid alone stays listed although a workspace with an error denies it too;
 * the problems say which workspace is denied.
 *
 * <p>Immutable and thread-safe.
 */
public final class DocumentSelection {
    /**
     * A selected rule with where it is written.
     *
     * @param rule the rule as selected (its indexes are those of its workspace's list of policies)
     * @param workspaceId the lowercase workspace of its policy; null for a policy of every workspace
     * @param document the file
     * @param source the policy in the file
     */
    public record Located(SelectedRule rule, String workspaceId, PolicyDocument document, SourcedPolicy source) {
        public Located {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(document, "document");
            Objects.requireNonNull(source, "source");
        }
    }

    private record Entry(int position, int file, PolicyDocument document, SourcedPolicy source, String workspace) {}

    private record Problem(int file, int position, Finding finding) {}

    private final List<Located> rules;
    private final List<Finding> problems;

    private DocumentSelection(List<Located> rules, List<Finding> problems) {
        this.rules = List.copyOf(rules);
        this.problems = List.copyOf(problems);
    }

    /** Selects the rules of documents already read (in declaration order), validating with {@code validator}. */
    public static DocumentSelection of(List<PolicyDocument> documents, PolicyValidator validator) {
        List<Problem> problems = new ArrayList<>();
        List<Entry> entries = new ArrayList<>();
        Set<String> workspaces = new LinkedHashSet<>();
        boolean readable = true;
        for (int f = 0; f < documents.size(); f++) {
            PolicyDocument doc = documents.get(f);
            if (!doc.valid()) {
                readable = false;
                for (Finding finding : doc.readErrors()) {
                    problems.add(new Problem(f, -1, finding));
                }
                continue;
            }
            for (SourcedPolicy sp : doc.policies()) {
                String ws = sp.policy().workspaceId();
                entries.add(new Entry(entries.size(), f, doc, sp, ws == null ? null : ws.toLowerCase(Locale.ROOT)));
                if (ws != null) {
                    workspaces.add(ws.toLowerCase(Locale.ROOT));
                }
            }
        }
        List<String> scopes = new ArrayList<>();
        scopes.add(RuleSelection.NO_WORKSPACE);
        scopes.addAll(workspaces);
        List<int[]> kept = new ArrayList<>();
        List<Located> rules = new ArrayList<>();
        Map<List<Object>, Problem> errors = new LinkedHashMap<>();
        Map<SourcedPolicy, PolicyValidation> validations = new IdentityHashMap<>();
        for (String scope : scopes) {
            List<Entry> mine = entries.stream()
                    .filter(e -> RuleSelection.inWorkspace(e.workspace(), scope))
                    .toList();
            RuleSelection selection = RuleSelection.of(mine.stream().map(e -> e.source().policy()).toList(),
                    p -> validations.computeIfAbsent(mine.get(p).source(),
                            sp -> validator.validate(sp.policy(), false)));
            for (Exclusion x : selection.exclusions()) {
                if (x.isError()) {
                    Entry e = mine.get(x.policyIndex());
                    errors.putIfAbsent(List.of(e.position(), x.error()),
                            new Problem(e.file(), e.position(), e.document().locate(e.source(), x.error())));
                }
            }
            for (SelectedRule r : selection.rules()) {
                Entry e = mine.get(r.policyIndex());
                boolean own = scope.equals(RuleSelection.NO_WORKSPACE) == (e.workspace() == null);
                if (own && readable) {
                    kept.add(new int[] {e.position(), r.ruleIndex(), rules.size()});
                    rules.add(new Located(r, e.workspace(), e.document(), e.source()));
                }
            }
        }
        problems.addAll(errors.values());
        problems.sort(Comparator.comparingInt(Problem::file).thenComparingInt(Problem::position));
        kept.sort(Comparator.<int[]>comparingInt(k -> k[0]).thenComparingInt(k -> k[1]));
        List<Located> ordered = new ArrayList<>(rules.size());
        kept.forEach(k -> ordered.add(rules.get(k[2])));
        return new DocumentSelection(ordered, problems.stream().map(Problem::finding).toList());
    }

    /** The selected rules, in declaration order (sorted path, position in the file, position in the policy). */
    public List<Located> rules() {
        return rules;
    }

    /**
     * The read errors of the documents that do not read cleanly and the errors that make a workspace's selection
     * invalid, each once, at its file:line:column, in declaration order; empty when the engine denies nothing for
     * its policies' sake.
     */
    public List<Finding> problems() {
        return problems;
    }
}

package dev.custody.cli.command.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.custody.client.model.PolicyUpdate;
import dev.custody.engine.policy.Rule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@code policies apply} would change in a workspace to make it match the policy files: the
 * policies to create (in the files, not in the workspace), to update (field-level and rule-level
 * changes), and those in the workspace but not in the files (deleted only on request).
 *
 * <p>Matching is by policy id, then by rule id inside a policy. Server-managed fields
 * ({@code status}, {@code version}, {@code created_at}) are not compared. Wallet ids compare as
 * sets, descriptions treat absent as empty, and rule order is compared because it decides
 * attribution. Local policies whose {@code workspace_id} names another workspace are ignored, as
 * the engine ignores them.
 *
 * <p>Immutable once computed; thread-safe.
 */
final class PolicyPlan {
    /** What happens to one policy. */
    enum Kind { CREATE, UPDATE, DELETE, UNCHANGED }

    /** One changed field: its value in the workspace and in the files, as JSON. */
    record FieldChange(String field, JsonNode before, JsonNode after) {
        String render() {
            return field + ": " + before + " -> " + after;
        }
    }

    /** One changed rule: {@code add}, {@code remove} or {@code change} (with its fields). */
    record RuleChange(String kind, String ruleId, List<FieldChange> fields, Rule local) {
    }

    /** The plan of one policy. {@code local} is null for a deletion, {@code remote} for a creation. */
    record Entry(Kind kind, String policyId, String name, String file, List<FieldChange> fields,
            List<RuleChange> rules, LocalPolicies.Local local, dev.custody.client.model.Policy remote) {

        boolean rulesChanged() {
            return !rules.isEmpty() || fields.stream().anyMatch(f -> f.field().equals("rules order"));
        }
    }

    private final List<Entry> entries;

    private PolicyPlan(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    List<Entry> entries() {
        return entries;
    }

    long count(Kind kind) {
        return entries.stream().filter(e -> e.kind() == kind).count();
    }

    /**
     * Compares the local policies of {@code workspaceId} with the workspace's policies.
     *
     * @throws InputFileException when two local policies have the same id
     */
    static PolicyPlan compute(String workspaceId, List<LocalPolicies.Local> locals,
            List<dev.custody.client.model.Policy> remotes) {
        Map<String, dev.custody.client.model.Policy> remoteById = new LinkedHashMap<>();
        remotes.forEach(r -> remoteById.put(r.id(), r));
        Map<String, String> seen = new HashMap<>();
        List<Entry> entries = new ArrayList<>();
        Set<String> matched = new HashSet<>();
        for (LocalPolicies.Local local : locals) {
            var p = local.policy();
            if (p.workspaceId() != null && !p.workspaceId().equalsIgnoreCase(workspaceId)) {
                continue;
            }
            String previous = seen.put(p.id(), local.file());
            if (previous != null) {
                throw new InputFileException("policy id `" + p.id() + "` is defined twice: in `" + previous
                        + "` and in `" + local.file() + "`", false, null);
            }
            var remote = remoteById.get(p.id());
            if (remote == null) {
                entries.add(new Entry(Kind.CREATE, p.id(), p.name(), local.file(), List.of(), List.of(), local, null));
                continue;
            }
            matched.add(remote.id());
            List<FieldChange> fields = new ArrayList<>();
            compare(fields, "name", remote.name(), p.name());
            compare(fields, "description", emptyIfNull(remote.description()), emptyIfNull(p.description()));
            compare(fields, "approval_group_id", remote.approvalGroupId(), p.approvalGroupId());
            if (!new TreeSet<>(remote.walletIds()).equals(new TreeSet<>(p.walletIds()))) {
                fields.add(change("wallet_ids", remote.walletIds(), p.walletIds()));
            }
            List<RuleChange> rules = compareRules(remote.rules(), p.rules(), fields);
            Kind kind = fields.isEmpty() && rules.isEmpty() ? Kind.UNCHANGED : Kind.UPDATE;
            entries.add(new Entry(kind, p.id(), p.name(), local.file(), fields, rules, local, remote));
        }
        for (var remote : remotes) {
            if (!matched.contains(remote.id())) {
                entries.add(new Entry(Kind.DELETE, remote.id(), remote.name(), null, List.of(), List.of(), null, remote));
            }
        }
        return new PolicyPlan(entries);
    }

    private static List<RuleChange> compareRules(List<dev.custody.client.model.Rule> remote, List<Rule> local,
            List<FieldChange> fields) {
        Map<String, dev.custody.client.model.Rule> remoteById = new LinkedHashMap<>();
        remote.forEach(r -> remoteById.put(r.ruleId(), r));
        Set<String> localIds = new HashSet<>();
        List<RuleChange> out = new ArrayList<>();
        List<String> localOrder = new ArrayList<>();
        for (Rule r : local) {
            localIds.add(r.ruleId());
            var existing = remoteById.get(r.ruleId());
            if (existing == null) {
                out.add(new RuleChange("add", r.ruleId(), List.of(), r));
                continue;
            }
            localOrder.add(r.ruleId());
            List<FieldChange> changes = new ArrayList<>();
            compare(changes, "trigger_action", existing.triggerAction(), r.triggerAction());
            compare(changes, "condition", existing.condition(), r.condition());
            compare(changes, "effect", existing.effect(), r.effect());
            compare(changes, "description", emptyIfNull(existing.description()), emptyIfNull(r.description()));
            compare(changes, "is_enabled", existing.enabled(), r.enabled());
            if (!changes.isEmpty()) {
                out.add(new RuleChange("change", r.ruleId(), changes, r));
            }
        }
        List<String> remoteOrder = new ArrayList<>();
        for (var r : remote) {
            if (localIds.contains(r.ruleId())) {
                remoteOrder.add(r.ruleId());
            } else {
                out.add(new RuleChange("remove", r.ruleId(), List.of(), null));
            }
        }
        if (!remoteOrder.equals(localOrder)) {
            fields.add(change("rules order", remoteOrder, localOrder));
        }
        return out;
    }

    /**
     * The update body of an {@link Kind#UPDATE} entry: the changed fields only; when any rule
     * changed (or their order), the whole rule set of the file, since a non-empty {@code rules}
     * array replaces every rule and {@code []} clears them.
     */
    static PolicyUpdate updateBody(Entry e) {
        var p = e.local().policy();
        Set<String> changed = new HashSet<>();
        e.fields().forEach(f -> changed.add(f.field()));
        return new PolicyUpdate(
                changed.contains("name") ? p.name() : null,
                changed.contains("description") ? emptyIfNull(p.description()) : null,
                changed.contains("approval_group_id") ? p.approvalGroupId() : null,
                changed.contains("wallet_ids") ? p.walletIds() : null,
                e.rulesChanged() ? LocalPolicies.rules(p.rules()) : null);
    }

    /** The plan as JSON (for {@code --format json}). */
    JsonNode toJson() {
        ObjectNode root = ApiLeaf.JSON.createObjectNode();
        var changes = root.putArray("changes");
        for (Entry e : entries) {
            if (e.kind() == Kind.UNCHANGED) {
                continue;
            }
            ObjectNode c = changes.addObject();
            c.put("action", e.kind().name().toLowerCase(java.util.Locale.ROOT));
            c.put("policy_id", e.policyId());
            c.put("name", e.name());
            c.put("file", e.file());
            putFields(c.putArray("fields"), e.fields());
            var rules = c.putArray("rules");
            for (RuleChange r : e.rules()) {
                putFields(rules.addObject().put("action", r.kind()).put("rule_id", r.ruleId()).putArray("fields"),
                        r.fields());
            }
        }
        ObjectNode summary = root.putObject("summary");
        summary.put("create", count(Kind.CREATE));
        summary.put("update", count(Kind.UPDATE));
        summary.put("delete", count(Kind.DELETE));
        summary.put("unchanged", count(Kind.UNCHANGED));
        return root;
    }

    private static void putFields(com.fasterxml.jackson.databind.node.ArrayNode into, List<FieldChange> fields) {
        for (FieldChange f : fields) {
            ObjectNode node = into.addObject().put("field", f.field());
            node.set("before", f.before());
            node.set("after", f.after());
        }
    }

    private static void compare(List<FieldChange> out, String field, Object before, Object after) {
        if (!Objects.equals(before, after)) {
            out.add(change(field, before, after));
        }
    }

    private static FieldChange change(String field, Object before, Object after) {
        return new FieldChange(field, ApiLeaf.JSON.valueToTree(before), ApiLeaf.JSON.valueToTree(after));
    }

    private static String emptyIfNull(String s) {
        return s == null ? "" : s;
    }
}

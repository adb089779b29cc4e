package dev.custody.cli.repl;

import dev.custody.engine.payload.Action;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The action the REPL is building: trigger action, ids, the instant, and the payload fields set so far.
 *
 * <p>Fields are kept by dotted path across action switches: a {@code withdrawal.value_usd} set before
 * {@code :action web3.contract_call} stays, is left out of what that action is evaluated with, and applies
 * again after switching back. Every value has already been checked against its field's type, so the
 * action this draft builds always passes the engine's payload check.
 *
 * <p>Mutable and not thread-safe: one REPL session owns it.
 */
final class ActionDraft {
    /** The wallet id used until one is set or loaded (the engine requires a UUID). */
    static final String DEFAULT_WALLET_ID = "00000000-0000-0000-0000-000000000000";

    private TriggerAction action;
    private String id;
    private String walletId = DEFAULT_WALLET_ID;
    private String workspaceId;
    private Instant fixedAt;
    private final Map<String, Object> values = new LinkedHashMap<>();

    ActionDraft(TriggerAction action) {
        this.action = Objects.requireNonNull(action, "action");
    }

    TriggerAction action() {
        return action;
    }

    void action(TriggerAction newAction) {
        this.action = Objects.requireNonNull(newAction, "action");
    }

    String id() {
        return id;
    }

    void id(String newId) {
        this.id = newId;
    }

    String walletId() {
        return walletId;
    }

    void walletId(String newWalletId) {
        this.walletId = newWalletId == null ? DEFAULT_WALLET_ID : newWalletId;
    }

    String workspaceId() {
        return workspaceId;
    }

    void workspaceId(String newWorkspaceId) {
        this.workspaceId = newWorkspaceId;
    }

    /** The fixed instant, or empty when the draft follows the clock ({@code :at now}). */
    Optional<Instant> fixedAt() {
        return Optional.ofNullable(fixedAt);
    }

    void fixedAt(Instant instant) {
        this.fixedAt = instant;
    }

    /** The evaluation instant: the fixed one, else {@code now}. */
    Instant instant(Instant now) {
        return fixedAt != null ? fixedAt : now;
    }

    void set(FieldSpec field, Object value) {
        values.put(field.path(), value);
    }

    /** Removes a field; whether it was set. */
    boolean unset(String path) {
        return values.remove(path) != null;
    }

    Optional<Object> value(String path) {
        return Optional.ofNullable(values.get(path));
    }

    /** Every field path set, whichever action it belongs to, in the schema's order. */
    List<String> setPaths() {
        List<String> out = new ArrayList<>();
        for (Section s : Section.values()) {
            for (FieldSpec f : FieldSchema.fields(s)) {
                if (values.containsKey(f.path())) {
                    out.add(f.path());
                }
            }
        }
        return out;
    }

    /** The fields set that the current action does not use (their section belongs to the other action). */
    List<String> inapplicable() {
        List<String> out = new ArrayList<>();
        for (String path : setPaths()) {
            if (FieldSchema.field(action, path).isEmpty()) {
                out.add(path);
            }
        }
        return out;
    }

    /** Forgets every field (the instant and the ids stay). */
    void clearFields() {
        values.clear();
    }

    /**
     * The sections the current action is evaluated with: only its own sections, in the schema's order,
     * each with its fields in the schema's order; sections with no field set are left out.
     */
    Map<String, Map<String, Object>> sections() {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        for (Section s : FieldSchema.sections(action)) {
            Map<String, Object> fields = new LinkedHashMap<>();
            for (FieldSpec f : FieldSchema.fields(s)) {
                Object v = values.get(f.path());
                if (v != null) {
                    fields.put(f.name(), v);
                }
            }
            if (!fields.isEmpty()) {
                out.put(s.wireName(), fields);
            }
        }
        return out;
    }

    /**
     * The engine action for an evaluation at {@code now} (used only when no instant is fixed). Every section
     * of the action is present, empty when no field of it is set, so that reading a field nobody set fails
     * with "`principal.user_email` is absent from the payload" rather than with an unbound section.
     */
    Action toAction(Instant now) {
        Map<String, Map<String, Object>> all = new LinkedHashMap<>();
        for (Section s : FieldSchema.sections(action)) {
            if (s != Section.CONTEXT) {
                all.put(s.wireName(), Map.of());
            }
        }
        all.putAll(sections());
        return new Action(id, action, walletId, workspaceId, instant(now), all);
    }

    /**
     * The draft as an action file object (docs/design.md §4), which {@code :load} reads back: {@code id},
     * {@code action}, {@code wallet_id}, {@code workspace_id}, {@code at} (only when fixed), then the
     * sections.
     */
    Map<String, Object> toJsonTree() {
        Map<String, Object> out = new LinkedHashMap<>();
        if (id != null) {
            out.put("id", id);
        }
        out.put("action", action.wireName());
        out.put("wallet_id", walletId);
        if (workspaceId != null) {
            out.put("workspace_id", workspaceId);
        }
        if (fixedAt != null) {
            out.put("at", fixedAt.toString());
        }
        out.putAll(sections());
        return out;
    }
}

package dev.custody.engine.payload;

import dev.custody.engine.internal.payload.ActionSections;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One action to decide on, as the caller has it: the trigger action, the wallet and workspace, an
 * optional instant, and the payload sections as JSON-like values (maps, lists, strings, numbers,
 * booleans).
 *
 * <p>An {@code Action} is not trusted: the evaluator checks it against the field schema before any rule
 * sees it ({@code dev.custody.engine.check.PayloadValidator}), and a malformed action is denied. The {@code context} section is
 * never taken from the caller: it is computed from {@link #at()} (or the engine's clock when absent).
 *
 * <p>Immutable and thread-safe once built: the section maps are copied (shallowly). The first decision checks
 * the action and remembers the result, so nested values you passed in (inside {@code decoded_args}) are read
 * then, once; changing them afterwards changes nothing the engine sees.
 *
 * @param id caller's id of the action, echoed in decisions; may be null
 * @param action the trigger action
 * @param walletId the wallet the action comes from (a UUID)
 * @param workspaceId the workspace it belongs to; may be null when the caller evaluates a bundle directly
 * @param at the instant of the action, behind {@code context.*}; null means "the engine's clock, now"
 * @param sections payload sections by name ({@code withdrawal}, {@code wallet}, {@code resource}, …)
 */
public record Action(
        String id,
        TriggerAction action,
        String walletId,
        String workspaceId,
        Instant at,
        Map<String, Map<String, Object>> sections) {

    public Action {
        Objects.requireNonNull(action, "action");
        sections = sections instanceof ActionSections frozen ? frozen : ActionSections.copyOf(sections);
    }

    /** A builder for an action of this trigger. */
    public static Builder builder(TriggerAction action) {
        return new Builder(action);
    }

    /** A copy of this action with another instant; the sections are shared, not copied. */
    public Action withAt(Instant instant) {
        return new Action(id, action, walletId, workspaceId, instant, sections);
    }

    /** A copy of this action with one section replaced (or added); only that section is copied. */
    public Action withSection(String name, Map<String, Object> fields) {
        return new Action(id, action, walletId, workspaceId, at, ((ActionSections) sections).with(name, fields));
    }

    /** Builds an {@link Action} field by field. Not thread-safe. */
    public static final class Builder {
        private final TriggerAction action;
        private String id;
        private String walletId;
        private String workspaceId;
        private Instant at;
        private Map<String, Map<String, Object>> sections = new LinkedHashMap<>();
        /** Whether an action built before wraps {@link #sections}' maps: the next change copies them first. */
        private boolean shared;

        private Builder(TriggerAction action) {
            this.action = Objects.requireNonNull(action, "action");
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder walletId(String walletId) {
            this.walletId = walletId;
            return this;
        }

        public Builder workspaceId(String workspaceId) {
            this.workspaceId = workspaceId;
            return this;
        }

        public Builder at(Instant at) {
            this.at = at;
            return this;
        }

        /** Sets one field by its dotted path, e.g. {@code field("withdrawal.value_usd", 7400.0)}. */
        public Builder field(String path, Object value) {
            unshare();
            int dot = path.indexOf('.');
            if (dot <= 0 || dot == path.length() - 1) {
                throw new IllegalArgumentException("field path must be `section.field`, got `" + path + "`");
            }
            sections.computeIfAbsent(path.substring(0, dot), k -> new LinkedHashMap<>())
                    .put(path.substring(dot + 1), value);
            return this;
        }

        /** Sets a whole section (replacing what was set before). */
        public Builder section(String name, Map<String, Object> fields) {
            unshare();
            sections.put(name, new LinkedHashMap<>(fields));
            return this;
        }

        /** The action, wrapping this builder's maps without copying them (the builder copies before changing them). */
        public Action build() {
            shared = true;
            return new Action(id, action, walletId, workspaceId, at, ActionSections.adopt(sections));
        }

        private void unshare() {
            if (shared) {
                Map<String, Map<String, Object>> copy = new LinkedHashMap<>();
                sections.forEach((k, v) -> copy.put(k, v == null ? null : new LinkedHashMap<>(v)));
                sections = copy;
                shared = false;
            }
        }
    }
}

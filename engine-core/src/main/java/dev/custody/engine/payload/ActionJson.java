package dev.custody.engine.payload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.custody.engine.diagnostic.Suggestions;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads an action from JSON (DESIGN §4): {@code id}, {@code action}, {@code wallet_id},
 * {@code workspace_id}, {@code at} (ISO-8601 instant, e.g. {@code 2026-11-02T14:05:00Z}) and the payload
 * sections as objects. An unknown top-level property, a section that is not an object, an unknown action
 * or an unreadable {@code at} is an error; field-level checks are left to {@link PayloadValidator}, which
 * the evaluator runs (so a wrong field type denies rather than failing to read).
 *
 * <p>A {@code web3.contract_call} may give, instead of a {@code resource} section, the EVM
 * {@code raw_transaction} of its signRaw request with an optional {@code method_name} and the
 * {@code network_code} (all top-level); the {@code resource} section is then derived by
 * {@link ContractCallDecoder}, and what it could not decode is in {@link Ok#notes()}. Giving both
 * {@code resource} and {@code raw_transaction}, or {@code method_name}/{@code network_code} without
 * {@code raw_transaction}, is an error, and so is a transaction the decoder refuses (malformed hex in
 * {@code to}, {@code value}, {@code gasLimit} or {@code data}, a Solana transaction): the replay denies such
 * a line fail-closed.
 *
 * <p>Duplicate keys are refused (a second {@code value_usd} must not silently win). Thread-safe.
 */
public final class ActionJson {
    /** Top-level properties that are not sections. */
    public static final Set<String> TOP_LEVEL = Set.of("id", "action", "wallet_id", "workspace_id", "at",
            "raw_transaction", "method_name", "network_code");

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build());
    }

    private ActionJson() {}

    /** The outcome of reading one action. */
    public sealed interface Result permits Ok, Error {}

    /**
     * The action read, with notes for the trace (what could not be decoded from a {@code raw_transaction};
     * empty otherwise).
     */
    public record Ok(Action action, List<String> notes) implements Result {
        public Ok {
            Objects.requireNonNull(action, "action");
            notes = List.copyOf(notes);
        }

        /** An action read without notes. */
        public Ok(Action action) {
            this(action, List.of());
        }
    }

    /** Why it could not be read: one line; {@code id} is the action's id when it could be read. */
    public record Error(String message, String id) implements Result {}

    /** Reads one action from JSON text. Never throws. */
    public static Result parse(String json) {
        Object tree;
        try {
            tree = MAPPER.readValue(json, Object.class);
        } catch (JsonProcessingException e) {
            String m = e.getOriginalMessage() == null ? "unreadable" : e.getOriginalMessage();
            // Jackson's "(start marker at [Source: …])" tail is parser internals, not for users
            m = m.replaceAll("(?s)\\s*\\(start marker at .*", "");
            int nl = m.indexOf('\n');
            if (nl >= 0) {
                m = m.substring(0, nl);
            }
            m = m.replaceAll("\\s*\\(for .*?\\)", "").replaceAll("'([^']*)'", "`$1`").replace('"', '`');
            String where = e.getLocation() == null ? "" : " at column " + e.getLocation().getColumnNr();
            return new Error("malformed JSON" + where + ": " + lower(m), null);
        } catch (RuntimeException e) {
            return new Error("malformed JSON: " + e.getClass().getSimpleName(), null);
        }
        if (!(tree instanceof Map<?, ?> map)) {
            return new Error("an action must be a JSON object", null);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) map;
        return fromMap(m);
    }

    /** Reads one action from an already-parsed JSON object. Never throws. */
    public static Result fromMap(Map<String, Object> m) {
        String id = m.get("id") == null ? null : String.valueOf(m.get("id"));
        Object actionName = m.get("action");
        if (actionName == null) {
            return new Error("`action` is missing", id);
        }
        if (!(actionName instanceof String name)) {
            return new Error("`action` must be a string", id);
        }
        TriggerAction action = TriggerAction.fromWireName(name).orElse(null);
        if (action == null) {
            List<String> names = new ArrayList<>();
            for (TriggerAction a : TriggerAction.values()) {
                names.add(a.wireName());
            }
            String hint = Suggestions.closest(name, names).map(s -> " (did you mean `" + s + "`?)").orElse("");
            return new Error("unknown action `" + name + "`" + hint, id);
        }
        Action.Builder b = Action.builder(action).id(id);
        Map<String, Object> rawTransaction = null;
        String methodName = null;
        String networkCode = null;
        boolean hasResource = false;
        for (Map.Entry<String, Object> e : m.entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            switch (key) {
                case "id", "action" -> {
                }
                case "raw_transaction" -> {
                    if (value == null) {
                        continue;
                    }
                    if (!(value instanceof Map<?, ?> raw)) {
                        return new Error("`raw_transaction` must be an object", id);
                    }
                    rawTransaction = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> f : raw.entrySet()) {
                        rawTransaction.put(String.valueOf(f.getKey()), f.getValue());
                    }
                }
                case "method_name", "network_code" -> {
                    if (value == null) {
                        continue;
                    }
                    if (!(value instanceof String s)) {
                        return new Error("`" + key + "` must be a string", id);
                    }
                    if (key.equals("method_name")) {
                        methodName = s;
                    } else {
                        networkCode = s;
                    }
                }
                case "wallet_id", "workspace_id" -> {
                    if (value != null && !(value instanceof String)) {
                        return new Error("`" + key + "` must be a string", id);
                    }
                    if (key.equals("wallet_id")) {
                        b.walletId((String) value);
                    } else {
                        b.workspaceId((String) value);
                    }
                }
                case "at" -> {
                    if (value == null) {
                        continue;
                    }
                    if (!(value instanceof String s)) {
                        return new Error("`at` must be an ISO-8601 instant string such as `2026-11-02T14:05:00Z`", id);
                    }
                    try {
                        b.at(Instant.parse(s));
                    } catch (DateTimeParseException ex) {
                        return new Error("`at` `" + s + "` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z`", id);
                    }
                }
                default -> {
                    if (Section.fromWireName(key).isEmpty()) {
                        List<String> known = new ArrayList<>(TOP_LEVEL);
                        for (Section s : Section.values()) {
                            known.add(s.wireName());
                        }
                        String hint = Suggestions.closest(key, known).map(s -> " (did you mean `" + s + "`?)").orElse("");
                        return new Error("unknown property `" + key + "`" + hint, id);
                    }
                    if (value == null) {
                        continue;
                    }
                    if (!(value instanceof Map<?, ?> section)) {
                        return new Error("section `" + key + "` must be an object", id);
                    }
                    Map<String, Object> fields = new LinkedHashMap<>();
                    section.forEach((k, v) -> fields.put(String.valueOf(k), v));
                    b.section(key, fields);
                    hasResource |= key.equals("resource");
                }
            }
        }
        if (rawTransaction == null) {
            if (methodName != null || networkCode != null) {
                return new Error("`" + (methodName != null ? "method_name" : "network_code")
                        + "` goes with `raw_transaction`; without one, give `resource` fields", id);
            }
            return new Ok(b.build());
        }
        if (action != TriggerAction.WEB3_CONTRACT_CALL) {
            return new Error("`raw_transaction` is only for `web3.contract_call` actions", id);
        }
        if (hasResource) {
            return new Error("give either `resource` or `raw_transaction`, not both", id);
        }
        ContractCallResult derived = ContractCallDecoder.decode(rawTransaction, methodName, networkCode);
        if (derived instanceof ContractCallResult.Rejected r) {
            return new Error(r.error(), id);
        }
        ContractCallResult.Decoded d = (ContractCallResult.Decoded) derived;
        return new Ok(b.section("resource", d.resource()).build(), d.notes());
    }

    private static String lower(String m) {
        return m.isEmpty() || !Character.isUpperCase(m.charAt(0)) ? m : Character.toLowerCase(m.charAt(0)) + m.substring(1);
    }

}

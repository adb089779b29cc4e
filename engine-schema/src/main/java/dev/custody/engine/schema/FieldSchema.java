package dev.custody.engine.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The condition field schema of the service spec: which sections each trigger action offers, and the
 * fields of each section with their types and enums.
 *
 * <p>This is the single source of the schema: the rule compiler declares CEL types from it, the
 * evaluator checks payloads against it, and {@link #toJson()} renders the {@code data} of
 * {@code GET /policy/schema}. Fields keep the spec's order.
 *
 * <p>Immutable and thread-safe: all state is built once in the static initializer.
 */
public final class FieldSchema {

    /** The workspace roles a {@code principal.role} may take, in the spec's order. */
    public static final List<String> ROLES = List.of("owner", "admin", "signer", "proposer", "viewer", "guest");

    /** The English UTC weekday names {@code context.day_of_week} takes, Monday first. */
    public static final List<String> DAYS_OF_WEEK =
            List.of("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday");

    private static final Map<Section, List<FieldSpec>> FIELDS;
    private static final Map<TriggerAction, List<Section>> SECTIONS;

    static {
        Map<Section, List<FieldSpec>> f = new EnumMap<>(Section.class);
        f.put(Section.PRINCIPAL, List.of(
                optional(Section.PRINCIPAL, "user_email", FieldType.STRING, "email of the initiating user, when available"),
                new FieldSpec(Section.PRINCIPAL, "role", FieldType.STRING, false, false, ROLES,
                        "workspace role of the initiating user")));
        f.put(Section.CONTEXT, List.of(
                field(Section.CONTEXT, "hour", FieldType.INTEGER, "UTC hour of evaluation, 0 to 23"),
                new FieldSpec(Section.CONTEXT, "day_of_week", FieldType.STRING, false, false, List.of(),
                        "UTC weekday name in English")));
        f.put(Section.WITHDRAWAL, List.of(
                amount(Section.WITHDRAWAL, "amount", FieldType.NUMBER, "requested asset amount"),
                amount(Section.WITHDRAWAL, "value_usd", FieldType.NUMBER, "requested value in USD"),
                field(Section.WITHDRAWAL, "asset_symbol", FieldType.STRING, "asset symbol"),
                field(Section.WITHDRAWAL, "asset_is_native", FieldType.BOOLEAN, "asset is the network native asset"),
                field(Section.WITHDRAWAL, "destination_address", FieldType.STRING, "recipient address"),
                field(Section.WITHDRAWAL, "network_code", FieldType.STRING, "internal network code"),
                field(Section.WITHDRAWAL, "is_whitelisted", FieldType.BOOLEAN, "destination is in the workspace address book"),
                amount(Section.WITHDRAWAL, "address_age_sec", FieldType.NUMBER, "age of the address book record in seconds")));
        f.put(Section.WALLET, List.of(
                amount(Section.WALLET, "outflow_1h", FieldType.NUMBER, "realized USD outflow of this wallet over the last hour"),
                amount(Section.WALLET, "outflow_6h", FieldType.NUMBER, "realized USD outflow of this wallet over the last 6 hours"),
                amount(Section.WALLET, "outflow_24h", FieldType.NUMBER, "realized USD outflow of this wallet over the last 24 hours"),
                amount(Section.WALLET, "withdrawal_count_1h", FieldType.INTEGER, "withdrawal attempts from this wallet in the last hour")));
        f.put(Section.WORKSPACE, List.of(
                amount(Section.WORKSPACE, "outflow_1h", FieldType.NUMBER, "realized USD outflow of the workspace over the last hour"),
                amount(Section.WORKSPACE, "outflow_6h", FieldType.NUMBER, "realized USD outflow of the workspace over the last 6 hours"),
                amount(Section.WORKSPACE, "outflow_24h", FieldType.NUMBER, "realized USD outflow of the workspace over the last 24 hours"),
                amount(Section.WORKSPACE, "withdrawal_count_1h", FieldType.INTEGER, "workspace withdrawal attempts in the last hour"),
                amount(Section.WORKSPACE, "network_outflow_1h", FieldType.NUMBER, "realized USD outflow on the current network over the last hour"),
                amount(Section.WORKSPACE, "network_outflow_6h", FieldType.NUMBER, "realized USD outflow on the current network over the last 6 hours"),
                amount(Section.WORKSPACE, "network_outflow_24h", FieldType.NUMBER, "realized USD outflow on the current network over the last 24 hours"),
                amount(Section.WORKSPACE, "network_withdrawal_count_1h", FieldType.INTEGER, "workspace withdrawal attempts on the current network in the last hour")));
        f.put(Section.RESOURCE, List.of(
                field(Section.RESOURCE, "network_code", FieldType.STRING, "internal network code"),
                field(Section.RESOURCE, "contract_address", FieldType.STRING, "lowercase address from the raw transaction `to` field"),
                field(Section.RESOURCE, "method_selector", FieldType.STRING, "lowercase 4-byte selector, `0x` plus 8 hex digits"),
                optional(Section.RESOURCE, "method_name", FieldType.STRING, "method name from request metadata when provided"),
                field(Section.RESOURCE, "value_wei", FieldType.STRING, "native value sent with the call, as a decimal string"),
                amount(Section.RESOURCE, "gas_limit", FieldType.INTEGER, "gas limit from the raw transaction"),
                field(Section.RESOURCE, "decoded_args", FieldType.MAP,
                        "decoded arguments when the call is recognized; guard reads with has()")));
        FIELDS = Collections.unmodifiableMap(f);

        Map<TriggerAction, List<Section>> s = new EnumMap<>(TriggerAction.class);
        s.put(TriggerAction.WITHDRAWAL_CREATE, List.of(
                Section.PRINCIPAL, Section.WITHDRAWAL, Section.WALLET, Section.WORKSPACE, Section.CONTEXT));
        s.put(TriggerAction.WEB3_CONTRACT_CALL, List.of(Section.PRINCIPAL, Section.RESOURCE, Section.CONTEXT));
        SECTIONS = Collections.unmodifiableMap(s);
    }

    private FieldSchema() {}

    private static FieldSpec field(Section s, String n, FieldType t, String d) {
        return new FieldSpec(s, n, t, false, false, List.of(), d);
    }

    private static FieldSpec amount(Section s, String n, FieldType t, String d) {
        return new FieldSpec(s, n, t, false, true, List.of(), d);
    }

    private static FieldSpec optional(Section s, String n, FieldType t, String d) {
        return new FieldSpec(s, n, t, true, false, List.of(), d);
    }

    /** The sections a condition of this action may read, in the spec's order. */
    public static List<Section> sections(TriggerAction action) {
        return SECTIONS.get(action);
    }

    /** Whether conditions of this action may read this section. */
    public static boolean hasSection(TriggerAction action, Section section) {
        return SECTIONS.get(action).contains(section);
    }

    /** The fields of a section, in the spec's order. */
    public static List<FieldSpec> fields(Section section) {
        return FIELDS.get(section);
    }

    /** The field {@code section.name}, or empty when the section has no such field. */
    public static Optional<FieldSpec> field(Section section, String name) {
        for (FieldSpec f : FIELDS.get(section)) {
            if (f.name().equals(name)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /**
     * The field at a dotted path such as {@code withdrawal.value_usd}, provided the action offers its
     * section.
     */
    public static Optional<FieldSpec> field(TriggerAction action, String path) {
        int dot = path.indexOf('.');
        if (dot < 0) {
            return Optional.empty();
        }
        return Section.fromWireName(path.substring(0, dot))
                .filter(s -> hasSection(action, s))
                .flatMap(s -> field(s, path.substring(dot + 1)));
    }

    /** Every field an action offers, section by section, in the spec's order. */
    public static List<FieldSpec> fields(TriggerAction action) {
        List<FieldSpec> all = new ArrayList<>();
        for (Section s : sections(action)) {
            all.addAll(FIELDS.get(s));
        }
        return List.copyOf(all);
    }

    /**
     * The schema as plain maps and lists, exactly the {@code data} of {@code GET /policy/schema}: an
     * object keyed by trigger action, each value an object keyed by section, each section an array of
     * {@code {name, type, enum?}}.
     */
    public static Map<String, Object> asData() {
        Map<String, Object> data = new LinkedHashMap<>();
        for (TriggerAction a : TriggerAction.values()) {
            Map<String, Object> sections = new LinkedHashMap<>();
            for (Section s : sections(a)) {
                List<Object> fields = new ArrayList<>();
                for (FieldSpec f : FIELDS.get(s)) {
                    Map<String, Object> field = new LinkedHashMap<>();
                    field.put("name", f.name());
                    field.put("type", f.type().wireName());
                    if (!f.enumValues().isEmpty()) {
                        field.put("enum", f.enumValues());
                    }
                    fields.add(Collections.unmodifiableMap(field));
                }
                sections.put(s.wireName(), List.copyOf(fields));
            }
            data.put(a.wireName(), Collections.unmodifiableMap(sections));
        }
        return Collections.unmodifiableMap(data);
    }

    /** {@link #asData()} as compact JSON text. */
    public static String toJson() {
        StringBuilder out = new StringBuilder(2048);
        Json.write(asData(), out);
        return out.toString();
    }
}

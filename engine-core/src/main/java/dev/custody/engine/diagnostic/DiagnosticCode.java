package dev.custody.engine.diagnostic;

import java.util.Locale;

/**
 * Stable diagnostic codes. They appear in JSON, SARIF and GitHub output, and scripts match on them:
 * a code never changes meaning, and new codes are only added.
 */
public enum DiagnosticCode {
    // ---- conditions ----
    /** The condition does not parse. */
    SYNTAX_ERROR,
    /** A field, or a section, that the trigger action does not offer. */
    UNKNOWN_FIELD,
    /** A function or macro that does not exist. */
    UNKNOWN_FUNCTION,
    /** An operator or function applied to values of the wrong types. */
    TYPE_MISMATCH,
    /** The condition's result is not a boolean. */
    NOT_BOOLEAN,
    /** A read of a {@code resource.decoded_args} key not guarded by {@code has()}. */
    UNGUARDED_DYNAMIC_READ,
    /** A read of an optional field not guarded by {@code has()} (a warning). */
    UNGUARDED_OPTIONAL_READ,
    /** A comparison with a string that the field never takes (a warning), e.g. a role that does not exist. */
    UNKNOWN_ENUM_VALUE,
    /** A constant pattern given to {@code matches} is not a valid (RE2) regular expression. */
    INVALID_REGEX,
    /** The condition is empty. */
    EMPTY_CONDITION,
    /** A text is longer than its limit (condition, name, description). */
    TOO_LONG,
    /** A text is shorter than its limit (policy name). */
    TOO_SHORT,
    /** The condition nests deeper than the parser allows. */
    TOO_DEEP,
    /** The effect is not {@code ALLOW} or {@code DENY}. */
    INVALID_EFFECT,
    /** The trigger action is not {@code withdrawal.create} or {@code web3.contract_call}. */
    INVALID_TRIGGER_ACTION,
    /**
     * The condition's worst-case cost (its static estimate, docs/design.md §3.15) exceeds the cost limit, or is
     * unbounded: on some valid payloads it would be stopped and the decision denied ({@code cost_budget}). A warning.
     */
    COST_EXCEEDS_LIMIT,
    // ---- policies ----
    /** A required field is missing. */
    MISSING_FIELD,
    /** A value has the wrong JSON type (e.g. a number where a string belongs). */
    INVALID_TYPE,
    /** A value that must be a UUID is not one. */
    INVALID_UUID,
    /** The policy status is not one of pending, active, inactive, rejected. */
    INVALID_STATUS,
    /** More rules or wallet ids than the limit allows. */
    TOO_MANY,
    /** A property the policy format does not define (often a typo such as {@code is_enable}). */
    UNKNOWN_PROPERTY,
    /** Two rules, or two policies, share an id. */
    DUPLICATE_ID,
    /** An update tries to change a field that cannot change (a rule's trigger action). */
    IMMUTABLE_FIELD,
    /** The file is not well-formed JSON or YAML, or not a policy document. */
    PARSE_ERROR;

    /** The wire id, e.g. {@code "unknown_field"}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package dev.custody.cli.command;

import dev.custody.cli.Style;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import java.util.EnumMap;
import java.util.Map;

/** Presentation of diagnostics shared by the commands: colour, and a short description of every code (SARIF rules). */
final class Diagnostics {
    private static final Map<DiagnosticCode, String> DESCRIPTIONS = descriptions();

    private Diagnostics() {}

    /** Colours the leading {@code error[code]} / {@code warning[code]} of a rendered diagnostic. */
    static String colourHead(Diagnostic d, String rendered, Style style) {
        String head = d.severity().wireName() + "[" + d.code().id() + "]";
        return rendered.startsWith(head) ? style.severity(d.severity(), head) + rendered.substring(head.length()) : rendered;
    }

    /** One sentence saying what a code means (codes added to the engine later read as their id). */
    static String describe(DiagnosticCode code) {
        String d = DESCRIPTIONS.get(code);
        if (d != null) {
            return d;
        }
        String words = code.id().replace('_', ' ');
        return Character.toUpperCase(words.charAt(0)) + words.substring(1) + ".";
    }

    private static Map<DiagnosticCode, String> descriptions() {
        Map<DiagnosticCode, String> m = new EnumMap<>(DiagnosticCode.class);
        m.put(DiagnosticCode.SYNTAX_ERROR, "The condition does not parse.");
        m.put(DiagnosticCode.UNKNOWN_FIELD, "A field or section that the trigger action does not offer.");
        m.put(DiagnosticCode.UNKNOWN_FUNCTION, "A function or macro that does not exist.");
        m.put(DiagnosticCode.TYPE_MISMATCH, "An operator or function applied to values of the wrong types.");
        m.put(DiagnosticCode.NOT_BOOLEAN, "The condition's result is not a boolean.");
        m.put(DiagnosticCode.UNGUARDED_DYNAMIC_READ, "A read of a resource.decoded_args key not guarded by has().");
        m.put(DiagnosticCode.UNGUARDED_OPTIONAL_READ,
                "A read of an optional field not guarded by has(): it fails closed when the field is absent.");
        m.put(DiagnosticCode.UNKNOWN_ENUM_VALUE, "A comparison with a value the field never takes, so it is always false.");
        m.put(DiagnosticCode.EMPTY_CONDITION, "The condition is empty.");
        m.put(DiagnosticCode.TOO_LONG, "A text is longer than its limit.");
        m.put(DiagnosticCode.TOO_SHORT, "A text is shorter than its limit.");
        m.put(DiagnosticCode.TOO_DEEP, "The condition nests deeper than the parser allows.");
        m.put(DiagnosticCode.INVALID_EFFECT, "The effect is not ALLOW or DENY.");
        m.put(DiagnosticCode.INVALID_TRIGGER_ACTION, "The trigger action is not withdrawal.create or web3.contract_call.");
        m.put(DiagnosticCode.MISSING_FIELD, "A required field is missing.");
        m.put(DiagnosticCode.INVALID_TYPE, "A value has the wrong JSON type.");
        m.put(DiagnosticCode.INVALID_UUID, "A value that must be a UUID is not one.");
        m.put(DiagnosticCode.INVALID_STATUS, "The policy status is not pending, active, inactive or rejected.");
        m.put(DiagnosticCode.TOO_MANY, "More rules or wallet ids than the limit allows.");
        m.put(DiagnosticCode.UNKNOWN_PROPERTY, "A property the policy format does not define.");
        m.put(DiagnosticCode.DUPLICATE_ID, "Two rules, or two policies, share an id.");
        m.put(DiagnosticCode.IMMUTABLE_FIELD, "An update tries to change a field that cannot change.");
        m.put(DiagnosticCode.PARSE_ERROR, "The file is not well-formed JSON or YAML, or not a policy document.");
        return m;
    }
}

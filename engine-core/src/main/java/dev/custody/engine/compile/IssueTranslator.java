package dev.custody.engine.compile;

import dev.custody.engine.internal.access.ClassPathReads;
import dev.cel.checker.CelStandardDeclarations.StandardFunction;
import dev.cel.common.CelIssue;
import dev.cel.common.Operator;
import dev.cel.common.ast.CelExpr;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.text.Suggestions;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns cel-java's issues into our {@link Diagnostic}s: a stable code, a one-line lowercase message with
 * user input in backticks and CEL's type names replaced by the schema's, the position of the offending
 * token, and a hint. Stateless and thread-safe.
 */
final class IssueTranslator {
    static {
        ClassPathReads.ensure(); // before this class links any cel-java type (module-info.java)
    }

    private static final Pattern UNDEFINED_FIELD = Pattern.compile("undefined field '([^']*)'");
    private static final Pattern UNDECLARED = Pattern.compile("undeclared reference to '([^']*)'.*");
    private static final Pattern NO_OVERLOAD =
            Pattern.compile("found no matching overload for '([^']*)' applied to '\\((.*?)\\)'.*");
    private static final Pattern FIELD_OF_UNKNOWN_MESSAGE =
            Pattern.compile("[Mm]essage type resolution failure while referencing field '([^']*)'.*");
    private static final Pattern EXPECTED_BOOL = Pattern.compile("expected type 'bool' but found '(.*)'");
    private static final Pattern MISMATCHED = Pattern.compile("(?:mismatched|extraneous) input '(.*?)' expecting (.*)");
    private static final Pattern NO_VIABLE = Pattern.compile("no viable alternative at input '(.*)'");
    private static final Pattern TOKEN = Pattern.compile("token recognition error at: '(.*)'");
    private static final Pattern MISSING = Pattern.compile("missing (.*?) at '(.*)'");
    private static final Pattern QUOTED = Pattern.compile("'([^']*)'");

    /** Functions and macros of the standard environment, for "did you mean". */
    static final List<String> FUNCTIONS = functions();

    /** The macros, then the standard functions, by cel-java's names. */
    private static List<String> functions() {
        List<String> out = new ArrayList<>();
        for (Operator macro : List.of(Operator.HAS, Operator.ALL, Operator.EXISTS, Operator.EXISTS_ONE, Operator.MAP,
                Operator.FILTER)) {
            out.add(macro.getFunction());
        }
        for (StandardFunction f : List.of(StandardFunction.SIZE, StandardFunction.CONTAINS, StandardFunction.STARTS_WITH,
                StandardFunction.ENDS_WITH, StandardFunction.MATCHES, StandardFunction.INT, StandardFunction.UINT,
                StandardFunction.DOUBLE, StandardFunction.STRING, StandardFunction.BOOL, StandardFunction.BYTES,
                StandardFunction.TIMESTAMP, StandardFunction.DURATION, StandardFunction.TYPE, StandardFunction.DYN,
                StandardFunction.GET_FULL_YEAR, StandardFunction.GET_MONTH, StandardFunction.GET_DAY_OF_MONTH,
                StandardFunction.GET_DAY_OF_WEEK, StandardFunction.GET_HOURS, StandardFunction.GET_MINUTES,
                StandardFunction.GET_SECONDS)) {
            out.add(f.functionName());
        }
        return List.copyOf(out);
    }

    private IssueTranslator() {}

    /** A parse-phase issue. */
    static Diagnostic parseIssue(CelIssue issue, SourcePositions src) {
        String m = issue.getMessage();
        int[] lc = position(issue, src);
        if (m.contains("recursion limit")) {
            return Diagnostic.error(DiagnosticCode.TOO_DEEP, "condition nests too deeply",
                    "split it into simpler conditions or several rules", lc[0], lc[1]);
        }
        if (m.contains("code point size")) {
            return Diagnostic.error(DiagnosticCode.TOO_LONG, "condition is longer than 4000 characters", null, 1, 1);
        }
        Matcher x;
        String message;
        String hint = null;
        if ((x = MISMATCHED.matcher(m)).matches()) {
            message = unexpected(x.group(1));
            hint = "expected " + tokens(x.group(2));
        } else if ((x = NO_VIABLE.matcher(m)).matches()) {
            String input = x.group(1);
            message = input.isEmpty() ? "syntax error: incomplete condition" : "syntax error near `" + clip(input) + "`";
        } else if ((x = TOKEN.matcher(m)).matches()) {
            String bad = x.group(1);
            if (bad.startsWith("'") || bad.startsWith("\"")) {
                message = "syntax error: string literal is not closed";
                hint = "end it with a matching " + bad.charAt(0);
            } else {
                message = "syntax error: unexpected character `" + bad.strip() + "`";
            }
        } else if ((x = MISSING.matcher(m)).matches()) {
            message = "syntax error: missing `" + stripQuotes(x.group(1)) + "` before " + tokenName(x.group(2));
        } else {
            message = "syntax error: " + style(m);
        }
        return Diagnostic.error(DiagnosticCode.SYNTAX_ERROR, message, hint, lc[0], lc[1]);
    }

    /** A check-phase issue; {@code parsed} is the parsed (unchecked) expression tree. */
    static Diagnostic checkIssue(CelIssue issue, SourcePositions src, TriggerAction action, CelExpr parsed,
            Map<Long, Integer> positions) {
        String m = issue.getMessage();
        Optional<CelExpr> expr = find(parsed, issue.getExprId());
        int offset = positions.containsKey(issue.getExprId())
                ? positions.get(issue.getExprId())
                : src.offset(issue.getSourceLocation().getLine(), issue.getSourceLocation().getColumn());
        Matcher x;
        if ((x = UNDEFINED_FIELD.matcher(m)).matches()) {
            String field = x.group(1);
            String sectionName = expr.filter(e -> e.getKind() == CelExpr.ExprKind.Kind.SELECT)
                    .map(e -> ConditionAnalyzer.path(e.select().operand())).orElse(null);
            int[] lc = src.lineColumn(src.fieldNameAfterDot(offset));
            Optional<Section> section = sectionName == null ? Optional.empty() : Section.fromWireName(sectionName);
            if (section.isPresent()) {
                List<String> names = FieldSchema.fields(section.get()).stream().map(FieldSpec::name).toList();
                String hint = Suggestions.closest(field, names)
                        .map(s -> "did you mean `" + sectionName + "." + s + "`?")
                        .orElse("fields of `" + sectionName + "`: " + String.join(", ", names));
                return Diagnostic.error(DiagnosticCode.UNKNOWN_FIELD,
                        "unknown field `" + sectionName + "." + field + "`", hint, lc[0], lc[1]);
            }
            return Diagnostic.error(DiagnosticCode.UNKNOWN_FIELD, "unknown field `" + field + "`", null, lc[0], lc[1]);
        }
        if ((x = UNDECLARED.matcher(m)).matches()) {
            // a leading dot names from the root scope (`.withdrawal.value_usd` is `withdrawal.value_usd`)
            String name = x.group(1).startsWith(".") ? x.group(1).substring(1) : x.group(1);
            int[] lc = src.lineColumn(offset);
            if (expr.map(e -> e.getKind() == CelExpr.ExprKind.Kind.STRUCT).orElse(false)) {
                // `google.protobuf.BoolValue{value: true}`: CEL's message construction, of a type no condition has
                return Diagnostic.error(DiagnosticCode.UNKNOWN_FIELD, "message type `" + name + "` is not available: "
                        + "a condition cannot build protobuf messages",
                        "write the value itself: `true`, `1`, `'text'`, a list `[...]` or a map `{...}`", lc[0], lc[1]);
            }
            boolean isCall = expr.map(e -> e.getKind() == CelExpr.ExprKind.Kind.CALL).orElse(false);
            if (isCall) {
                String hint = Suggestions.closest(name, FUNCTIONS).map(s -> "did you mean `" + s + "`?").orElse(null);
                return Diagnostic.error(DiagnosticCode.UNKNOWN_FUNCTION, "unknown function `" + name + "`", hint,
                        lc[0], lc[1]);
            }
            String first = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
            List<String> sections = FieldSchema.sections(action).stream().map(Section::wireName).toList();
            Optional<Section> other = Section.fromWireName(first);
            if (other.isPresent()) {
                List<String> owners = new ArrayList<>();
                for (TriggerAction a : TriggerAction.values()) {
                    if (FieldSchema.hasSection(a, other.get())) {
                        owners.add("`" + a.wireName() + "`");
                    }
                }
                return Diagnostic.error(DiagnosticCode.UNKNOWN_FIELD,
                        "section `" + first + "` is not available for `" + action.wireName() + "`",
                        "`" + first + "` belongs to " + String.join(", ", owners) + " rules; sections of `"
                                + action.wireName() + "`: " + String.join(", ", sections),
                        lc[0], lc[1]);
            }
            String hint = Suggestions.closest(first, sections).map(s -> "did you mean `" + s + "`?")
                    .orElse("sections of `" + action.wireName() + "`: " + String.join(", ", sections));
            return Diagnostic.error(DiagnosticCode.UNKNOWN_FIELD, "unknown section `" + first + "`", hint,
                    lc[0], lc[1]);
        }
        if ((x = NO_OVERLOAD.matcher(m)).matches()) {
            String fn = x.group(1);
            String op = CelSemantics.symbol(fn).orElse(null);
            String types = typeNames(x.group(2));
            String message = op != null
                    ? "operator `" + op + "` cannot be applied to (" + types + ")"
                    : "function `" + fn + "` cannot be applied to (" + types + ")";
            int[] lc = src.lineColumn(offset);
            return Diagnostic.error(DiagnosticCode.TYPE_MISMATCH, message, operandHint(expr, action), lc[0], lc[1]);
        }
        if ((x = FIELD_OF_UNKNOWN_MESSAGE.matcher(m)).matches()) {
            // follows the message type above: its fields cannot be resolved either
            int[] lc = src.lineColumn(offset);
            return Diagnostic.error(DiagnosticCode.TYPE_MISMATCH, "field `" + x.group(1)
                    + "` belongs to a message type that is not available", null, lc[0], lc[1]);
        }
        if ((x = EXPECTED_BOOL.matcher(m)).matches()) {
            // the whole expression is at fault: point at its first token, not at the dot or operator
            // cel-java records for the root node
            int[] lc = src.lineColumn(expr.map(e -> startOffset(e, positions, offset)).orElse(offset));
            return Diagnostic.error(DiagnosticCode.NOT_BOOLEAN,
                    "condition must be a boolean, not " + typeNames(x.group(1)),
                    "compare the value, e.g. `withdrawal.value_usd > 10000`", lc[0], lc[1]);
        }
        int[] lc = src.lineColumn(offset);
        return Diagnostic.error(DiagnosticCode.TYPE_MISMATCH, style(m), null, lc[0], lc[1]);
    }

    /** The smallest recorded offset in {@code e}'s subtree: where the expression's first token is. */
    static int startOffset(CelExpr e, Map<Long, Integer> positions, int fallback) {
        int start = positions.getOrDefault(e.id(), fallback);
        List<CelExpr> children = new ArrayList<>();
        switch (e.getKind()) {
            case SELECT -> children.add(e.select().operand());
            case CALL -> {
                e.call().target().ifPresent(children::add);
                children.addAll(e.call().args());
            }
            case LIST -> children.addAll(e.list().elements());
            case MAP -> e.map().entries().forEach(x -> children.add(x.key()));
            case STRUCT -> e.struct().entries().forEach(x -> children.add(x.value()));
            case COMPREHENSION -> children.add(e.comprehension().iterRange());
            default -> {
            }
        }
        for (CelExpr c : children) {
            start = Math.min(start, startOffset(c, positions, start));
        }
        return start;
    }

    private static String operandHint(Optional<CelExpr> call, TriggerAction action) {
        if (call.isEmpty() || call.get().getKind() != CelExpr.ExprKind.Kind.CALL) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        List<CelExpr> operands = new ArrayList<>(call.get().call().args());
        call.get().call().target().ifPresent(operands::add);
        for (CelExpr a : operands) {
            String p = ConditionAnalyzer.path(a);
            if (p != null) {
                FieldSchema.field(action, p).ifPresent(f -> {
                    String t = "`" + f.path() + "` is " + article(f.type().wireName());
                    if (!f.enumValues().isEmpty()) {
                        t += " (" + String.join(", ", f.enumValues()) + ")";
                    }
                    parts.add(t);
                });
            }
        }
        return parts.isEmpty() ? null : String.join("; ", parts);
    }

    private static String article(String type) {
        return (type.startsWith("i") ? "an " : "a ") + type;
    }

    static Optional<CelExpr> find(CelExpr root, long id) {
        if (root == null) {
            return Optional.empty();
        }
        if (root.id() == id) {
            return Optional.of(root);
        }
        List<CelExpr> children = new ArrayList<>();
        switch (root.getKind()) {
            case SELECT -> children.add(root.select().operand());
            case CALL -> {
                root.call().target().ifPresent(children::add);
                children.addAll(root.call().args());
            }
            case LIST -> children.addAll(root.list().elements());
            case MAP -> root.map().entries().forEach(e -> {
                children.add(e.key());
                children.add(e.value());
            });
            case STRUCT -> root.struct().entries().forEach(e -> children.add(e.value()));
            case COMPREHENSION -> {
                var c = root.comprehension();
                children.add(c.iterRange());
                children.add(c.accuInit());
                children.add(c.loopCondition());
                children.add(c.loopStep());
                children.add(c.result());
            }
            default -> {
            }
        }
        for (CelExpr c : children) {
            Optional<CelExpr> f = find(c, id);
            if (f.isPresent()) {
                return f;
            }
        }
        return Optional.empty();
    }

    /** CEL type names as the schema names them: {@code double} → number, {@code int} → integer. */
    static String typeNames(String celTypes) {
        return celTypes.replaceAll("\\bdouble\\b", "number")
                .replaceAll("\\bint\\b", "integer")
                .replaceAll("\\bbool\\b", "boolean")
                .replaceAll("map\\(string, dyn\\)", "map")
                .replaceAll("\\bcustody\\.([A-Z])(\\w*)", "section")
                .replace(",", ", ")
                .replaceAll(",\\s+", ", ");
    }

    private static int[] position(CelIssue issue, SourcePositions src) {
        int line = Math.max(1, issue.getSourceLocation().getLine());
        int col0 = Math.max(0, issue.getSourceLocation().getColumn());
        return src.lineColumn(src.offset(line, col0));
    }

    private static String unexpected(String token) {
        return "syntax error: unexpected " + tokenName("'" + token + "'");
    }

    private static String tokenName(String quoted) {
        String t = stripQuotes(quoted);
        return t.equals("<EOF>") ? "end of condition" : "`" + clip(t) + "`";
    }

    private static String tokens(String expecting) {
        String s = expecting.replaceAll("^\\{|\\}$", "");
        List<String> out = new ArrayList<>();
        boolean value = false;
        for (String t : s.split(",\\s*")) {
            String v = stripQuotes(t.trim());
            switch (v) {
                case "" -> {
                }
                case "<EOF>" -> out.add("end of condition");
                case "NUM_FLOAT", "NUM_INT", "NUM_UINT", "STRING", "BYTES", "IDENTIFIER" -> value = true;
                default -> out.add("`" + v.replace("%%", "%") + "`");
            }
        }
        if (value) {
            return "a value: a field, a literal or a parenthesized expression";
        }
        return out.size() == 1 ? out.get(0) : "one of " + String.join(", ", out);
    }

    private static String stripQuotes(String s) {
        return s.length() >= 2 && s.startsWith("'") && s.endsWith("'") ? s.substring(1, s.length() - 1) : s;
    }

    /** Lowercase first letter, quotes to backticks, no final period. */
    static String style(String m) {
        String s = QUOTED.matcher(m).replaceAll(r -> Matcher.quoteReplacement("`" + r.group(1) + "`"));
        if (s.endsWith(".")) {
            s = s.substring(0, s.length() - 1);
        }
        if (!s.isEmpty() && Character.isUpperCase(s.charAt(0))
                && (s.length() == 1 || !Character.isUpperCase(s.charAt(1)))) {
            s = s.substring(0, 1).toLowerCase(Locale.ROOT) + s.substring(1);
        }
        return s.replace('\n', ' ');
    }

    private static String clip(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }
}

package dev.custody.cli.lsp;

import dev.custody.engine.files.SourceNode;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a position of a buffer stands, for completion and hover: inside a rule's condition (with the rule's
 * trigger action when it names a known one), at a key of a rule or of a policy, at the value of
 * {@code trigger_action} or {@code effect}, or elsewhere. A buffer that parses is read from its tree; one
 * that does not (mid-edit) from the text around the position: the condition key on the line or a block
 * scalar above it, the nearest {@code trigger_action}, the indentation (YAML) or the brackets (JSON) around a
 * key. Immutable.
 *
 * @param kind what the position is
 * @param action the trigger action of the rule, or null when it is unknown (then every section is offered)
 * @param offset the position's offset in the text
 */
record Cursor(Kind kind, TriggerAction action, int offset) {

    /** What a position is. */
    enum Kind { CONDITION, POLICY_KEY, RULE_KEY, TRIGGER_ACTION_VALUE, EFFECT_VALUE, NONE }

    private static final Pattern CONDITION_LINE =
            Pattern.compile("^\\s*(?:-\\s+)?([\"']?)condition\\1\\s*:\\s*(.*)$");
    private static final Pattern BLOCK_CONDITION =
            Pattern.compile("^(\\s*)(?:-\\s+)?condition\\s*:\\s*[|>][-+0-9]*\\s*(?:#.*)?$");
    private static final Pattern TRIGGER_ACTION =
            Pattern.compile("[\"']?trigger_action[\"']?\\s*:\\s*[\"']?([A-Za-z0-9_.]+)");
    private static final Pattern VALUE =
            Pattern.compile("^(?:.*[{,])?\\s*(?:-\\s+)?([\"']?)(trigger_action|effect)\\1\\s*:\\s*[\"']?([A-Za-z0-9_.]*)$");
    private static final Pattern YAML_KEY = Pattern.compile("^(\\s*)((?:-\\s+)*)([A-Za-z_]*)$");
    private static final Pattern JSON_KEY = Pattern.compile("^(?:.*[{,])?\\s*\"([A-Za-z_]*)$");
    private static final Pattern DASHES = Pattern.compile("^((?:-\\s+)*)");
    private static final Pattern YAML_PARENT =
            Pattern.compile("^\\s*(?:-\\s+)*([\"']?)([A-Za-z_]+)\\1\\s*:\\s*(?:#.*)?$");

    /** Where {@code offset} of {@code buffer} stands. */
    static Cursor at(PolicyBuffer buffer, int offset) {
        TextIndex index = buffer.index();
        int line = index.position(offset).getLine();
        String prefix = index.text().substring(index.lineStart(line), offset);
        Matcher v = VALUE.matcher(prefix);
        if (v.matches()) {
            return new Cursor(v.group(2).equals("effect") ? Kind.EFFECT_VALUE : Kind.TRIGGER_ACTION_VALUE, null, offset);
        }
        if (buffer.root() != null) {
            Optional<Cursor> c = condition(buffer, buffer.root(), offset);
            if (c.isPresent()) {
                return c.get();
            }
        } else if (inConditionText(index, line, prefix)) {
            return new Cursor(Kind.CONDITION, nearestTriggerAction(index.text(), offset), offset);
        }
        Kind key = buffer.json() ? jsonKey(buffer, offset, prefix) : yamlKey(buffer, index, line, prefix);
        return new Cursor(key, null, offset);
    }

    /** The condition scalar of the tree that holds the offset, with its rule's trigger action. */
    private static Optional<Cursor> condition(PolicyBuffer buffer, SourceNode node, int offset) {
        if (node instanceof SourceNode.ObjectNode o) {
            if (o.fields().get("condition") instanceof SourceNode.ScalarNode s && holds(buffer.text(), s, offset)) {
                TriggerAction action = null;
                if (o.fields().get("trigger_action") instanceof SourceNode.ScalarNode t && t.value() instanceof String a) {
                    action = TriggerAction.fromWireName(a).orElse(null);
                }
                return Optional.of(new Cursor(Kind.CONDITION, action, offset));
            }
            for (SourceNode child : o.fields().values()) {
                Optional<Cursor> c = condition(buffer, child, offset);
                if (c.isPresent()) {
                    return c;
                }
            }
        } else if (node instanceof SourceNode.ArrayNode a) {
            for (SourceNode child : a.items()) {
                Optional<Cursor> c = condition(buffer, child, offset);
                if (c.isPresent()) {
                    return c;
                }
            }
        }
        return Optional.empty();
    }

    /** Whether an offset is inside a scalar: between its quotes, or anywhere in a plain or block scalar. */
    private static boolean holds(String text, SourceNode.ScalarNode s, int offset) {
        if (s.end() <= s.start()) {
            return false;
        }
        char first = text.charAt(s.start());
        if (first == '"' || first == '\'') {
            return offset > s.start() && offset < s.end();
        }
        return offset >= s.start() && offset <= s.end();
    }

    /** Mid-edit: the condition key on this line, or a {@code condition: |} block above holding this line. */
    private static boolean inConditionText(TextIndex index, int line, String prefix) {
        if (CONDITION_LINE.matcher(prefix).matches()) {
            return true;
        }
        int indent = indent(prefix.isBlank() ? index.line(line) : prefix);
        for (int l = line - 1; l >= 0; l--) {
            String text = index.line(l);
            if (text.isBlank()) {
                continue;
            }
            Matcher b = BLOCK_CONDITION.matcher(text);
            if (b.matches()) {
                return indent(text) < indent;
            }
            if (indent(text) < indent) {
                continue;
            }
            return false;
        }
        return false;
    }

    private static int indent(String s) {
        int i = 0;
        while (i < s.length() && s.charAt(i) == ' ') {
            i++;
        }
        return i;
    }

    /** The value of the last {@code trigger_action} before the offset, else of the first after it, else null. */
    static TriggerAction nearestTriggerAction(String text, int offset) {
        Matcher m = TRIGGER_ACTION.matcher(text);
        String before = null;
        String after = null;
        while (m.find()) {
            if (m.start() < offset) {
                before = m.group(1);
            } else if (after == null) {
                after = m.group(1);
            }
        }
        String name = before != null ? before : after;
        return name == null ? null : TriggerAction.fromWireName(name).orElse(null);
    }

    /** YAML: a key being typed, whose parent is the nearest less-indented key above. */
    private static Kind yamlKey(PolicyBuffer buffer, TextIndex index, int line, String prefix) {
        Matcher k = YAML_KEY.matcher(prefix);
        if (!k.matches()) {
            return Kind.NONE;
        }
        int indent = k.group(1).length() + k.group(2).length();
        for (int l = line - 1; l >= 0; l--) {
            String text = index.line(l);
            String trimmed = text.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            int lineIndent = indent(text) + leadingDashes(text.stripLeading());
            if (lineIndent >= indent) {
                continue;
            }
            Matcher p = YAML_PARENT.matcher(text);
            return p.matches() ? parentKind(p.group(2), buffer.testFile()) : Kind.NONE;
        }
        return buffer.testFile() ? Kind.NONE : Kind.POLICY_KEY;
    }

    /** The length of the {@code "- "} markers that open a line's (stripped) text. */
    private static int leadingDashes(String stripped) {
        Matcher m = DASHES.matcher(stripped);
        return m.find() ? m.group(1).length() : 0;
    }

    private static Kind parentKind(String key, boolean testFile) {
        return switch (key) {
            case "rules" -> Kind.RULE_KEY;
            case "data" -> Kind.POLICY_KEY;
            case "policies" -> testFile ? Kind.POLICY_KEY : Kind.NONE;
            default -> Kind.NONE;
        };
    }

    /** JSON: a key being typed ({@code "na}); its object's parent is found by matching brackets from the top. */
    private static Kind jsonKey(PolicyBuffer buffer, int offset, String prefix) {
        Matcher k = JSON_KEY.matcher(prefix);
        if (!k.matches()) {
            return Kind.NONE;
        }
        String text = buffer.text();
        int end = offset - k.group(1).length() - 1; // the opening quote of the key being typed
        record Open(char bracket, String key) {}
        Deque<Open> stack = new ArrayDeque<>();
        String lastString = null;
        boolean afterColon = false;
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (c == '"') {
                int j = i + 1;
                StringBuilder s = new StringBuilder();
                while (j < end && text.charAt(j) != '"') {
                    if (text.charAt(j) == '\\') {
                        j++;
                    } else {
                        s.append(text.charAt(j));
                    }
                    j++;
                }
                lastString = s.toString();
                i = j;
                continue;
            }
            switch (c) {
                case ':' -> afterColon = true;
                case '{', '[' -> {
                    stack.push(new Open(c, afterColon ? lastString : null));
                    afterColon = false;
                }
                case '}', ']' -> {
                    if (!stack.isEmpty()) {
                        stack.pop();
                    }
                    afterColon = false;
                }
                case ',' -> afterColon = false;
                default -> { }
            }
        }
        if (stack.isEmpty() || stack.peek().bracket() != '{') {
            return Kind.NONE;
        }
        stack.pop();
        if (stack.isEmpty()) {
            return buffer.testFile() ? Kind.NONE : Kind.POLICY_KEY;
        }
        Open parent = stack.pop();
        if (parent.bracket() != '[') {
            return Kind.NONE;
        }
        if (parent.key() == null) {
            return stack.isEmpty() && !buffer.testFile() ? Kind.POLICY_KEY : Kind.NONE;
        }
        return parentKind(parent.key(), buffer.testFile());
    }
}

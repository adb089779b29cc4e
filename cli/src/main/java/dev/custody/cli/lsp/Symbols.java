package dev.custody.cli.lsp;

import dev.custody.engine.files.SourceNode;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.files.SourcedPolicy;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.lsp4j.DocumentSymbol;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.SymbolKind;

/**
 * Document symbols of a policy file: each policy (named by its name, else its id; detail: its id) with its
 * rules as children (named by rule id, derived as lint derives it when absent; detail: effect and trigger
 * action). A symbol's range runs from its object's first character to its last value's last character (to
 * the closing brace in JSON); its selection range is its {@code id}/{@code rule_id} value when given. A text that does not
 * parse has no symbols. Stateless and thread-safe.
 */
final class Symbols {
    private Symbols() {}

    static List<DocumentSymbol> of(PolicyBuffer buffer) {
        if (buffer.root() == null || buffer.testFile()) {
            return List.of();
        }
        PolicyDocument doc = PolicyReader.parse(buffer.text(), buffer.name());
        List<DocumentSymbol> out = new ArrayList<>();
        for (SourcedPolicy sp : doc.policies()) {
            Policy p = sp.policy();
            List<DocumentSymbol> rules = new ArrayList<>();
            if (sp.node() instanceof SourceNode.ObjectNode o && o.fields().get("rules") instanceof SourceNode.ArrayNode a) {
                for (int i = 0; i < a.items().size() && i < p.rules().size(); i++) {
                    Rule r = p.rules().get(i);
                    String detail = orUnknown(r.effect()) + " " + orUnknown(r.triggerAction());
                    rules.add(symbol(buffer, a.items().get(i), "rule_id", r.ruleId(), detail, SymbolKind.Event,
                            List.of()));
                }
            }
            String name = p.name() != null ? p.name() : p.id();
            out.add(symbol(buffer, sp.node(), "id", name, p.id(), SymbolKind.Module, rules));
        }
        return out;
    }

    private static String orUnknown(String s) {
        return s == null ? "?" : s;
    }

    private static DocumentSymbol symbol(PolicyBuffer buffer, SourceNode node, String idKey, String name,
            String detail, SymbolKind kind, List<DocumentSymbol> children) {
        TextIndex index = buffer.index();
        int start = index.offset(node.line(), node.column());
        Range range = index.range(start, end(buffer.text(), node, start));
        Range selection = index.range(start, start);
        if (node instanceof SourceNode.ObjectNode o && o.fields().get(idKey) instanceof SourceNode.ScalarNode s
                && s.end() > s.start()) {
            selection = index.range(s.start(), s.end());
        }
        DocumentSymbol symbol = new DocumentSymbol(name, kind, range, selection, detail);
        symbol.setChildren(children);
        return symbol;
    }

    /** The offset past a node: its closing bracket in JSON, else the end of its last key or value. */
    private static int end(String text, SourceNode node, int start) {
        if (start < text.length() && (text.charAt(start) == '{' || text.charAt(start) == '[')) {
            int depth = 0;
            for (int i = start; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '"') {
                    i++;
                    while (i < text.length() && text.charAt(i) != '"') {
                        i += text.charAt(i) == '\\' ? 2 : 1;
                    }
                } else if (c == '{' || c == '[') {
                    depth++;
                } else if ((c == '}' || c == ']') && --depth == 0) {
                    return i + 1;
                }
            }
            return text.length();
        }
        // a block scalar's source ends past its last line break: end the symbol on its last character
        int end = Math.max(start, lastEnd(node));
        while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
            end--;
        }
        return end;
    }

    private static int lastEnd(SourceNode node) {
        if (node instanceof SourceNode.ScalarNode s) {
            return s.end();
        }
        int end = 0;
        if (node instanceof SourceNode.ObjectNode o) {
            for (SourceNode.ScalarNode k : o.keys().values()) {
                end = Math.max(end, k.end());
            }
            for (SourceNode v : o.fields().values()) {
                end = Math.max(end, lastEnd(v));
            }
        } else if (node instanceof SourceNode.ArrayNode a) {
            for (SourceNode v : a.items()) {
                end = Math.max(end, lastEnd(v));
            }
        }
        return end;
    }
}

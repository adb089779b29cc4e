package dev.custody.cli.lsp;

import dev.custody.engine.files.PolicyReader;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.lsp4j.CompletionItem;
import org.eclipse.lsp4j.CompletionItemKind;
import org.eclipse.lsp4j.MarkupContent;
import org.eclipse.lsp4j.MarkupKind;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.TextEdit;
import org.eclipse.lsp4j.jsonrpc.messages.Either;

/**
 * Completion items at a position: inside a condition, after {@code section.} the fields of that section (when
 * the rule's trigger action offers it), each with its type and optionality as detail and its meaning as
 * documentation, and at the start of a name the action's sections; at a rule's or a policy's keys the property
 * names; at {@code trigger_action:} and {@code effect:} their values. Every item replaces the part of the word
 * already typed. Stateless and thread-safe.
 */
final class Completions {
    private static final Pattern MEMBER =
            Pattern.compile("(?<![A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z0-9_]*)$");
    private static final Pattern WORD = Pattern.compile("(?<![A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_]*)?$");
    private static final Pattern VALUE_WORD = Pattern.compile("([A-Za-z0-9_.]*)$");

    private Completions() {}

    /** The items at an offset of a buffer; empty where nothing is known to fit. */
    static List<CompletionItem> at(PolicyBuffer buffer, int offset) {
        Cursor cursor = Cursor.at(buffer, offset);
        TextIndex index = buffer.index();
        String prefix = buffer.text().substring(index.lineStart(index.position(offset).getLine()), offset);
        return switch (cursor.kind()) {
            case CONDITION -> condition(index, prefix, cursor);
            case RULE_KEY -> words(index, prefix, offset, PolicyReader.ruleProperties(), CompletionItemKind.Property,
                    "rule property");
            case POLICY_KEY -> words(index, prefix, offset, PolicyReader.policyProperties(),
                    CompletionItemKind.Property, "policy property");
            case TRIGGER_ACTION_VALUE -> values(index, prefix, offset,
                    Arrays.stream(TriggerAction.values()).map(TriggerAction::wireName).toList(), "trigger action");
            case EFFECT_VALUE -> values(index, prefix, offset,
                    Arrays.stream(Effect.values()).map(Effect::name).toList(), "effect");
            case NONE -> List.of();
        };
    }

    private static List<CompletionItem> condition(TextIndex index, String prefix, Cursor cursor) {
        int offset = cursor.offset();
        Matcher m = MEMBER.matcher(prefix);
        if (m.find()) {
            Optional<Section> section = Section.fromWireName(m.group(1));
            if (section.isEmpty() || (cursor.action() != null && !FieldSchema.hasSection(cursor.action(), section.get()))) {
                return List.of();
            }
            Range range = index.range(offset - m.group(2).length(), offset);
            List<CompletionItem> out = new ArrayList<>();
            List<FieldSpec> fields = FieldSchema.fields(section.get());
            for (int i = 0; i < fields.size(); i++) {
                FieldSpec f = fields.get(i);
                CompletionItem item = item(f.name(), CompletionItemKind.Field, detail(f), range, i);
                item.setDocumentation(new MarkupContent(MarkupKind.MARKDOWN, Hovers.meaning(f)));
                out.add(item);
            }
            return out;
        }
        Matcher w = WORD.matcher(prefix);
        if (!w.find()) {
            return List.of();
        }
        String typed = w.group(1) == null ? "" : w.group(1);
        Range range = index.range(offset - typed.length(), offset);
        List<Section> sections = cursor.action() != null ? FieldSchema.sections(cursor.action())
                : Arrays.stream(Section.values()).toList();
        List<CompletionItem> out = new ArrayList<>();
        for (int i = 0; i < sections.size(); i++) {
            out.add(item(sections.get(i).wireName(), CompletionItemKind.Module, "section", range, i));
        }
        return out;
    }

    /** The type as the schema names it, and {@code optional} for a field a payload may leave out. */
    static String detail(FieldSpec f) {
        return f.type().wireName() + (f.optional() ? ", optional" : "");
    }

    private static List<CompletionItem> words(TextIndex index, String prefix, int offset, Collection<String> names,
            CompletionItemKind kind, String detail) {
        Matcher w = WORD.matcher(prefix);
        String typed = w.find() && w.group(1) != null ? w.group(1) : "";
        Range range = index.range(offset - typed.length(), offset);
        List<CompletionItem> out = new ArrayList<>();
        int i = 0;
        for (String name : names) {
            out.add(item(name, kind, detail, range, i++));
        }
        return out;
    }

    private static List<CompletionItem> values(TextIndex index, String prefix, int offset, List<String> values,
            String detail) {
        Matcher w = VALUE_WORD.matcher(prefix);
        String typed = w.find() ? w.group(1) : "";
        Range range = index.range(offset - typed.length(), offset);
        List<CompletionItem> out = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            out.add(item(values.get(i), CompletionItemKind.EnumMember, detail, range, i));
        }
        return out;
    }

    private static CompletionItem item(String label, CompletionItemKind kind, String detail, Range range, int order) {
        CompletionItem item = new CompletionItem(label);
        item.setKind(kind);
        item.setDetail(detail);
        item.setSortText(String.format("%02d", order));
        item.setFilterText(label);
        item.setTextEdit(Either.forLeft(new TextEdit(range, label)));
        return item;
    }
}

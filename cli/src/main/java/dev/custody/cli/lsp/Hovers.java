package dev.custody.cli.lsp;

import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.util.Optional;
import org.eclipse.lsp4j.Hover;
import org.eclipse.lsp4j.MarkupContent;
import org.eclipse.lsp4j.MarkupKind;

/**
 * Hover on a field path in a condition ({@code withdrawal.value_usd}, on either name): its type, whether it is
 * optional, and what it means, from the field schema; a section the rule's trigger action does not offer says
 * so. Stateless and thread-safe.
 */
final class Hovers {
    private Hovers() {}

    /** The hover at an offset, or null when the offset is not on a field path of a condition. */
    static Hover at(PolicyBuffer buffer, int offset) {
        Cursor cursor = Cursor.at(buffer, offset);
        if (cursor.kind() != Cursor.Kind.CONDITION) {
            return null;
        }
        String text = buffer.text();
        int start = offset;
        while (start > 0 && (PolicyBuffer.isIdentifier(text.charAt(start - 1)) || text.charAt(start - 1) == '.')) {
            start--;
        }
        int end = start;
        while (end < text.length() && (PolicyBuffer.isIdentifier(text.charAt(end)) || text.charAt(end) == '.')) {
            end++;
        }
        // the path is the section and the field: stop before a third name (decoded_args' keys)
        String word = text.substring(start, end);
        String[] parts = word.split("\\.", -1);
        if (parts.length < 2) {
            return null;
        }
        Optional<Section> section = Section.fromWireName(parts[0]);
        if (section.isEmpty()) {
            return null;
        }
        Optional<FieldSpec> field = FieldSchema.field(section.get(), parts[1]);
        if (field.isEmpty()) {
            return null;
        }
        int pathEnd = start + parts[0].length() + 1 + parts[1].length();
        if (offset > pathEnd) {
            return null;
        }
        FieldSpec f = field.get();
        StringBuilder s = new StringBuilder("`").append(f.path()).append("`: ").append(f.type().wireName())
                .append(f.optional() ? ", optional: guard reads with `has(" + f.path() + ")`" : ", required");
        TriggerAction action = cursor.action();
        if (action != null && !FieldSchema.hasSection(action, f.section())) {
            s.append("\n\nnot available in `").append(action.wireName()).append("` rules");
        }
        s.append("\n\n").append(meaning(f));
        Hover hover = new Hover(new MarkupContent(MarkupKind.MARKDOWN, s.toString()));
        hover.setRange(buffer.index().range(start, pathEnd));
        return hover;
    }

    /** What a field means: the schema's description, its sign and its values when they are fixed. */
    static String meaning(FieldSpec f) {
        StringBuilder s = new StringBuilder(f.description());
        if (f.nonNegative()) {
            s.append(" (never negative)");
        }
        if (!f.enumValues().isEmpty()) {
            s.append("; one of ").append(String.join(", ", f.enumValues().stream().map(v -> "`" + v + "`").toList()));
        }
        return s.toString();
    }
}

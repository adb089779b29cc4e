package dev.custody.cli.lsp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.lsp4j.CodeAction;
import org.eclipse.lsp4j.CodeActionKind;
import org.eclipse.lsp4j.Diagnostic;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.TextEdit;
import org.eclipse.lsp4j.WorkspaceEdit;

/**
 * Quick fixes: lint's "did you mean" hints of an unknown field or section, an unknown property, an invalid
 * effect or trigger action, as code actions that replace the offending token (inside its quotes) with the
 * suggestion. Only the buffer's own diagnostics are fixed, so an edit never rests on a client's stale copy.
 * Stateless and thread-safe.
 */
final class QuickFixes {
    private static final Set<String> FIXABLE =
            Set.of("unknown_field", "unknown_property", "invalid_effect", "invalid_trigger_action");
    private static final Pattern DID_YOU_MEAN = Pattern.compile("did you mean `([^`]+)`\\?");

    private QuickFixes() {}

    /** The fixes of the buffer's diagnostics that overlap a range, in the diagnostics' order. */
    static List<CodeAction> in(PolicyBuffer buffer, Range requested) {
        List<CodeAction> out = new ArrayList<>();
        for (Diagnostic d : buffer.diagnostics()) {
            String code = d.getCode() == null ? null : d.getCode().getLeft();
            if (!FIXABLE.contains(code) || !overlaps(d.getRange(), requested)
                    || !(d.getData() instanceof Map<?, ?> data) || !(data.get("hint") instanceof String hint)) {
                continue;
            }
            Matcher m = DID_YOU_MEAN.matcher(hint);
            if (!m.find()) {
                continue;
            }
            TextIndex index = buffer.index();
            int start = index.offset(d.getRange().getStart());
            int end = index.offset(d.getRange().getEnd());
            String token = buffer.text().substring(start, end);
            if (token.length() >= 2 && (token.charAt(0) == '"' || token.charAt(0) == '\'')
                    && token.charAt(token.length() - 1) == token.charAt(0)) {
                start++;
                end--;
                token = token.substring(1, token.length() - 1);
            }
            String suggestion = m.group(1);
            // an unknown field's token is the name after the dot; the hint gives the whole path
            if (!token.contains(".") && suggestion.contains(".")) {
                suggestion = suggestion.substring(suggestion.lastIndexOf('.') + 1);
            }
            if (token.isEmpty() || token.equals(suggestion)) {
                continue;
            }
            CodeAction action = new CodeAction("replace `" + token + "` with `" + suggestion + "`");
            action.setKind(CodeActionKind.QuickFix);
            action.setDiagnostics(List.of(d));
            action.setIsPreferred(true);
            action.setEdit(new WorkspaceEdit(Map.of(buffer.uri(),
                    List.of(new TextEdit(index.range(start, end), suggestion)))));
            out.add(action);
        }
        return out;
    }

    private static boolean overlaps(Range a, Range b) {
        return compare(a.getStart(), b.getEnd()) <= 0 && compare(b.getStart(), a.getEnd()) <= 0;
    }

    private static int compare(Position x, Position y) {
        return x.getLine() != y.getLine() ? Integer.compare(x.getLine(), y.getLine())
                : Integer.compare(x.getCharacter(), y.getCharacter());
    }
}

package dev.custody.engine.validate;

import dev.custody.engine.compile.CompiledCondition;
import dev.custody.engine.diagnostic.Diagnostic;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of validating one policy: every diagnostic (with JSON pointers such as
 * {@code /rules/3/condition}), and the compiled condition of each rule that compiled. Immutable and
 * thread-safe.
 *
 * @param diagnostics errors and warnings, sorted by pointer and position
 * @param compiled per rule index, the compiled condition, or null when the rule did not compile or was
 *     not compiled
 */
public record PolicyValidation(List<Diagnostic> diagnostics, List<CompiledCondition> compiled) {

    public PolicyValidation {
        diagnostics = List.copyOf(diagnostics);
        compiled = Collections.unmodifiableList(new ArrayList<>(compiled));
    }

    /** Whether the policy has no errors (warnings allowed). */
    public boolean valid() {
        return diagnostics.stream().noneMatch(Diagnostic::isError);
    }

    /** The errors only. */
    public List<Diagnostic> errors() {
        return diagnostics.stream().filter(Diagnostic::isError).toList();
    }

    /** The compiled condition of rule {@code index}, when it compiled. */
    public Optional<CompiledCondition> compiled(int index) {
        return index < compiled.size() ? Optional.ofNullable(compiled.get(index)) : Optional.empty();
    }
}

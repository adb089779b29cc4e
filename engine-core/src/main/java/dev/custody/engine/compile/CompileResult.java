package dev.custody.engine.compile;

import dev.custody.engine.diagnostic.Diagnostic;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of compiling a condition: a {@link CompiledCondition} with its warnings, or the errors
 * (and warnings) that make it invalid. Diagnostics are sorted by position. Immutable and thread-safe.
 */
public sealed interface CompileResult permits CompileResult.Success, CompileResult.Failure {

    /** Every diagnostic, errors and warnings, sorted by position. */
    List<Diagnostic> diagnostics();

    /** Whether the condition compiled (it may still have warnings). */
    default boolean valid() {
        return this instanceof Success;
    }

    /** The compiled condition, when valid. */
    default Optional<CompiledCondition> condition() {
        return this instanceof Success s ? Optional.of(s.compiled()) : Optional.empty();
    }

    /** The condition compiled; {@code diagnostics} holds only warnings. */
    record Success(CompiledCondition compiled, List<Diagnostic> diagnostics) implements CompileResult {
        public Success {
            Objects.requireNonNull(compiled, "compiled");
            diagnostics = List.copyOf(diagnostics);
        }
    }

    /** The condition is invalid; {@code diagnostics} holds at least one error. */
    record Failure(List<Diagnostic> diagnostics) implements CompileResult {
        public Failure {
            diagnostics = List.copyOf(diagnostics);
            if (diagnostics.stream().noneMatch(Diagnostic::isError)) {
                throw new IllegalArgumentException("a failure needs at least one error");
            }
        }
    }
}

package dev.custody.engine.files;

import dev.custody.engine.validate.PolicyValidator;
import dev.custody.engine.diagnostic.Diagnostic;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One policy file, read: its policies (in file order) and the problems found while reading it (malformed
 * JSON/YAML, wrong types, unknown properties), each placed at a line and column of the file.
 *
 * <p>A policy whose object had reading problems is still listed when it could be built (a wrong-typed
 * field reads as absent), so that validation can report the rest; {@link #valid()} is false then.
 *
 * <p>Immutable and thread-safe.
 */
public final class PolicyDocument {
    private final String file;
    private final TextLocator locator;
    private final SourceNode root;
    private final List<SourcedPolicy> policies;
    private final List<Finding> readErrors;

    PolicyDocument(String file, TextLocator locator, SourceNode root, List<SourcedPolicy> policies,
            List<Finding> readErrors) {
        this.file = Objects.requireNonNull(file, "file");
        this.locator = locator;
        this.root = root;
        this.policies = List.copyOf(policies);
        this.readErrors = List.copyOf(readErrors);
    }

    /** The file path as given. */
    public String file() {
        return file;
    }

    /** The policies, in file order. */
    public List<SourcedPolicy> policies() {
        return policies;
    }

    /** Problems found while reading (not validation): malformed file, wrong types, unknown properties. */
    public List<Finding> readErrors() {
        return readErrors;
    }

    /** Whether the file read without errors (its policies may still be invalid: see {@link PolicyValidator}). */
    public boolean valid() {
        return readErrors.stream().noneMatch(f -> f.diagnostic().isError());
    }

    /**
     * Places a diagnostic of one of this file's policies in the file. A diagnostic inside a condition lands
     * on the offending token (through escapes and YAML block scalars); any other lands on the value its
     * pointer names, or on the nearest enclosing value that exists (e.g. the policy object for a missing
     * field).
     */
    public Finding locate(SourcedPolicy policy, Diagnostic d) {
        String pointer = policy.pointer() + d.pointer();
        if (root == null) {
            return new Finding(file, pointer, 0, 0, d);
        }
        SourceNode node = root;
        for (String token : tokens(pointer)) {
            SourceNode next = child(node, token);
            if (next == null) {
                break;
            }
            node = next;
        }
        int[] at;
        if (d.line() > 0 && node instanceof SourceNode.ScalarNode s && s.value() instanceof String) {
            at = locator.locate(s, d.line(), d.column());
        } else {
            at = new int[] {node.line(), node.column()};
        }
        return new Finding(file, pointer, at[0], at[1], d);
    }

    /** Every finding of this file: read errors, then each policy's validation diagnostics, in file order. */
    public List<Finding> validate(PolicyValidator validator) {
        List<Finding> out = new ArrayList<>(readErrors);
        java.util.Set<String> reported = new java.util.HashSet<>();
        readErrors.forEach(f -> reported.add(f.pointer()));
        for (SourcedPolicy p : policies) {
            for (Diagnostic d : validator.validate(p.policy()).diagnostics()) {
                Finding f = locate(p, d);
                // a value already reported as mistyped reads as absent: do not report it twice
                if (!reported.contains(f.pointer())) {
                    out.add(f);
                }
            }
        }
        out.sort((a, b) -> a.line() != b.line() ? Integer.compare(a.line(), b.line())
                : Integer.compare(a.column(), b.column()));
        return out;
    }

    private static List<String> tokens(String pointer) {
        List<String> out = new ArrayList<>();
        if (pointer.isEmpty()) {
            return out;
        }
        for (String t : pointer.substring(1).split("/", -1)) {
            out.add(t.replace("~1", "/").replace("~0", "~"));
        }
        return out;
    }

    private static SourceNode child(SourceNode node, String token) {
        if (node instanceof SourceNode.ObjectNode o) {
            return o.fields().get(token);
        }
        if (node instanceof SourceNode.ArrayNode a) {
            try {
                int i = Integer.parseInt(token);
                return i >= 0 && i < a.items().size() ? a.items().get(i) : null;
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }
}

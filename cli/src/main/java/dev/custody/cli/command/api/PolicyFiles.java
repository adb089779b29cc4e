package dev.custody.cli.command.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;

/**
 * Reads one policy object from a policy file (DESIGN §4: JSON or YAML; one object, a one-element
 * array, or an API envelope whose {@code data} is one of those). Stateless.
 */
final class PolicyFiles {
    private PolicyFiles() {}

    /** The single policy of {@code file} as {@code type}; fields of another type are an input error (exit 1). */
    static <T> T read(Path file, Class<T> type) {
        try {
            return ApiLeaf.JSON.convertValue(singlePolicy(file), type);
        } catch (IllegalArgumentException e) {
            String detail = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
            throw new InputFileException("`" + file + "` is not a valid policy: " + detail.toLowerCase(java.util.Locale.ROOT),
                    false, e);
        }
    }

    /** The single policy object of {@code file}, or an {@link InputFileException} (exit 1) when there is not exactly one. */
    static JsonNode singlePolicy(Path file) {
        JsonNode root = ApiLeaf.readTree(file);
        if (root.isObject() && root.has("success") && root.has("data")) {
            root = root.get("data");
        }
        if (root.isArray()) {
            if (root.size() != 1) {
                throw new InputFileException("`" + file + "` holds " + root.size()
                        + " policies: this command takes exactly one", false, null);
            }
            root = root.get(0);
        }
        if (!root.isObject()) {
            throw new InputFileException("`" + file + "` does not hold a policy object", false, null);
        }
        return root;
    }
}

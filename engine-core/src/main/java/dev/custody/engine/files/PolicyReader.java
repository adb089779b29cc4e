package dev.custody.engine.files;

import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.DiagnosticCode;
import dev.custody.engine.text.Suggestions;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads policy files (docs/design.md §4): {@code .json}, {@code .yaml} or {@code .yml}, holding one policy object,
 * an array of them, or an API envelope whose {@code data} is one or an array.
 *
 * <p>A policy object is the create-policy body ({@code name}, {@code description}, {@code approval_group_id},
 * {@code wallet_ids}, {@code rules}) plus optional {@code id}, {@code status}, {@code version},
 * {@code workspace_id}, {@code created_at}, {@code updated_at}; a rule is ({@code trigger_action},
 * {@code condition}, {@code effect}, {@code description}, {@code is_enabled}) plus optional {@code rule_id}
 * (and the API's read-only {@code policy_id}, {@code created_at}, {@code updated_at}). Any other property is
 * an {@code unknown_property} error: a misspelt {@code is_enable: false} must not leave a rule silently
 * enabled. A value of the wrong type is an {@code invalid_type} error.
 *
 * <p>Ids: a policy without {@code id} is named after the file: its stem ({@code limits.yaml} → {@code limits})
 * when it is the file's only policy, else {@code <stem>/<position>}. A rule without {@code rule_id} gets
 * {@code <policy id>#<index>}. So attribution is stable as long as the file is.
 *
 * <p>Stateless and thread-safe.
 */
public final class PolicyReader {
    // sorted, so that a "did you mean" hint between two equally close keys is the same in every run (Set.of's
    // iteration order changes from one JVM to the next, and Suggestions.closest takes the first of a tie)
    private static final Set<String> POLICY_KEYS = sorted("id", "name", "description", "approval_group_id",
            "wallet_ids", "rules", "status", "version", "workspace_id", "created_at", "updated_at");
    private static final Set<String> RULE_KEYS = sorted("rule_id", "trigger_action", "condition", "effect",
            "description", "is_enabled", "policy_id", "created_at", "updated_at");
    private static final Set<String> ENVELOPE_KEYS = sorted("success", "message", "code", "data", "errors");

    private static Set<String> sorted(String... keys) {
        return java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(List.of(keys)));
    }

    /** The properties a policy object may carry, in alphabetical order (what editors complete). */
    public static java.util.SortedSet<String> policyProperties() {
        return java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(POLICY_KEYS));
    }

    /** The properties a rule object may carry, in alphabetical order (what editors complete). */
    public static java.util.SortedSet<String> ruleProperties() {
        return java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(RULE_KEYS));
    }

    private PolicyReader() {}

    /**
     * Reads a file. Content problems are findings of the document, text that is not UTF-8 included (a
     * {@code parse_error}, as for any file that does not read cleanly: the load fails, docs/design.md §4.1); only
     * a file that cannot be read throws.
     *
     * @throws IOException when the file cannot be read (missing, a directory, no permission)
     */
    public static PolicyDocument read(Path path) throws IOException {
        return parse(Files.readAllBytes(path), path.toString());
    }

    /**
     * Reads the bytes of a policy file as {@link #read(Path)} reads the file: bytes that are not UTF-8 are a
     * finding of the document. For a reader that got the file's bytes elsewhere (a Spark executor gets them
     * broadcast from the driver).
     *
     * @param fileName the file's name, for the format (by extension), derived ids and messages
     */
    public static PolicyDocument parse(byte[] bytes, String fileName) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            String name = fileName;
            Finding f = new Finding(name, "", 0, 0,
                    Diagnostic.at("", DiagnosticCode.PARSE_ERROR, "file is not UTF-8 text", "save it as UTF-8"));
            return new PolicyDocument(name, new TextLocator(""), null, List.of(), List.of(f));
        }
        return parse(text, fileName);
    }

    /** Reads policy text; {@code fileName} gives the format (by extension) and the stem for derived ids. */
    public static PolicyDocument parse(String text, String fileName) {
        if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
            text = text.substring(1);
        }
        TextLocator locator = new TextLocator(text);
        SourceNode root;
        try {
            root = DocumentParser.parse(text, fileName);
        } catch (DocumentException e) {
            Finding f = new Finding(fileName, "", e.line(), e.column(),
                    Diagnostic.at("", DiagnosticCode.PARSE_ERROR, e.getMessage(), null));
            return new PolicyDocument(fileName, locator, null, List.of(), List.of(f));
        }
        Reader reader = new Reader(fileName, stem(fileName));
        List<SourcedPolicy> policies = new ArrayList<>();
        SourceNode body = root;
        String base = "";
        if (root instanceof SourceNode.ObjectNode o && o.fields().containsKey("data") && !o.fields().containsKey("rules")
                && !o.fields().containsKey("name")) {
            for (String k : o.fields().keySet()) {
                if (!ENVELOPE_KEYS.contains(k)) {
                    reader.unknown(o, k, "", ENVELOPE_KEYS);
                }
            }
            body = o.fields().get("data");
            base = "/data";
        }
        if (body instanceof SourceNode.ArrayNode a) {
            for (int i = 0; i < a.items().size(); i++) {
                reader.policy(a.items().get(i), base + "/" + i, a.items().size() == 1 ? null : i, policies);
            }
            if (a.items().isEmpty()) {
                reader.error(base, a, DiagnosticCode.PARSE_ERROR, "file holds no policy", null);
            }
        } else {
            reader.policy(body, base, null, policies);
        }
        return new PolicyDocument(fileName, locator, root, policies, reader.errors);
    }

    private static String stem(String fileName) {
        String name = Path.of(fileName).getFileName() == null ? fileName : Path.of(fileName).getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    private static final class Reader {
        private final String file;
        private final String stem;
        private final List<Finding> errors = new ArrayList<>();

        Reader(String file, String stem) {
            this.file = file;
            this.stem = stem;
        }

        void policy(SourceNode node, String pointer, Integer position, List<SourcedPolicy> out) {
            if (!(node instanceof SourceNode.ObjectNode o)) {
                error(pointer, node, DiagnosticCode.INVALID_TYPE, "a policy must be an object, not " + node.typeName(),
                        null);
                return;
            }
            for (String k : o.fields().keySet()) {
                if (!POLICY_KEYS.contains(k)) {
                    unknown(o, k, pointer, POLICY_KEYS);
                }
            }
            String id = string(o, "id", pointer);
            if (id == null) {
                id = position == null ? stem : stem + "/" + position;
            }
            List<String> wallets = new ArrayList<>();
            SourceNode w = o.fields().get("wallet_ids");
            if (w instanceof SourceNode.ArrayNode a) {
                for (int i = 0; i < a.items().size(); i++) {
                    SourceNode item = a.items().get(i);
                    if (item instanceof SourceNode.ScalarNode s && s.value() instanceof String str) {
                        wallets.add(str);
                    } else {
                        error(pointer + "/wallet_ids/" + i, item, DiagnosticCode.INVALID_TYPE,
                                "a wallet id must be a string, not " + item.typeName(), null);
                    }
                }
            } else if (w != null && !isNull(w)) {
                error(pointer + "/wallet_ids", w, DiagnosticCode.INVALID_TYPE,
                        "`wallet_ids` must be an array, not " + w.typeName(), null);
            }
            List<Rule> rules = new ArrayList<>();
            SourceNode r = o.fields().get("rules");
            if (r instanceof SourceNode.ArrayNode a) {
                for (int i = 0; i < a.items().size(); i++) {
                    rules.add(rule(a.items().get(i), pointer + "/rules/" + i, id, i));
                }
            } else if (r != null && !isNull(r)) {
                error(pointer + "/rules", r, DiagnosticCode.INVALID_TYPE, "`rules` must be an array, not " + r.typeName(),
                        null);
            }
            Integer version = null;
            SourceNode v = o.fields().get("version");
            if (v instanceof SourceNode.ScalarNode s && s.value() instanceof Long l && l <= Integer.MAX_VALUE) {
                version = l.intValue();
            } else if (v != null && !isNull(v)) {
                error(pointer + "/version", v, DiagnosticCode.INVALID_TYPE, "`version` must be a whole number", null);
            }
            Policy policy = new Policy(id, string(o, "name", pointer), string(o, "description", pointer),
                    string(o, "approval_group_id", pointer), wallets, rules, string(o, "status", pointer), version,
                    string(o, "workspace_id", pointer), string(o, "created_at", pointer));
            string(o, "updated_at", pointer);
            out.add(new SourcedPolicy(policy, pointer, o));
        }

        Rule rule(SourceNode node, String pointer, String policyId, int index) {
            if (!(node instanceof SourceNode.ObjectNode o)) {
                error(pointer, node, DiagnosticCode.INVALID_TYPE, "a rule must be an object, not " + node.typeName(),
                        null);
                return new Rule(policyId + "#" + index, null, null, null, null, Boolean.FALSE);
            }
            for (String k : o.fields().keySet()) {
                if (!RULE_KEYS.contains(k)) {
                    unknown(o, k, pointer, RULE_KEYS);
                }
            }
            String ruleId = string(o, "rule_id", pointer);
            Boolean enabled = null;
            SourceNode e = o.fields().get("is_enabled");
            if (e instanceof SourceNode.ScalarNode s && s.value() instanceof Boolean b) {
                enabled = b;
            } else if (e != null && !isNull(e)) {
                error(pointer + "/is_enabled", e, DiagnosticCode.INVALID_TYPE,
                        "`is_enabled` must be true or false, not " + describe(e), null);
            }
            string(o, "policy_id", pointer);
            string(o, "created_at", pointer);
            string(o, "updated_at", pointer);
            return new Rule(ruleId != null ? ruleId : policyId + "#" + index, string(o, "trigger_action", pointer),
                    string(o, "condition", pointer), string(o, "effect", pointer), string(o, "description", pointer),
                    enabled);
        }

        String string(SourceNode.ObjectNode o, String key, String pointer) {
            SourceNode n = o.fields().get(key);
            if (n == null || isNull(n)) {
                return null;
            }
            if (n instanceof SourceNode.ScalarNode s && s.value() instanceof String str) {
                return str;
            }
            error(pointer + "/" + key, n, DiagnosticCode.INVALID_TYPE,
                    "`" + key + "` must be a string, not " + describe(n), null);
            return null;
        }

        void unknown(SourceNode.ObjectNode o, String key, String pointer, Set<String> known) {
            SourceNode.ScalarNode k = o.keys().get(key);
            String hint = Suggestions.closest(key, known).map(s -> "did you mean `" + s + "`?").orElse(null);
            Diagnostic d = Diagnostic.at(pointer + "/" + escape(key), DiagnosticCode.UNKNOWN_PROPERTY,
                    "unknown property `" + key + "`", hint);
            errors.add(new Finding(file, d.pointer(), k.line(), k.column(), d));
        }

        void error(String pointer, SourceNode at, DiagnosticCode code, String message, String hint) {
            errors.add(new Finding(file, pointer, at.line(), at.column(), Diagnostic.at(pointer, code, message, hint)));
        }

        private static boolean isNull(SourceNode n) {
            return n instanceof SourceNode.ScalarNode s && s.value() == null;
        }

        private static String describe(SourceNode n) {
            if (n instanceof SourceNode.ScalarNode s && s.value() instanceof String str) {
                return "the string `" + (str.length() > 40 ? str.substring(0, 37) + "..." : str) + "`";
            }
            return n.typeName();
        }

        private static String escape(String key) {
            return key.replace("~", "~0").replace("/", "~1");
        }
    }
}

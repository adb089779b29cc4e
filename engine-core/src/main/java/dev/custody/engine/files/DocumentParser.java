package dev.custody.engine.files;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import dev.custody.engine.text.JsonLimits;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.DumperOptions;

/**
 * Parses JSON and YAML text into {@link SourceNode}s that keep positions, refusing what a policy file must
 * not contain: duplicate keys (a second {@code effect} must not silently win), more than
 * {@value #MAX_DEPTH} levels of nesting, more than {@value #MAX_CHARS} characters, non-string keys, YAML
 * aliases beyond a small number (no "billion laughs"), and several YAML documents in one file.
 *
 * <p>Stateless and thread-safe.
 */
public final class DocumentParser {
    /** The largest document accepted, in characters. */
    public static final int MAX_CHARS = 10 * 1024 * 1024;
    /** The deepest nesting accepted. */
    public static final int MAX_DEPTH = 64;

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build();

    private DocumentParser() {}

    /** Whether a file name is YAML ({@code .yaml}, {@code .yml}); anything else is read as JSON. */
    public static boolean isYaml(String fileName) {
        String n = fileName.toLowerCase(Locale.ROOT);
        return n.endsWith(".yaml") || n.endsWith(".yml");
    }

    /** Parses {@code text} as YAML or JSON according to the file name. */
    public static SourceNode parse(String text, String fileName) throws DocumentException {
        return isYaml(fileName) ? parseYaml(text) : parseJson(text);
    }

    /** Parses JSON text. */
    public static SourceNode parseJson(String text) throws DocumentException {
        checkSize(text);
        try (JsonParser p = JSON.createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw new DocumentException("file is empty", 1, 1);
            }
            SourceNode root = json(p, t, 0);
            JsonToken extra = p.nextToken();
            if (extra != null) {
                JsonLocation l = p.currentTokenLocation();
                throw new DocumentException("unexpected content after the JSON value", l.getLineNr(), l.getColumnNr());
            }
            return root;
        } catch (JsonParseException e) {
            JsonLocation l = e.getLocation();
            throw new DocumentException("malformed JSON: " + jsonMessage(e), l == null ? 0 : l.getLineNr(),
                    l == null ? 0 : l.getColumnNr());
        } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
            String what = JsonLimits.describe(e);
            throw new DocumentException(what.startsWith("nested ") ? "JSON nests deeper than " + MAX_DEPTH + " levels"
                    : "malformed JSON: " + what, 0, 0);
        } catch (IOException e) {
            throw new DocumentException("malformed JSON: " + e.getClass().getSimpleName(), 0, 0);
        }
    }

    private static SourceNode json(JsonParser p, JsonToken t, int depth) throws IOException, DocumentException {
        JsonLocation l = p.currentTokenLocation();
        int line = l.getLineNr();
        int col = l.getColumnNr();
        int start = (int) l.getCharOffset();
        switch (t) {
            case START_OBJECT -> {
                Map<String, SourceNode> fields = new LinkedHashMap<>();
                Map<String, SourceNode.ScalarNode> keys = new LinkedHashMap<>();
                JsonToken n;
                while ((n = p.nextToken()) == JsonToken.FIELD_NAME) {
                    JsonLocation kl = p.currentTokenLocation();
                    String key = p.currentName();
                    keys.put(key, new SourceNode.ScalarNode(key, SourceNode.Style.DOUBLE_QUOTED,
                            (int) kl.getCharOffset(), (int) kl.getCharOffset(), kl.getLineNr(), kl.getColumnNr()));
                    fields.put(key, json(p, p.nextToken(), depth + 1));
                }
                return new SourceNode.ObjectNode(fields, keys, line, col);
            }
            case START_ARRAY -> {
                List<SourceNode> items = new ArrayList<>();
                JsonToken n;
                while ((n = p.nextToken()) != JsonToken.END_ARRAY) {
                    items.add(json(p, n, depth + 1));
                }
                return new SourceNode.ArrayNode(items, line, col);
            }
            case VALUE_STRING -> {
                String s = p.getText();
                int end = (int) p.currentLocation().getCharOffset();
                return new SourceNode.ScalarNode(s, SourceNode.Style.DOUBLE_QUOTED, start, end, line, col);
            }
            case VALUE_NUMBER_INT -> {
                Object v = p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? p.getBigIntegerValue()
                        : (Object) p.getLongValue();
                return new SourceNode.ScalarNode(v, SourceNode.Style.JSON_LITERAL, start, start, line, col);
            }
            case VALUE_NUMBER_FLOAT -> {
                BigDecimal d = p.getDecimalValue();
                return new SourceNode.ScalarNode(d.doubleValue(), SourceNode.Style.JSON_LITERAL, start, start, line, col);
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return new SourceNode.ScalarNode(t == JsonToken.VALUE_TRUE, SourceNode.Style.JSON_LITERAL, start, start,
                        line, col);
            }
            case VALUE_NULL -> {
                return new SourceNode.ScalarNode(null, SourceNode.Style.JSON_LITERAL, start, start, line, col);
            }
            default -> throw new DocumentException("unexpected JSON token " + t, line, col);
        }
    }

    private static String jsonMessage(JsonParseException e) {
        String m = e.getOriginalMessage();
        if (m == null) {
            return "unreadable";
        }
        // Jackson's "(start marker at [Source: …])" tail quotes the file itself (across lines): drop it
        m = m.replaceAll("(?s)\\s*\\(start marker at .*", "");
        int nl = m.indexOf('\n');
        if (nl >= 0) {
            m = m.substring(0, nl);
        }
        m = m.replaceAll("\\s*\\(for .*?\\)", "").replaceAll("'([^']*)'", "`$1`").replace("\"", "`");
        if (!m.isEmpty() && Character.isUpperCase(m.charAt(0))) {
            m = Character.toLowerCase(m.charAt(0)) + m.substring(1);
        }
        return m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
    }

    /** Parses YAML text (one document). */
    public static SourceNode parseYaml(String text) throws DocumentException {
        checkSize(text);
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(20);
        options.setNestingDepthLimit(MAX_DEPTH);
        options.setCodePointLimit(MAX_CHARS);
        options.setAllowRecursiveKeys(false);
        Yaml yaml = new Yaml(new SafeConstructor(options), new org.yaml.snakeyaml.representer.Representer(
                new DumperOptions()), new DumperOptions(), options);
        LineIndex index = new LineIndex(text);
        try {
            Node node = yaml.compose(new StringReader(text));
            if (node == null) {
                throw new DocumentException("file is empty", 1, 1);
            }
            return yaml(node, index, 0);
        } catch (MarkedYAMLException e) {
            Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String problem = e.getProblem() != null ? e.getProblem() : "unreadable";
            throw new DocumentException("malformed YAML: " + yamlMessage(problem), m == null ? 0 : m.getLine() + 1,
                    m == null ? 0 : m.getColumn() + 1);
        } catch (YAMLException e) {
            throw new DocumentException("malformed YAML: " + yamlMessage(String.valueOf(e.getMessage())), 0, 0);
        } catch (StackOverflowError e) {
            throw new DocumentException("YAML nests too deeply", 0, 0);
        }
    }

    private static String yamlMessage(String problem) {
        String m = problem.replaceAll("\\s+", " ").trim().replaceAll("'([^']*)'", "`$1`");
        return m.endsWith(".") ? m.substring(0, m.length() - 1) : m;
    }

    private static SourceNode yaml(Node node, LineIndex index, int depth) throws DocumentException {
        int line = node.getStartMark().getLine() + 1;
        int col = node.getStartMark().getColumn() + 1;
        if (depth > MAX_DEPTH) {
            throw new DocumentException("YAML nests deeper than " + MAX_DEPTH + " levels", line, col);
        }
        if (node instanceof MappingNode m) {
            Map<String, SourceNode> fields = new LinkedHashMap<>();
            Map<String, SourceNode.ScalarNode> keys = new LinkedHashMap<>();
            for (NodeTuple tuple : m.getValue()) {
                if (!(tuple.getKeyNode() instanceof ScalarNode k)) {
                    throw new DocumentException("malformed YAML: keys must be strings", tuple.getKeyNode().getStartMark().getLine() + 1,
                            tuple.getKeyNode().getStartMark().getColumn() + 1);
                }
                SourceNode.ScalarNode key = (SourceNode.ScalarNode) yaml(k, index, depth + 1);
                String name = String.valueOf(k.getValue());
                if (fields.containsKey(name)) {
                    throw new DocumentException("malformed YAML: duplicate key `" + name + "`", key.line(), key.column());
                }
                keys.put(name, key);
                fields.put(name, yaml(tuple.getValueNode(), index, depth + 1));
            }
            return new SourceNode.ObjectNode(fields, keys, line, col);
        }
        if (node instanceof SequenceNode s) {
            List<SourceNode> items = new ArrayList<>();
            for (Node item : s.getValue()) {
                items.add(yaml(item, index, depth + 1));
            }
            return new SourceNode.ArrayNode(items, line, col);
        }
        ScalarNode s = (ScalarNode) node;
        int start = index.offset(node.getStartMark().getLine(), node.getStartMark().getColumn());
        int end = index.offset(node.getEndMark().getLine(), node.getEndMark().getColumn());
        SourceNode.Style style = switch (s.getScalarStyle()) {
            case DOUBLE_QUOTED -> SourceNode.Style.DOUBLE_QUOTED;
            case SINGLE_QUOTED -> SourceNode.Style.SINGLE_QUOTED;
            case LITERAL -> SourceNode.Style.LITERAL;
            case FOLDED -> SourceNode.Style.FOLDED;
            default -> SourceNode.Style.PLAIN;
        };
        return new SourceNode.ScalarNode(yamlValue(s), style, start, end, line, col);
    }

    private static Object yamlValue(ScalarNode s) throws DocumentException {
        String v = s.getValue();
        Tag tag = s.getTag();
        if (s.getScalarStyle() != DumperOptions.ScalarStyle.PLAIN || Tag.STR.equals(tag)) {
            return v;
        }
        try {
            if (Tag.NULL.equals(tag)) {
                return null;
            }
            if (Tag.BOOL.equals(tag)) {
                String l = v.toLowerCase(Locale.ROOT);
                if (l.equals("true") || l.equals("false")) {
                    return Boolean.valueOf(l);
                }
                return v; // YAML 1.1 yes/no/on/off stay strings: only true/false are booleans here
            }
            if (Tag.INT.equals(tag)) {
                String digits = v.replace("_", "");
                if (!digits.matches("[-+]?[0-9]+")) {
                    return v;
                }
                BigInteger b = new BigInteger(digits);
                return b.bitLength() < 64 ? (Object) b.longValue() : b;
            }
            if (Tag.FLOAT.equals(tag)) {
                String f = v.replace("_", "");
                if (!f.matches("[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?")) {
                    return v;
                }
                return Double.valueOf(f);
            }
        } catch (NumberFormatException e) {
            throw new DocumentException("unreadable number `" + v + "`", s.getStartMark().getLine() + 1,
                    s.getStartMark().getColumn() + 1);
        }
        return v;
    }

    private static void checkSize(String text) throws DocumentException {
        if (text.length() > MAX_CHARS) {
            throw new DocumentException("file is larger than " + (MAX_CHARS / (1024 * 1024)) + " MiB", 0, 0);
        }
    }
}

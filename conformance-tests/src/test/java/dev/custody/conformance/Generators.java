package dev.custody.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Expands the value generators of case files, for inputs too long to write out (limits cases): a mapping
 * whose only key starts with {@code $} is replaced by what it generates.
 * <ul>
 *   <li>{@code {$repeat: {text: "ab", times: 3}}} → {@code "ababab"}
 *   <li>{@code {$concat: ["a", {$repeat: …}, "b"]}} → the parts joined (each part a string or a generator)
 *   <li>{@code {$list: {times: 51, item: {…}}}} → a list of 51 copies of {@code item}
 *   <li>{@code {$uuids: 501}} → a list of 501 distinct lowercase UUIDs
 * </ul>
 * The expansion is a fresh tree: YAML aliases shared between cases are never mutated.
 */
final class Generators {
    private Generators() {}

    static Object expand(Object node, String where) {
        if (node instanceof Map<?, ?> m) {
            if (m.size() == 1 && m.keySet().iterator().next() instanceof String k && k.startsWith("$")) {
                return generate(k, m.get(k), where);
            }
            Map<Object, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.put(e.getKey(), expand(e.getValue(), where));
            }
            return out;
        }
        if (node instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object o : l) {
                out.add(expand(o, where));
            }
            return out;
        }
        return node;
    }

    private static Object generate(String name, Object arg, String where) {
        String at = where + ": " + name;
        switch (name) {
            case "$repeat" -> {
                Map<String, Object> a = Corpus.map(arg, at);
                String text = Corpus.string(expand(a.get("text"), where), at + ".text");
                return text.repeat(count(a.get("times"), at));
            }
            case "$concat" -> {
                StringBuilder s = new StringBuilder();
                for (Object part : Corpus.list(arg, at)) {
                    s.append(Corpus.string(expand(part, where), at + " part"));
                }
                return s.toString();
            }
            case "$list" -> {
                Map<String, Object> a = Corpus.map(arg, at);
                int times = count(a.get("times"), at);
                List<Object> out = new ArrayList<>(times);
                for (int i = 0; i < times; i++) {
                    out.add(expand(a.get("item"), where));
                }
                return out;
            }
            case "$uuids" -> {
                int n = count(arg, at);
                List<Object> out = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    out.add(String.format("00000000-0000-4000-8000-%012x", i + 1));
                }
                return out;
            }
            default -> throw new IllegalArgumentException(at + ": unknown generator (known: $repeat, $concat, $list, $uuids)");
        }
    }

    private static int count(Object o, String where) {
        if (!(o instanceof Integer i) || i < 0) {
            throw new IllegalArgumentException(where + ": a count is a whole number, 0 or more");
        }
        return i;
    }
}

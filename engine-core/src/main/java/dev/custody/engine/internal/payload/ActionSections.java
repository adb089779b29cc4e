package dev.custody.engine.internal.payload;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Internal, not API: the sections of an {@code Action} as the action copied them, an unmodifiable map of unmodifiable
 * copies. Knowing its own copy, the action's constructor shares it instead of copying every section again
 * ({@code Action.withAt}, {@code Action.withSection}); the action reader hands over maps it made and no longer
 * touches ({@link #own}). It also carries what the payload check found ({@code PayloadValidator.validate}), so that
 * an action is checked once however often it is decided: actions sharing these sections (one made by
 * {@code withAt}) share it, and the check tells them apart by trigger, wallet id and instant.
 *
 * <p>This type lives below both the action ({@code payload}) and the payload check ({@code check}) so that each
 * reaches it directly, with no bridge between them (docs/design.md §9.1). The package is exported to no module.
 * Unmodifiable; the check cache is written by any thread that checked these sections (a race between them is
 * benign: the value is immutable).
 */
public final class ActionSections extends AbstractMap<String, Map<String, Object>> {
    private final Map<String, Map<String, Object>> map;
    private volatile Object check;

    private ActionSections(Map<String, Map<String, Object>> map, boolean own) {
        this.map = own ? map : Collections.unmodifiableMap(map);
    }

    /**
     * Sections the caller made for an action and no longer touches, kept as they are: unmodifiable maps in an
     * unmodifiable map (the action reader's own read-only maps).
     */
    public static ActionSections own(Map<String, Map<String, Object>> sections) {
        return new ActionSections(sections, true);
    }

    /**
     * A builder's own maps, wrapped without a copy: the builder copies them before it changes them again
     * ({@code Action.Builder.build}).
     */
    public static ActionSections adopt(Map<String, Map<String, Object>> sections) {
        Map<String, Map<String, Object>> wrapped = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Object>> e : sections.entrySet()) {
            wrapped.put(e.getKey(), e.getValue() == null ? null : Collections.unmodifiableMap(e.getValue()));
        }
        return new ActionSections(wrapped, false);
    }

    /** An unmodifiable copy of every section (shallow inside each section). */
    public static ActionSections copyOf(Map<String, Map<String, Object>> sections) {
        Map<String, Map<String, Object>> copy = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Object>> e : sections.entrySet()) {
            copy.put(e.getKey(), frozen(e.getValue()));
        }
        return new ActionSections(copy, false);
    }

    /** These sections with one replaced (or added); only that section is copied. */
    public ActionSections with(String name, Map<String, Object> fields) {
        Map<String, Map<String, Object>> copy = new LinkedHashMap<>(map);
        copy.put(name, frozen(fields));
        return new ActionSections(copy, false);
    }

    /** What the payload check remembered of checking these sections (null before the first check). */
    public Object checkCache() {
        return check;
    }

    /** Remembers what the payload check found (any thread; the value is immutable). */
    public void checkCache(Object checked) {
        check = checked;
    }

    private static Map<String, Object> frozen(Map<String, Object> fields) {
        return fields == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    @Override
    public Map<String, Object> get(Object key) {
        return map.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return map.containsKey(key);
    }

    @Override
    public Set<Entry<String, Map<String, Object>>> entrySet() {
        return map.entrySet();
    }
}

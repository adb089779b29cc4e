package dev.custody.engine.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.PolicyEngine;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Walks every public and protected member of every public type (nested ones too) of every package engine-core
 * exports, and every type its signature names (parameters, results, exceptions, fields, supertypes, type bounds):
 * a package exported to every module names no cel-java or Google type and no engine-core type of a package that
 * is not exported to every module; a package exported to some modules names only engine-core types exported to
 * those modules too, and cel-java only where pinned below.
 */
class ExportedSignaturesTest {
    private static final ClassLoader LOADER = PolicyEngine.class.getClassLoader();

    /** Where a tool package names cel-java: analysis encodes the checked AST for Z3. Nothing else. */
    private static final Set<String> PINNED_CEL = Set.of(
            "dev.custody.engine.compile.CompiledCondition.checkedAst -> dev.cel.common.CelAbstractSyntaxTree");

    @Test
    void exportedSignaturesStayInsideTheirExports() throws Exception {
        ModuleDescriptor d = ModuleFinder.of(Path.of("target/classes")).find("dev.custody.engine").orElseThrow()
                .descriptor();
        Map<String, Set<String>> exports = new TreeMap<>();
        d.exports().forEach(e -> exports.put(e.source(), e.targets()));
        List<String> leaks = new ArrayList<>();
        Set<String> cel = new TreeSet<>();
        int members = 0;
        for (Map.Entry<String, Set<String>> e : exports.entrySet()) {
            for (String simple : ApiTable.publicTopLevel(Path.of("target/classes"), e.getKey(), LOADER)) {
                for (Class<?> type : withNested(Class.forName(e.getKey() + "." + simple, false, LOADER))) {
                    for (Map.Entry<String, Type> use : signature(type).entrySet()) {
                        members++;
                        for (Class<?> named : named(use.getValue())) {
                            String pkg = named.getPackageName();
                            String where = type.getName() + "." + use.getKey().replaceAll("#\\d+$", "") + " -> "
                                    + named.getName();
                            if (pkg.startsWith("dev.cel") || pkg.startsWith("com.google")) {
                                if (e.getValue().isEmpty()) {
                                    leaks.add(where);
                                } else {
                                    cel.add(where);
                                }
                            } else if (d.packages().contains(pkg)) {
                                Set<String> to = exports.get(pkg);
                                boolean ok = to != null && (to.isEmpty() || (!e.getValue().isEmpty()
                                        && to.containsAll(e.getValue())));
                                if (!ok) {
                                    leaks.add(where);
                                }
                            }
                        }
                    }
                }
            }
        }
        assertTrue(members > 300, "walked only " + members + " signatures");
        assertEquals(List.of(), leaks);
        assertEquals(PINNED_CEL, cel);
    }

    @Test
    void theWalkFindsALeakWhereThereIsOne() {
        // the check itself: a signature naming a type of a package not exported (the engine's private
        // PolicyEngine.observed(BoundRule), from internal.bundle to coverage.ObservedRule) is found when asked for
        Set<String> names = new TreeSet<>();
        for (Method m : PolicyEngine.class.getDeclaredMethods()) {
            for (Type t : m.getGenericParameterTypes()) {
                named(t).forEach(c -> names.add(c.getName()));
            }
            named(m.getGenericReturnType()).forEach(c -> names.add(c.getName()));
        }
        assertTrue(names.contains("dev.custody.engine.internal.bundle.BoundRule"), names.toString());
        assertTrue(names.contains("dev.custody.engine.coverage.ObservedRule"), names.toString());
        assertTrue(signature(PolicyEngine.class).values().stream().noneMatch(t -> named(t).stream()
                .anyMatch(c -> c.getName().startsWith("dev.custody.engine.internal.")
                        || c.getName().startsWith("dev.custody.engine.coverage."))),
                "the walked API names none of the engine's private signatures");
        assertTrue(signature(PolicyEngine.Builder.class).values().stream().noneMatch(t -> named(t).stream()
                .anyMatch(c -> c.getName().equals("dev.custody.engine.coverage.EvaluationObserver"))),
                "no walked builder signature names the rule observer");
    }

    private static List<Class<?>> withNested(Class<?> c) {
        List<Class<?>> all = new ArrayList<>();
        all.add(c);
        for (Class<?> n : c.getDeclaredClasses()) {
            if (Modifier.isPublic(n.getModifiers()) || Modifier.isProtected(n.getModifiers())) {
                all.addAll(withNested(n));
            }
        }
        return all;
    }

    /** Every type the API of {@code c} names, keyed by member. */
    private static Map<String, Type> signature(Class<?> c) {
        Map<String, Type> uses = new TreeMap<>();
        int i = 0;
        if (c.getGenericSuperclass() != null) {
            uses.put("<extends>", c.getGenericSuperclass());
        }
        for (Type t : c.getGenericInterfaces()) {
            uses.put("<implements " + i++ + ">", t);
        }
        for (TypeVariable<?> v : c.getTypeParameters()) {
            for (Type b : v.getBounds()) {
                uses.put("<" + v.getName() + " " + i++ + ">", b);
            }
        }
        for (Field f : c.getDeclaredFields()) {
            if (api(f.getModifiers())) {
                uses.put(f.getName(), f.getGenericType());
            }
        }
        List<Executable> executables = new ArrayList<>(List.of(c.getDeclaredMethods()));
        executables.addAll(List.<Constructor<?>>of(c.getDeclaredConstructors()));
        for (Executable x : executables) {
            if (!api(x.getModifiers()) || x.isSynthetic()) {
                continue;
            }
            String name = x instanceof Method ? x.getName() : "<init>";
            if (x instanceof Method m) {
                uses.put(name + "#" + i++, m.getGenericReturnType());
            }
            for (Type t : x.getGenericParameterTypes()) {
                uses.put(name + "#" + i++, t);
            }
            for (Type t : x.getGenericExceptionTypes()) {
                uses.put(name + "#" + i++, t);
            }
            for (TypeVariable<?> v : x.getTypeParameters()) {
                for (Type b : v.getBounds()) {
                    uses.put(name + "#" + i++, b);
                }
            }
        }
        return uses;
    }

    private static boolean api(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** The classes a type names: itself, its arguments, bounds and components. */
    private static Set<Class<?>> named(Type t) {
        Set<Class<?>> out = new HashSet<>();
        collect(t, out, new HashSet<>());
        return out;
    }

    private static void collect(Type t, Set<Class<?>> out, Set<Type> seen) {
        if (!seen.add(t)) {
            return;
        }
        if (t instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            if (!c.isPrimitive()) {
                out.add(c);
            }
        } else if (t instanceof ParameterizedType p) {
            collect(p.getRawType(), out, seen);
            for (Type a : p.getActualTypeArguments()) {
                collect(a, out, seen);
            }
            if (p.getOwnerType() != null) {
                collect(p.getOwnerType(), out, seen);
            }
        } else if (t instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) {
                collect(b, out, seen);
            }
            for (Type b : w.getLowerBounds()) {
                collect(b, out, seen);
            }
        } else if (t instanceof GenericArrayType g) {
            collect(g.getGenericComponentType(), out, seen);
        } else if (t instanceof TypeVariable<?> v) {
            for (Type b : v.getBounds()) {
                collect(b, out, seen);
            }
        }
    }
}

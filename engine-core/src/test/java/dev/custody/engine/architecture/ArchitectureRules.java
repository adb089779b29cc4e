package dev.custody.engine.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The package rules of docs/design.md §9.1, one definition for every module's {@code ArchitectureTest} (analysis,
 * cli and spark reach it through engine-core's test jar): engine-core's layers, no cycle between the packages of a
 * module, and no class outside {@code dev.custody.engine} using an {@code internal} package. Each rule is shown to
 * fail on a planted violation ({@code PlantedViolationsTest}).
 */
public final class ArchitectureRules {
    private ArchitectureRules() {}

    /**
     * One layer of engine-core: a name and its packages ({@code ..} takes the sub-packages too).
     *
     * @param name the layer's name, as in the table of docs/design.md part two
     * @param packages ArchUnit package identifiers
     */
    public record Layer(String name, List<String> packages) {
        Layer(String name, String... packages) {
            this(name, List.of(packages));
        }
    }

    /**
     * engine-core's layers, lowest first, with engine-schema (another module) beneath them all. A layer may use
     * every layer below it and none above; the packages of one layer may use each other, without a cycle
     * ({@link #freeOfCycles}).
     */
    public static final List<Layer> ENGINE_LAYERS = List.of(
            new Layer("schema", "dev.custody.engine.schema.."),
            new Layer("base", "dev.custody.engine.text..", "dev.custody.engine.internal.access..",
                    "dev.custody.engine.internal.payload.."),
            new Layer("diagnostics", "dev.custody.engine.diagnostic..", "dev.custody.engine.format.."),
            new Layer("policy model", "dev.custody.engine.policy.."),
            new Layer("action", "dev.custody.engine.velocity..", "dev.custody.engine.payload.."),
            new Layer("check", "dev.custody.engine.check.."),
            new Layer("compile", "dev.custody.engine.compile.."),
            new Layer("validate, coverage", "dev.custody.engine.validate..", "dev.custody.engine.coverage.."),
            new Layer("selection", "dev.custody.engine.selection.."),
            new Layer("files", "dev.custody.engine.files.."),
            new Layer("bundle", "dev.custody.engine.internal.bundle.."),
            new Layer("engine", "dev.custody.engine"),
            new Layer("clients of the engine", "dev.custody.engine.replay..", "dev.custody.engine.log..",
                    "dev.custody.engine.metrics.."));

    /** engine-core's layering: each layer uses only the layers below it ({@link #ENGINE_LAYERS}). */
    public static LayeredArchitecture engineLayers() {
        // optional: engine-schema's classes are another module's, and a planted check imports a few classes only
        LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers().withOptionalLayers(true);
        for (Layer l : ENGINE_LAYERS) {
            rule = rule.layer(l.name()).definedBy(l.packages().toArray(String[]::new));
        }
        List<String> below = new ArrayList<>();
        for (Layer l : ENGINE_LAYERS) {
            rule = below.isEmpty() ? rule.whereLayer(l.name()).mayNotAccessAnyLayer()
                    : rule.whereLayer(l.name()).mayOnlyAccessLayers(below.toArray(String[]::new));
            below.add(l.name());
        }
        return rule;
    }

    /**
     * No cycle between the packages of the classes checked: every package under {@code dev.custody} is a slice
     * ({@code dev.custody.engine} itself is the slice {@code engine}, {@code dev.custody.cli.serve} the slice
     * {@code cli.serve}).
     */
    public static ArchRule freeOfCycles() {
        return slices().matching("dev.custody.(**)").should().beFreeOfCycles();
    }

    /** Only engine-core's own classes use its {@code internal} packages. */
    public static ArchRule noInternalOutsideTheEngine() {
        return noClasses().that().resideOutsideOfPackage("dev.custody.engine..")
                .should().dependOnClassesThat().resideInAPackage("dev.custody.engine.internal..");
    }

    /**
     * The main classes of the module under test, as compiled ({@code target/classes} of the module, the working
     * directory of its tests): its tests and the other modules are left out.
     */
    public static JavaClasses moduleClasses() {
        Path classes = Path.of("target/classes");
        if (!Files.isDirectory(classes)) {
            throw new IllegalStateException("no compiled classes at " + classes.toAbsolutePath());
        }
        JavaClasses imported = new ClassFileImporter().importPath(classes);
        if (imported.isEmpty()) {
            throw new IllegalStateException("no classes under " + classes.toAbsolutePath());
        }
        return imported;
    }
}

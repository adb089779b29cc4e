package dev.custody.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The client's packages have no cycle, and it uses no engine package at all (docs/design.md §9.1). The same rules
 * as engine-core's {@code ArchitectureRules}, written here because the client depends on nothing of the engine,
 * not even in its tests; they are shown to fail on planted violations in engine-core.
 */
class ArchitectureTest {
    private static final JavaClasses CLASSES = new ClassFileImporter().importPath(Path.of("target/classes"));

    @Test
    void noCycleBetweenPackages() {
        slices().matching("dev.custody.(**)").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void noUseOfTheEngine() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.custody.engine..").check(CLASSES);
    }
}

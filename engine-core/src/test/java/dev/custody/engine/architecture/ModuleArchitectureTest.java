package dev.custody.engine.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;

/**
 * The rules every module of the tools keeps (docs/design.md §9.1), run over its own compiled classes: no cycle
 * between its packages, and no use of engine-core's {@code internal} packages. analysis, cli and spark each extend
 * it as their {@code ArchitectureTest}; the rules are shown to fail on planted violations
 * ({@code PlantedViolationsTest}).
 */
public abstract class ModuleArchitectureTest {
    private final JavaClasses classes = ArchitectureRules.moduleClasses();

    @Test
    void noCycleBetweenPackages() {
        ArchitectureRules.freeOfCycles().check(classes);
    }

    @Test
    void noUseOfTheEnginesInternals() {
        ArchitectureRules.noInternalOutsideTheEngine().check(classes);
    }
}

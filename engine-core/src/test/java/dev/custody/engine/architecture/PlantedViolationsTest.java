package dev.custody.engine.architecture;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.diagnostic.Diagnostic;
import dev.custody.engine.diagnostic.PlantedUpwardUse;
import dev.custody.engine.internal.payload.ActionSections;
import dev.custody.planted.PlantedInternalUse;
import dev.custody.planted.cycle.a.PlantedA;
import dev.custody.planted.cycle.b.PlantedB;
import org.junit.jupiter.api.Test;

/**
 * Each rule of {@link ArchitectureRules} fails on a planted violation (test-only classes) and names it, and passes
 * on the same classes without it: the rules that {@code ArchitectureTest} runs in every module can fail.
 */
class PlantedViolationsTest {

    @Test
    void theLayeringRuleFailsOnAnUpwardUse() {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedUpwardUse.class, PolicyEngine.class);
        AssertionError e = assertThrows(AssertionError.class, () -> ArchitectureRules.engineLayers().check(planted));
        assertTrue(e.getMessage().contains("Method <" + PlantedUpwardUse.class.getName() + ".budget()> gets field <"
                + PolicyEngine.class.getName() + ".DEFAULT_TIME_BUDGET>"), e.getMessage());
        assertTrue(e.getMessage().contains("was violated (1 times)"), e.getMessage());
        // the engine using a diagnostic is the right way round
        ArchitectureRules.engineLayers().check(new ClassFileImporter().importClasses(PolicyEngine.class,
                Diagnostic.class));
    }

    @Test
    void theCycleRuleFailsOnACycleBetweenTwoPackages() {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedA.class, PlantedB.class);
        AssertionError e = assertThrows(AssertionError.class, () -> ArchitectureRules.freeOfCycles().check(planted));
        assertTrue(e.getMessage().contains("Cycle detected: Slice planted.cycle.a -> \n")
                || e.getMessage().contains("Cycle detected: Slice planted.cycle.a -> "), e.getMessage());
        assertTrue(e.getMessage().contains("Slice planted.cycle.b"), e.getMessage());
        // one side alone is no cycle
        ArchitectureRules.freeOfCycles().check(new ClassFileImporter().importClasses(PlantedA.class));
    }

    @Test
    void theInternalRuleFailsOnAUseFromOutsideTheEngine() {
        JavaClasses planted = new ClassFileImporter().importClasses(PlantedInternalUse.class, ActionSections.class);
        AssertionError e = assertThrows(AssertionError.class,
                () -> ArchitectureRules.noInternalOutsideTheEngine().check(planted));
        assertTrue(e.getMessage().contains("Method <" + PlantedInternalUse.class.getName() + ".sections()> calls method <"
                + ActionSections.class.getName() + ".copyOf(java.util.Map)>"), e.getMessage());
        // the engine's own use of its internals is allowed
        ArchitectureRules.noInternalOutsideTheEngine().allowEmptyShould(true)
                .check(new ClassFileImporter().importClasses(dev.custody.engine.payload.Action.class,
                        ActionSections.class));
    }
}

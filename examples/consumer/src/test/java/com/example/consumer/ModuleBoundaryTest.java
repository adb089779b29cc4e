package com.example.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.Decision;
import dev.custody.engine.PolicyEngine;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The engine's boundary as a consumer on the module path meets it: this test runs inside the named module
 * {@code com.example.consumer}, reads {@code dev.custody.engine} as a named module, and finds only the embedder's
 * packages exported to it.
 */
class ModuleBoundaryTest {
    private static final Module CONSUMER = ModuleBoundaryTest.class.getModule();
    private static final Module ENGINE = PolicyEngine.class.getModule();

    @Test
    void consumerAndEngineAreNamedModules() {
        assertTrue(CONSUMER.isNamed(), "the consumer's test runs on the class path, not the module path");
        assertEquals("com.example.consumer", CONSUMER.getName());
        assertEquals("dev.custody.engine", ENGINE.getName());
        assertFalse(ENGINE.getDescriptor().isAutomatic(), "engine-core is an automatic module, not its descriptor");
        assertTrue(CONSUMER.canRead(ENGINE));
    }

    @Test
    void onlyTheEmbeddersPackagesAreExportedToTheConsumer() {
        Set<String> exported = new TreeSet<>();
        for (String p : ENGINE.getPackages()) {
            if (ENGINE.isExported(p, CONSUMER)) {
                exported.add(p);
            }
        }
        assertEquals(Set.of("dev.custody.engine", "dev.custody.engine.diagnostic", "dev.custody.engine.log",
                "dev.custody.engine.metrics", "dev.custody.engine.payload", "dev.custody.engine.policy",
                "dev.custody.engine.velocity"), exported);
        for (String tool : new String[] {"dev.custody.engine.compile", "dev.custody.engine.check",
                "dev.custody.engine.files", "dev.custody.engine.validate", "dev.custody.engine.replay",
                "dev.custody.engine.coverage", "dev.custody.engine.internal.bundle",
                "dev.custody.engine.internal.payload", "dev.custody.engine.internal.access", "dev.custody.engine.text",
                "dev.custody.engine.format"}) {
            assertTrue(ENGINE.getPackages().contains(tool), tool + " is not in the module at all");
            assertFalse(ENGINE.isExported(tool, CONSUMER), tool + " is exported to the consumer");
            assertFalse(ENGINE.isOpen(tool, CONSUMER), tool + " is open to the consumer");
        }
        // the tool packages go to the project's own modules, by name
        ModuleDescriptor.Exports compile = ENGINE.getDescriptor().exports().stream()
                .filter(e -> e.source().equals("dev.custody.engine.compile")).findFirst().orElseThrow();
        assertEquals(Set.of("dev.custody.cli", "dev.custody.analysis", "dev.custody.spark"), compile.targets());
    }

    @Test
    void aToolTypeCannotBeUsedEvenByReflection() throws Exception {
        Class<?> compiler = Class.forName("dev.custody.engine.compile.RuleCompiler");
        Method create = compiler.getMethod("create");
        assertThrows(IllegalAccessException.class, () -> create.invoke(null));
    }

    /**
     * A consumer cannot make a decision of the engine's rules: the one public factory, {@code Decision.refused},
     * makes a fail-closed DENY (what a caller that refuses an action before the engine sees it returns), never an
     * ALLOW, a DENY by a rule or a NO_MATCH.
     */
    @Test
    void noPublicWayToMakeADecisionButARefusal() {
        Set<String> factories = new TreeSet<>();
        for (Method m : Decision.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getReturnType() == Decision.class) {
                factories.add(m.getName());
            }
        }
        assertEquals(Set.of("refused"), factories);
        assertEquals(0, Decision.class.getConstructors().length);
        Decision refused = Decision.refused("a-1", dev.custody.engine.schema.TriggerAction.WITHDRAWAL_CREATE,
                dev.custody.engine.FailureKind.LEDGER, "the ledger does not answer");
        assertEquals(dev.custody.engine.Outcome.DENY, refused.outcome());
        assertTrue(refused.failClosed());
        assertEquals(null, refused.ruleId());
        assertEquals("the ledger does not answer", refused.error());
    }
}

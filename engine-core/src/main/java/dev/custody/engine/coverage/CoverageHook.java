package dev.custody.engine.coverage;

import dev.custody.engine.PolicyEngine;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * How the project's own tools attach an {@link EvaluationObserver} (rule-level observation, for
 * {@code custody test --coverage} and {@code custody replay --coverage}) to a {@link PolicyEngine.Builder}.
 *
 * <p>Not part of the embedding API. An embedder observes an engine through {@link dev.custody.engine.EngineObserver}
 * only; rule-level observation hands out tool types ({@code Payload}, {@code ConditionResult},
 * {@code CompiledCondition}) that are not exported to embedders, so it is no method of the public builder. This
 * class reaches the builder's private state through a bridge that {@code PolicyEngine.Builder} installs when it is
 * first initialised (the "shared secrets" pattern of the JDK): {@link #install} accepts only a class nested in
 * {@link PolicyEngine}, and only once, so no other code can stand in for the engine.
 *
 * <p>Stateless apart from the bridge, which is set once; thread-safe.
 */
public final class CoverageHook {
    private static volatile BiConsumer<PolicyEngine.Builder, EvaluationObserver> bridge;

    private CoverageHook() {}

    /**
     * Makes the engine that {@code builder} builds tell {@code observer} the rules of every bundle it compiles and
     * every rule each decision evaluates ({@link EvaluationObserver} says when). One per builder.
     *
     * @return {@code builder}
     * @throws IllegalStateException when the builder has a rule observer already
     */
    public static PolicyEngine.Builder observeRules(PolicyEngine.Builder builder, EvaluationObserver observer) {
        Objects.requireNonNull(builder, "builder");
        Objects.requireNonNull(observer, "observer");
        // an instance of the builder exists, so its class is initialised and has installed the bridge
        bridge.accept(builder, observer);
        return builder;
    }

    /**
     * Called once, by {@code PolicyEngine.Builder}'s static initialiser.
     *
     * @throws IllegalArgumentException when {@code engineSide} is not a class nested in {@link PolicyEngine}
     * @throws IllegalStateException when a bridge is installed already
     */
    public static synchronized void install(BiConsumer<PolicyEngine.Builder, EvaluationObserver> engineSide) {
        if (engineSide.getClass().getNestHost() != PolicyEngine.class) {
            throw new IllegalArgumentException("only PolicyEngine installs the coverage bridge, not "
                    + engineSide.getClass().getName());
        }
        if (bridge != null) {
            throw new IllegalStateException("the coverage bridge is installed already");
        }
        bridge = engineSide;
    }
}

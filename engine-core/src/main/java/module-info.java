/**
 * The policy engine: what a service embeds to decide actions against its policies, fail-closed.
 *
 * <p>Exported to every module, the API of an embedder: the engine and its decisions ({@code dev.custody.engine}),
 * the action to decide ({@code payload}), the policy model a source returns ({@code policy}), velocity figures
 * ({@code velocity}), the diagnostics of an invalid bundle ({@code diagnostic}), the decision log ({@code log}) and
 * Micrometer metrics ({@code metrics}). Nothing exported names a cel-java type or a type of a package not exported
 * to all (docs/api.md lists every exported type; {@code ApiTableTest} and {@code ExportedSignaturesTest} hold it).
 *
 * <p>Exported only to the project's own tools (the {@code custody} CLI, the analysis and the Spark modules), by
 * name: reading action JSON and checking payloads ({@code check}), the compiler and its cost model
 * ({@code compile}), coverage, policy files ({@code files}), validation ({@code validate}), the text of messages
 * ({@code text}: suggestions, printable input), the renderings of diagnostics ({@code format}) and stream replay
 * ({@code replay}). {@code internal.*} is exported to no one.
 *
 * <p>The packages are layered without cycles (docs/design.md §9.1; {@code LayersTest} holds it).
 *
 * <p>cel-java 0.14.0 (and its Guava, Protobuf, ANTLR and RE2/J) cannot be named modules: its jars split packages
 * ({@code dev.cel.common} lies in five of them). They stay on the class path, and this module reads the class
 * path: the compile package adds the read itself before it first touches cel-java ({@code ClassPathReads}), so a
 * consumer needs no {@code --add-reads} flag.
 */
@SuppressWarnings("module") // the tool modules are automatic modules, not on the module path when this one compiles
module dev.custody.engine {
    requires transitive dev.custody.engine.schema;
    requires com.fasterxml.jackson.databind;
    requires com.github.benmanes.caffeine;
    requires org.yaml.snakeyaml;
    requires java.management;
    // EngineMetrics binds to a MeterRegistry: only a service that uses it needs (and requires) Micrometer
    requires static micrometer.core;

    exports dev.custody.engine;
    exports dev.custody.engine.diagnostic;
    exports dev.custody.engine.log;
    exports dev.custody.engine.metrics;
    exports dev.custody.engine.payload;
    exports dev.custody.engine.policy;
    exports dev.custody.engine.velocity;

    exports dev.custody.engine.check to dev.custody.cli, dev.custody.analysis, dev.custody.spark;
    exports dev.custody.engine.compile to dev.custody.cli, dev.custody.analysis, dev.custody.spark;
    exports dev.custody.engine.coverage to dev.custody.cli;
    exports dev.custody.engine.files to dev.custody.cli, dev.custody.analysis, dev.custody.spark;
    exports dev.custody.engine.replay to dev.custody.cli, dev.custody.spark;
    exports dev.custody.engine.selection to dev.custody.cli, dev.custody.analysis, dev.custody.spark;
    exports dev.custody.engine.validate to dev.custody.cli, dev.custody.analysis, dev.custody.spark;
    exports dev.custody.engine.text to dev.custody.cli, dev.custody.analysis, dev.custody.spark;
    exports dev.custody.engine.format to dev.custody.cli, dev.custody.analysis, dev.custody.spark;
}

package dev.custody.cli.lsp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.lsp4j.Diagnostic;
import org.junit.jupiter.api.Test;

/**
 * The packaged fat jar serves the protocol: {@code java -jar cli/target/custody.jar lsp} answers
 * {@code initialize}, lints an example policy as lint does, and ends with 0 after {@code shutdown} and
 * {@code exit}. A failsafe test, so it runs after {@code package} built the jar.
 */
class LspJarIT {
    static final Path JAR = Path.of(System.getProperty("custody.jar", "target/custody.jar"));

    @Test
    void theJarAnswersInitializeAndLints() throws Exception {
        try (LspProcess lsp = LspProcess.startJar(JAR)) {
            assertEquals("custody", lsp.initialize().getServerInfo().getName());
            Path example = Path.of("../examples/policies/treasury-limits.yaml").toAbsolutePath().normalize();
            List<Diagnostic> clean = lsp.open(example.toUri().toString(), Files.readString(example)).getDiagnostics();
            assertEquals(List.of(), clean);
            String broken = Files.readString(example).replace("withdrawal.value_usd > 250000", "withdrawal.value_us > 250000");
            List<Diagnostic> ds = lsp.change(example.toUri().toString(), 2, broken).getDiagnostics();
            assertEquals(1, ds.size());
            assertEquals("unknown field `withdrawal.value_us`", ds.get(0).getMessage().getLeft());
            assertEquals("15:26-15:34", LanguageServerTest.span(ds.get(0).getRange()));
            lsp.shutdownAndExit();
        }
    }
}

package dev.custody.cli.lsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.lsp4j.ClientCapabilities;
import org.eclipse.lsp4j.DidChangeTextDocumentParams;
import org.eclipse.lsp4j.DidOpenTextDocumentParams;
import org.eclipse.lsp4j.InitializeParams;
import org.eclipse.lsp4j.InitializeResult;
import org.eclipse.lsp4j.InitializedParams;
import org.eclipse.lsp4j.MessageActionItem;
import org.eclipse.lsp4j.MessageParams;
import org.eclipse.lsp4j.PublishDiagnosticsParams;
import org.eclipse.lsp4j.ShowMessageRequestParams;
import org.eclipse.lsp4j.TextDocumentContentChangeEvent;
import org.eclipse.lsp4j.TextDocumentItem;
import org.eclipse.lsp4j.VersionedTextDocumentIdentifier;
import org.eclipse.lsp4j.jsonrpc.Launcher;
import org.eclipse.lsp4j.launch.LSPLauncher;
import org.eclipse.lsp4j.services.LanguageClient;
import org.eclipse.lsp4j.services.LanguageServer;

/**
 * {@code custody lsp} in its own process, as an editor starts it, driven through LSP4J's client launcher over
 * the process's real stdin/stdout pipes. The process is {@code java -cp <the test classpath>
 * dev.custody.cli.main.Custody lsp}, or {@code java -jar <jar> lsp} when a jar is given (the failsafe test
 * of the packaged jar). Diagnostics the server publishes are queued for {@link #diagnostics}.
 */
final class LspProcess implements AutoCloseable {
    final Process process;
    final LanguageServer server;
    private final BlockingQueue<PublishDiagnosticsParams> published = new LinkedBlockingQueue<>();

    private LspProcess(Process process) {
        this.process = process;
        LanguageClient client = new LanguageClient() {
            @Override
            public void telemetryEvent(Object object) {}

            @Override
            public void publishDiagnostics(PublishDiagnosticsParams diagnostics) {
                published.add(diagnostics);
            }

            @Override
            public void showMessage(MessageParams messageParams) {}

            @Override
            public CompletableFuture<MessageActionItem> showMessageRequest(ShowMessageRequestParams requestParams) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public void logMessage(MessageParams message) {}
        };
        Launcher<LanguageServer> launcher =
                LSPLauncher.createClientLauncher(client, process.getInputStream(), process.getOutputStream());
        launcher.startListening();
        this.server = launcher.getRemoteProxy();
    }

    /** Starts the server from the test classpath. */
    static LspProcess start() throws IOException {
        String classpath = System.getProperty("java.class.path");
        return start(List.of("-cp", classpath, "dev.custody.cli.main.Custody", "lsp"));
    }

    /** Starts the server from a fat jar. */
    static LspProcess startJar(Path jar) throws IOException {
        return start(List.of("-jar", jar.toString(), "lsp"));
    }

    private static LspProcess start(List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new LspProcess(p);
    }

    /** {@code initialize} then {@code initialized}, as every client begins. */
    InitializeResult initialize() throws Exception {
        InitializeParams params = new InitializeParams();
        params.setProcessId((int) ProcessHandle.current().pid());
        params.setCapabilities(new ClientCapabilities());
        InitializeResult result = server.initialize(params).get(60, TimeUnit.SECONDS);
        server.initialized(new InitializedParams());
        return result;
    }

    /** Opens a document and returns the diagnostics published for it. */
    PublishDiagnosticsParams open(String uri, String text) throws InterruptedException {
        server.getTextDocumentService().didOpen(new DidOpenTextDocumentParams(
                new TextDocumentItem(uri, uri.endsWith(".json") ? "json" : "yaml", 1, text)));
        return diagnostics(uri, 1);
    }

    /** Replaces a document's text (full sync) and returns the diagnostics published for that version. */
    PublishDiagnosticsParams change(String uri, int version, String text) throws InterruptedException {
        server.getTextDocumentService().didChange(new DidChangeTextDocumentParams(
                new VersionedTextDocumentIdentifier(uri, version), List.of(new TextDocumentContentChangeEvent(text))));
        return diagnostics(uri, version);
    }

    /** The next diagnostics published for a document at a version (earlier ones are skipped). */
    PublishDiagnosticsParams diagnostics(String uri, Integer version) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            PublishDiagnosticsParams p = published.poll(1, TimeUnit.SECONDS);
            if (p != null && p.getUri().equals(uri) && java.util.Objects.equals(p.getVersion(), version)) {
                return p;
            }
        }
        throw new AssertionError("no diagnostics for " + uri + " version " + version);
    }

    /** Waits for the process to end and returns its exit code. */
    int waitFor() throws InterruptedException {
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the server did not exit");
        return process.exitValue();
    }

    /** {@code shutdown} then {@code exit}: the process ends with 0. */
    void shutdownAndExit() throws Exception {
        server.shutdown().get(30, TimeUnit.SECONDS);
        server.exit();
        assertEquals(0, waitFor());
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}

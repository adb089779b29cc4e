package dev.custody.cli.lsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.lsp4j.HoverParams;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.TextDocumentIdentifier;
import org.eclipse.lsp4j.jsonrpc.ResponseErrorException;
import org.junit.jupiter.api.Test;

/**
 * The protocol's lifecycle for {@code custody lsp} as a process: {@code shutdown} then {@code exit} ends it
 * with 0, {@code exit} alone with 1, requests after {@code shutdown} are refused, and the server ends when its
 * input closes (an editor that went away).
 */
class LanguageServerLifecycleTest {

    @Test
    void shutdownThenExitEndsWithZeroAndRequestsAfterShutdownAreRefused() throws Exception {
        try (LspProcess lsp = LspProcess.start()) {
            lsp.initialize();
            lsp.server.shutdown().get(30, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> lsp.server.getTextDocumentService()
                    .hover(new HoverParams(new TextDocumentIdentifier("file:///x.yaml"), new Position(0, 0)))
                    .get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof ResponseErrorException, e.toString());
            assertEquals(-32600, ((ResponseErrorException) e.getCause()).getResponseError().getCode());
            lsp.server.exit();
            assertEquals(0, lsp.waitFor());
        }
    }

    @Test
    void exitWithoutShutdownEndsWithOneAndRequestsBeforeInitializeAreRefused() throws Exception {
        try (LspProcess lsp = LspProcess.start()) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> lsp.server.getTextDocumentService()
                    .hover(new HoverParams(new TextDocumentIdentifier("file:///x.yaml"), new Position(0, 0)))
                    .get(30, TimeUnit.SECONDS));
            assertEquals(-32002, ((ResponseErrorException) e.getCause()).getResponseError().getCode());
            lsp.initialize();
            lsp.server.exit();
            assertEquals(1, lsp.waitFor());
        }
    }

    @Test
    void theServerEndsWhenItsInputCloses() throws Exception {
        try (LspProcess lsp = LspProcess.start()) {
            lsp.initialize();
            lsp.process.getOutputStream().close();
            assertEquals(1, lsp.waitFor(), "closed without shutdown");
        }
        try (LspProcess lsp = LspProcess.start()) {
            lsp.initialize();
            lsp.server.shutdown().get(30, TimeUnit.SECONDS);
            lsp.process.getOutputStream().close();
            assertEquals(0, lsp.waitFor(), "closed after shutdown");
        }
    }

    @Test
    void helpNamesTheEditorSetUp() {
        Cli.Result r = Cli.run("lsp", "--help");
        assertEquals(ExitCode.OK, r.exit());
        assertTrue(r.out().startsWith("Usage: custody lsp [-hV]\n"), r.out());
        assertTrue(r.out().contains("\nExamples:\n  custody lsp "), r.out());
        assertTrue(r.out().contains("vim.lsp.start({name = 'custody', cmd = {'custody', 'lsp'}})"), r.out());
        assertTrue(Cli.run("--help").out().contains("\n  lsp "), "listed in the root help");
    }
}

package dev.custody.cli.lsp;

import dev.custody.cli.VersionProvider;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.lsp4j.CodeAction;
import org.eclipse.lsp4j.CodeActionKind;
import org.eclipse.lsp4j.CodeActionOptions;
import org.eclipse.lsp4j.CodeActionParams;
import org.eclipse.lsp4j.Command;
import org.eclipse.lsp4j.CompletionItem;
import org.eclipse.lsp4j.CompletionList;
import org.eclipse.lsp4j.CompletionOptions;
import org.eclipse.lsp4j.CompletionParams;
import org.eclipse.lsp4j.Diagnostic;
import org.eclipse.lsp4j.DiagnosticSeverity;
import org.eclipse.lsp4j.DidChangeConfigurationParams;
import org.eclipse.lsp4j.DidChangeTextDocumentParams;
import org.eclipse.lsp4j.DidChangeWatchedFilesParams;
import org.eclipse.lsp4j.DidCloseTextDocumentParams;
import org.eclipse.lsp4j.DidOpenTextDocumentParams;
import org.eclipse.lsp4j.DidSaveTextDocumentParams;
import org.eclipse.lsp4j.DocumentSymbol;
import org.eclipse.lsp4j.DocumentSymbolParams;
import org.eclipse.lsp4j.Hover;
import org.eclipse.lsp4j.HoverParams;
import org.eclipse.lsp4j.InitializeParams;
import org.eclipse.lsp4j.InitializeResult;
import org.eclipse.lsp4j.PublishDiagnosticsParams;
import org.eclipse.lsp4j.ServerCapabilities;
import org.eclipse.lsp4j.ServerInfo;
import org.eclipse.lsp4j.SymbolInformation;
import org.eclipse.lsp4j.TextDocumentContentChangeEvent;
import org.eclipse.lsp4j.TextDocumentSyncKind;
import org.eclipse.lsp4j.jsonrpc.ResponseErrorException;
import org.eclipse.lsp4j.jsonrpc.messages.Either;
import org.eclipse.lsp4j.jsonrpc.messages.ResponseError;
import org.eclipse.lsp4j.jsonrpc.messages.ResponseErrorCode;
import org.eclipse.lsp4j.services.LanguageClient;
import org.eclipse.lsp4j.services.LanguageClientAware;
import org.eclipse.lsp4j.services.LanguageServer;
import org.eclipse.lsp4j.services.TextDocumentService;
import org.eclipse.lsp4j.services.WorkspaceService;

/**
 * The policy language server: keeps the open documents, publishes their diagnostics on open and on every
 * change, and answers completion, hover, code actions and document symbols from the latest text. It follows
 * the protocol's lifecycle: before {@code initialize} it refuses requests ({@code ServerNotInitialized}) and
 * drops notifications, after {@code shutdown} it refuses requests ({@code InvalidRequest}), and {@code exit} completes
 * {@link #exitCode()} with 0 (after {@code shutdown}) or 1 (without). Analysis never fails a request or stops
 * the server: a text that does not parse has a parse-error diagnostic, and an unexpected error in the analysis
 * is published as an {@code internal_error} diagnostic.
 *
 * <p>Thread-safe: documents are kept in a concurrent map of immutable {@link PolicyBuffer}s (LSP4J delivers
 * messages one at a time, in order).
 */
public final class CustodyLanguageServer implements LanguageServer, LanguageClientAware {
    private final Map<String, PolicyBuffer> buffers = new ConcurrentHashMap<>();
    private final CompletableFuture<Integer> exitCode = new CompletableFuture<>();
    private final Documents documents = new Documents();
    private volatile LanguageClient client;
    private volatile boolean initialized;
    private volatile boolean shutdown;

    /** Completed with the process's exit code when the client sends {@code exit}. */
    public CompletableFuture<Integer> exitCode() {
        return exitCode;
    }

    /** Whether {@code shutdown} was received. */
    public boolean shutdownReceived() {
        return shutdown;
    }

    @Override
    public void connect(LanguageClient languageClient) {
        this.client = languageClient;
    }

    @Override
    public CompletableFuture<InitializeResult> initialize(InitializeParams params) {
        ServerCapabilities c = new ServerCapabilities();
        c.setTextDocumentSync(TextDocumentSyncKind.Full);
        CompletionOptions completion = new CompletionOptions();
        completion.setTriggerCharacters(List.of(".", ":", "\""));
        c.setCompletionProvider(completion);
        c.setHoverProvider(true);
        c.setCodeActionProvider(new CodeActionOptions(List.of(CodeActionKind.QuickFix)));
        c.setDocumentSymbolProvider(true);
        initialized = true;
        return CompletableFuture.completedFuture(new InitializeResult(c, new ServerInfo("custody", VersionProvider.version())));
    }

    @Override
    public CompletableFuture<Object> shutdown() {
        shutdown = true;
        buffers.clear();
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void exit() {
        exitCode.complete(shutdown ? 0 : 1);
    }

    @Override
    public TextDocumentService getTextDocumentService() {
        return documents;
    }

    @Override
    public WorkspaceService getWorkspaceService() {
        return new WorkspaceService() {
            @Override
            public void didChangeConfiguration(DidChangeConfigurationParams params) {
                // no settings
            }

            @Override
            public void didChangeWatchedFiles(DidChangeWatchedFilesParams params) {
                // open documents are analysed from their text, not from disk
            }
        };
    }

    private void open(String uri, int version, String text) {
        PolicyBuffer buffer;
        List<Diagnostic> diagnostics;
        try {
            buffer = PolicyBuffer.of(uri, version, text);
            diagnostics = buffer.diagnostics();
        } catch (RuntimeException | StackOverflowError e) {
            buffer = null;
            Diagnostic d = new Diagnostic(new org.eclipse.lsp4j.Range(new org.eclipse.lsp4j.Position(0, 0),
                    new org.eclipse.lsp4j.Position(0, 0)), "internal error: " + e, DiagnosticSeverity.Error,
                    PolicyBuffer.SOURCE, "internal_error");
            diagnostics = List.of(d);
        }
        if (buffer != null) {
            buffers.put(uri, buffer);
        } else {
            buffers.remove(uri);
        }
        LanguageClient c = client;
        if (c != null) {
            c.publishDiagnostics(new PublishDiagnosticsParams(uri, diagnostics, version));
        }
    }

    private PolicyBuffer buffer(String uri) {
        if (!initialized) {
            throw new ResponseErrorException(new ResponseError(ResponseErrorCode.ServerNotInitialized,
                    "the server is not initialized", null));
        }
        if (shutdown) {
            throw new ResponseErrorException(new ResponseError(ResponseErrorCode.InvalidRequest,
                    "the server is shut down", null));
        }
        return buffers.get(uri);
    }

    /** The text document service: full-text sync, and the requests on one document. */
    private final class Documents implements TextDocumentService {
        @Override
        public void didOpen(DidOpenTextDocumentParams params) {
            if (!initialized || shutdown) {
                return; // the protocol drops notifications before initialize and after shutdown
            }
            open(params.getTextDocument().getUri(), params.getTextDocument().getVersion(),
                    params.getTextDocument().getText());
        }

        @Override
        public void didChange(DidChangeTextDocumentParams params) {
            if (!initialized || shutdown) {
                return;
            }
            String uri = params.getTextDocument().getUri();
            PolicyBuffer current = buffers.get(uri);
            String text = current == null ? "" : current.text();
            for (TextDocumentContentChangeEvent change : params.getContentChanges()) {
                if (change.getRange() == null) {
                    text = change.getText();
                } else {
                    // a client that sends ranges anyway: apply them in order
                    TextIndex index = new TextIndex(text);
                    text = text.substring(0, index.offset(change.getRange().getStart())) + change.getText()
                            + text.substring(index.offset(change.getRange().getEnd()));
                }
            }
            Integer version = params.getTextDocument().getVersion();
            open(uri, version == null ? 0 : version, text);
        }

        @Override
        public void didClose(DidCloseTextDocumentParams params) {
            String uri = params.getTextDocument().getUri();
            buffers.remove(uri);
            LanguageClient c = client;
            if (c != null) {
                c.publishDiagnostics(new PublishDiagnosticsParams(uri, List.of()));
            }
        }

        @Override
        public void didSave(DidSaveTextDocumentParams params) {
            // diagnostics follow the text as it changes; saving changes nothing
        }

        @Override
        public CompletableFuture<Either<List<CompletionItem>, CompletionList>> completion(CompletionParams params) {
            PolicyBuffer b = buffer(params.getTextDocument().getUri());
            List<CompletionItem> items = b == null ? List.of()
                    : Completions.at(b, b.index().offset(params.getPosition()));
            return CompletableFuture.completedFuture(Either.forRight(new CompletionList(false, items)));
        }

        @Override
        public CompletableFuture<Hover> hover(HoverParams params) {
            PolicyBuffer b = buffer(params.getTextDocument().getUri());
            return CompletableFuture.completedFuture(b == null ? null : Hovers.at(b, b.index().offset(params.getPosition())));
        }

        @Override
        public CompletableFuture<List<Either<Command, CodeAction>>> codeAction(CodeActionParams params) {
            PolicyBuffer b = buffer(params.getTextDocument().getUri());
            List<Either<Command, CodeAction>> out = b == null ? List.of()
                    : QuickFixes.in(b, params.getRange()).stream().map(Either::<Command, CodeAction>forRight).toList();
            return CompletableFuture.completedFuture(out);
        }

        @Override
        public CompletableFuture<List<Either<SymbolInformation, DocumentSymbol>>> documentSymbol(
                DocumentSymbolParams params) {
            PolicyBuffer b = buffer(params.getTextDocument().getUri());
            List<Either<SymbolInformation, DocumentSymbol>> out = b == null ? List.of()
                    : Symbols.of(b).stream().map(Either::<SymbolInformation, DocumentSymbol>forRight).toList();
            return CompletableFuture.completedFuture(out);
        }
    }
}

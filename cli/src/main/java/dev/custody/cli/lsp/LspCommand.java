package dev.custody.cli.lsp;

import dev.custody.cli.CliRoot;
import dev.custody.cli.Compilers;
import dev.custody.cli.VersionProvider;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.eclipse.lsp4j.jsonrpc.Launcher;
import org.eclipse.lsp4j.launch.LSPLauncher;
import org.eclipse.lsp4j.services.LanguageClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/**
 * {@code custody lsp}: the language server over standard input and output, as editors start it. Standard
 * output carries only the protocol (anything else the process prints goes to standard error). It returns when
 * the client sends {@code exit} (0 after {@code shutdown}, 1 without, as the protocol says) or when standard
 * input closes (the same codes: an editor that went away without {@code shutdown} gets 1).
 */
@Command(name = "lsp",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {"Language server for policy files and policy tests, over stdin/stdout.",
            "Diagnostics as `custody lint` reports them, completion of fields, properties and values,",
            "hover on fields, did-you-mean quick fixes, document symbols. Started by an editor."},
        footerHeading = "%nExamples:%n",
        footer = {
            "  custody lsp        # started by an editor over stdio, not by hand",
            "",
            "Neovim: vim.lsp.start({name = 'custody', cmd = {'custody', 'lsp'}})",
            "VS Code: a generic LSP client extension running `custody lsp`.",
            "The README's \"Editor support\" has the set-up for each.",
        })
public final class LspCommand implements Callable<Integer> {

    @ParentCommand
    CliRoot root;

    @Override
    public Integer call() throws Exception {
        Compilers.prestart(); // the first document's diagnostics need the compiler: build it while the editor starts
        InputStream in = root.environment().stdin();
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        PrintStream stdout = System.out;
        System.setOut(System.err); // stray prints must not corrupt the protocol on stdout
        try {
            CustodyLanguageServer server = new CustodyLanguageServer();
            Launcher<LanguageClient> launcher = LSPLauncher.createServerLauncher(server, in, out);
            server.connect(launcher.getRemoteProxy());
            Future<Void> listening = launcher.startListening();
            CompletableFuture<Void> closed = CompletableFuture.runAsync(() -> {
                try {
                    listening.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException e) {
                    // the stream broke: the same as closing it
                }
            });
            CompletableFuture.anyOf(server.exitCode(), closed).join();
            return server.exitCode().isDone() ? server.exitCode().join() : server.shutdownReceived() ? 0 : 1;
        } finally {
            out.flush();
            System.setOut(stdout);
        }
    }
}

package dev.custody.cli.main;

import dev.custody.cli.ExitCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.AutoComplete;

/**
 * Writes the bash/zsh completion script of {@code custody} (run by the build: {@code cli/target/custody_completion}).
 * The verbs are added to the root in code ({@link Custody#VERBS}), so the script is generated from the
 * configured command line rather than from the root class's annotation.
 */
public final class CompletionScript {
    private CompletionScript() {}

    /** @param args the file to write */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: CompletionScript FILE");
            System.exit(ExitCode.USAGE);
        }
        String script = AutoComplete.bash("custody", Custody.commandLine());
        Files.writeString(Path.of(args[0]), script, StandardCharsets.UTF_8);
    }
}

package dev.custody.cli.command.api;

import dev.custody.cli.ExitCode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that only groups subcommands ({@code networks}, {@code policies}, …): run alone it
 * prints which subcommands exist and exits 2. Not thread-safe (picocli state).
 */
abstract class ApiGroup implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        return missingSubcommand(spec);
    }

    static int missingSubcommand(CommandSpec spec) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("error: `" + spec.qualifiedName() + "` needs a subcommand: one of `"
                + String.join("`, `", spec.subcommands().keySet()) + "`");
        spec.commandLine().usage(err);
        return ExitCode.USAGE;
    }
}

package dev.custody.cli.command;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --base} and {@code --head}: the policy sets before and after a change, for {@code diff} and {@code review}. */
final class ChangeSides {
    @Option(names = "--base", required = true, arity = "1..*", paramLabel = "PATH",
            description = "Policy files or directories before the change.")
    List<Path> base;

    @Option(names = "--head", required = true, arity = "1..*", paramLabel = "PATH",
            description = "Policy files or directories after the change.")
    List<Path> head;
}

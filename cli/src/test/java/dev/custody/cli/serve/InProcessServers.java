package dev.custody.cli.serve;

import dev.custody.cli.CliEnvironment;
import dev.custody.cli.main.Custody;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * {@code custody serve} started in process on a free loopback port, as the command line would start it, for a test
 * that stops them all afterwards ({@link #stopAll()} from an {@code @AfterEach}). Not thread-safe: one test's.
 */
final class InProcessServers {
    private final List<ServeCommand.Running> started = new ArrayList<>();

    /** Starts {@code custody serve --addr 127.0.0.1:0 ARGS…}; its output goes nowhere. */
    ServeCommand.Running start(String... args) throws Exception {
        CliEnvironment environment = new CliEnvironment(InputStream.nullInputStream(), new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter(), true), Clock.systemUTC(), false, false);
        CommandLine cl = Custody.commandLine(environment, "serve");
        List<String> full = new ArrayList<>(List.of("serve", "--addr", "127.0.0.1:0"));
        full.addAll(List.of(args));
        ServeCommand command = (ServeCommand) cl.parseArgs(full.toArray(String[]::new)).subcommand().commandSpec()
                .userObject();
        ServeCommand.Running running = command.start();
        started.add(running);
        return running;
    }

    /** Stops every server started, in order. */
    void stopAll() throws Exception {
        for (ServeCommand.Running r : started) {
            r.stop();
        }
        started.clear();
    }
}

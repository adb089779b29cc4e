package dev.custody.cli.command.api;

import dev.custody.client.FakeTime;
import dev.custody.client.Signatures;
import dev.custody.client.StubServer;
import dev.custody.client.TestClients;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;

/** Runs {@code custody api …} in-process against a stub server, with a fake clock and fixed keys. */
final class ApiCli {
    /** Exit code and captured output of one run. */
    record Result(int exit, String out, String err) {
    }

    final FakeTime time = new FakeTime(TestClients.NOW);
    final Map<String, String> env = new HashMap<>();
    final List<String> lookups = new CopyOnWriteArrayList<>();
    private final AtomicInteger keys = new AtomicInteger();

    ApiCli(StubServer server) {
        env.put("CUSTODY_BASE_URL", server.baseUrl());
        env.put("CUSTODY_API_KEY", Signatures.KEY);
        env.put("CUSTODY_API_SECRET", Signatures.SECRET);
    }

    Result run(String... args) {
        ApiEnvironment environment = new ApiEnvironment(name -> {
            lookups.add(name);
            return env.get(name);
        }, time, time, () -> "key-" + keys.incrementAndGet());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new ApiCommand(environment));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }
}

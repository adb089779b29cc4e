package dev.custody.cli.command.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.ExitCode;
import dev.custody.client.EchoCases;
import dev.custody.client.EchoCases.Case;
import dev.custody.client.StubServer;
import dev.custody.client.StubServer.Recorded;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * No credential reaches stdout or stderr of {@code custody api …}, with {@code --debug} or without,
 * in text or JSON format, whatever the server echoes: the generated cases of {@link EchoCases} (the
 * key, the secret or the request's signature, whole, in fragments, encoded, across the cuts, in
 * error and success envelopes, {@code errors} lists, HTML and plain text), each run both ways.
 */
class ApiCredentialEchoTest {
    /** 64 cases cover every target and form at least once; each runs twice, with and without --debug. */
    static final int CASES = 64;

    static StubServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new StubServer();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @TestFactory
    Stream<DynamicTest> nothingPrintedHoldsAnEchoedCredential() {
        return EchoCases.cases(CASES).stream().flatMap(c -> Stream.of(false, true)
                .map(debug -> DynamicTest.dynamicTest(c + (debug ? " --debug" : ""), () -> run(c, debug))));
    }

    private static void run(Case c, boolean debug) {
        boolean stats = c.call() == EchoCases.Call.STATS;
        String path = stats ? "/api/v1/workspaces/ws-" + c.index() + "/stats" : "/api/v1/networks/rescan-transaction";
        List<Recorded> seen = new ArrayList<>();
        server.respond(stats ? "GET" : "POST", path, request -> {
            synchronized (seen) {
                seen.add(request);
            }
            return c.reply(request);
        });
        ApiCli cli = new ApiCli(server);
        cli.env.put("CUSTODY_API_KEY", c.apiKey());
        cli.env.put("CUSTODY_API_SECRET", c.apiSecret());
        List<String> args = new ArrayList<>(stats ? List.of("stats", "--workspace-id", "ws-" + c.index())
                : List.of("networks", "rescan", "--tx-hash", "0xabc", "--network-id", "n1"));
        if (c.index() % 2 == 1) {
            args.addAll(List.of("--format", "json"));
        }
        if (debug) {
            args.add("--debug");
        }
        ApiCli.Result r = cli.run(args.toArray(String[]::new));
        if (seen.isEmpty()) {
            // only a key that no http header can carry is refused before sending
            assertEquals(ExitCode.USAGE, r.exit(), r::err);
        } else {
            assertTrue(r.exit() == ExitCode.OK || r.exit() == ExitCode.IO, () -> r.exit() + ": " + r.err());
        }
        List<String> credentials = EchoCases.credentials(c, seen);
        EchoCases.assertClean(c, "stdout", r.out(), credentials);
        EchoCases.assertClean(c, "stderr", r.err(), credentials);
    }
}

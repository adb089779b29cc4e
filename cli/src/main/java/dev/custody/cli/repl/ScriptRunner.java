package dev.custody.cli.repl;

import dev.custody.cli.ExitCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Optional;

/**
 * The REPL without a terminal: entries read from piped input with a plain {@link BufferedReader}, for
 * scripts and CI.
 *
 * <p>No prompt is printed and input is not echoed, so the output holds only what the entries print, with no
 * escape codes: {@code printf 'withdrawal.value_usd > 10\n' | custody repl} prints {@code true} or
 * {@code false} and nothing else. An entry with an open bracket or quote continues on the next lines, as on
 * a terminal. The exit code is {@link ExitCode#OK} when every entry went well and {@link ExitCode#INPUT} when
 * any entry printed an error (a condition that is {@code false} is not an error), so a file of checks can
 * gate a pipeline; input that ends inside an unfinished entry is an error too. {@code :quit} stops early with
 * the same rule.
 *
 * <p>Not thread-safe.
 */
final class ScriptRunner {
    private final Session session;
    private final PrintWriter out;

    ScriptRunner(Session session, PrintWriter out) {
        this.session = session;
        this.out = out;
    }

    /**
     * Runs every entry of {@code in} until its end or {@code :quit}.
     *
     * @param failedBefore whether something already failed (the command's startup options)
     * @return the exit code
     * @throws IOException when the input cannot be read
     */
    int run(BufferedReader in, boolean failedBefore) throws IOException {
        boolean failed = failedBefore;
        String pending = null;
        String line;
        while ((line = in.readLine()) != null) {
            String entry = pending == null ? line : pending + "\n" + line;
            if (LineSyntax.missing(entry).isPresent()) {
                pending = entry;
                continue;
            }
            pending = null;
            Session.Status status = session.execute(entry);
            failed |= status == Session.Status.ERROR;
            if (status == Session.Status.QUIT) {
                break;
            }
        }
        if (pending != null) {
            Optional<String> missing = LineSyntax.missing(pending);
            out.print("error: input ended inside an unfinished entry (`" + missing.orElse("") + "` missing)\n");
            out.flush();
            failed = true;
        }
        return failed ? ExitCode.INPUT : ExitCode.OK;
    }
}

package dev.custody.cli.command.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.ExitCode;
import dev.custody.client.ApiResponse;
import dev.custody.client.CustodyApiException;
import dev.custody.client.CustodyClient;
import dev.custody.client.CustodyClientConfig;
import dev.custody.client.CustodyTimeoutException;
import dev.custody.client.CustodyTransportException;
import dev.custody.client.InvalidRequestException;
import dev.custody.engine.files.Finding;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The skeleton of every {@code api} leaf command: builds the client from the options and the
 * environment, runs {@link #run}, and turns each failure into one {@code error:} line on stderr and
 * its exit code (a stack trace only with {@code --debug}). Subclasses only call the client and
 * print. Not thread-safe (picocli state).
 */
abstract class ApiLeaf implements Callable<Integer> {
    static final ObjectMapper JSON = CustodyClient.newMapper();

    @Spec
    CommandSpec spec;

    @Mixin
    ApiOptions options;

    PrintWriter out;
    PrintWriter err;
    ApiEnvironment environment;

    @Override
    public final Integer call() {
        out = spec.commandLine().getOut();
        err = spec.commandLine().getErr();
        environment = findEnvironment();
        try {
            return run(client());
        } catch (UsageException | InvalidRequestException e) {
            return fail(ExitCode.USAGE, e.getMessage(), e);
        } catch (InputFileException e) {
            return fail(e.io() ? ExitCode.IO : ExitCode.INPUT, e.getMessage(), e);
        } catch (CustodyApiException e) {
            fail(ExitCode.IO, e.getMessage(), e);
            for (String detail : e.errors()) {
                err.println("  - " + detail);
            }
            err.flush();
            return ExitCode.IO;
        } catch (CustodyTransportException | CustodyTimeoutException e) {
            return fail(ExitCode.IO, e.getMessage(), e);
        } catch (RuntimeException e) {
            return fail(ExitCode.IO, "internal error: " + String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT), e);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** Calls the API and prints; returns the exit code. */
    abstract int run(CustodyClient client);

    private int fail(int code, String message, Throwable e) {
        err.println("error: " + message);
        if (options.debug) {
            e.printStackTrace(err);
        }
        return code;
    }

    private ApiEnvironment findEnvironment() {
        for (CommandSpec s = spec; s != null; s = s.parent()) {
            if (s.userObject() instanceof ApiCommand api) {
                return api.environment();
            }
        }
        return ApiEnvironment.system();
    }

    private CustodyClient client() {
        String baseUrl = options.baseUrl != null ? options.baseUrl : environment.env().apply("CUSTODY_BASE_URL");
        if (baseUrl == null || baseUrl.isBlank()) {
            throw new UsageException("no base url: pass `--base-url` or set `CUSTODY_BASE_URL`");
        }
        if (options.connectTimeoutSeconds < 1 || options.requestTimeoutSeconds < 1) {
            throw new UsageException("time-outs must be at least 1 second");
        }
        CustodyClientConfig config;
        try {
            config = CustodyClientConfig.builder(baseUrl)
                    .credentials(environment.env().apply("CUSTODY_API_KEY"), environment.env().apply("CUSTODY_API_SECRET"))
                    .connectTimeout(Duration.ofSeconds(options.connectTimeoutSeconds))
                    .requestTimeout(Duration.ofSeconds(options.requestTimeoutSeconds))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        CustodyClient.Builder builder = CustodyClient.builder(config)
                .clock(environment.clock())
                .sleeper(environment.sleeper())
                .idempotencyKeys(environment.idempotencyKeys())
                .warnings(w -> err.println("warning: " + w));
        if (options.debug) {
            builder.debug(line -> err.println("debug: " + line));
            err.println("debug: " + config);
        }
        return builder.build();
    }

    // ---------------------------------------------------------------- output helpers

    boolean json() {
        return options.format == ApiOptions.Format.json;
    }

    /** Pretty JSON of {@code node} on stdout. */
    void printJson(JsonNode node) {
        try {
            out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot print json", e);
        }
    }

    /** Pretty JSON of a typed value on stdout. */
    void printJsonValue(Object value) {
        printJson(JSON.valueToTree(value));
    }

    /** With {@code --format json} prints the response data and returns true. */
    boolean printedAsJson(ApiResponse<?> response) {
        if (json()) {
            printJson(response.raw());
            return true;
        }
        return false;
    }

    /**
     * Prints a list answer: its data as JSON with {@code --format json}, else {@code none} when it
     * is empty, else a table with one row per element.
     */
    <T> int printList(ApiResponse<List<T>> response, String none, String[] header,
            java.util.function.Function<T, Object[]> row) {
        if (printedAsJson(response)) {
            return ExitCode.OK;
        }
        if (response.data().isEmpty()) {
            out.println(none);
            return ExitCode.OK;
        }
        Table table = new Table(header);
        response.data().forEach(item -> table.row(row.apply(item)));
        table.print(out);
        return ExitCode.OK;
    }

    /** {@code key: value} lines, keys padded to the longest; null values are skipped. */
    void printFields(Object... keyValues) {
        int width = 0;
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                width = Math.max(width, keyValues[i].toString().length());
            }
        }
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                String key = keyValues[i] + ":";
                out.println(key + " ".repeat(width + 3 - key.length()) + keyValues[i + 1]);
            }
        }
    }

    /**
     * Prints policy-file findings on stderr, one {@code file:line:column: severity[code] message}
     * line each (with the hint indented below), and returns exit 1 when any is an error.
     */
    int reportFindings(List<Finding> findings) {
        for (Finding f : findings) {
            err.println(f.oneLine());
            if (f.diagnostic().hint() != null) {
                err.println("  hint: " + f.diagnostic().hint());
            }
        }
        return findings.stream().anyMatch(f -> f.diagnostic().isError()) ? ExitCode.INPUT : ExitCode.OK;
    }

    /** Text of a field of a JSON object, or null when absent. */
    static String text(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v == null || v.isNull() ? null : v.isValueNode() ? v.asText() : v.toString();
    }

    /** Reads a JSON file (typed data, raw transactions). */
    static JsonNode readJson(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new InputFileException("cannot read `" + file + "`: no such file", true, e);
        } catch (IOException e) {
            throw new InputFileException("cannot read `" + file + "`: " + e.getMessage(), true, e);
        }
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || node.isMissingNode()) {
                throw new InputFileException("`" + file + "` is empty", false, null);
            }
            return node;
        } catch (JsonProcessingException e) {
            int line = e.getLocation() == null ? -1 : e.getLocation().getLineNr();
            throw new InputFileException("`" + file + "`" + (line > 0 ? " line " + line : "") + " is not valid json: "
                    + String.valueOf(e.getOriginalMessage()).toLowerCase(Locale.ROOT), false, e);
        } catch (IOException e) {
            throw new InputFileException("cannot read `" + file + "`: " + e.getMessage(), true, e);
        }
    }
}

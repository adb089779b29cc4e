package dev.custody.cli.command.api;

import picocli.CommandLine.Option;

/**
 * Options shared by every {@code api} leaf command (a picocli mixin). Not thread-safe.
 */
final class ApiOptions {
    /** Output formats of the api commands. */
    enum Format { text, json }

    @Option(names = "--base-url", paramLabel = "URL",
            description = "Base URL of the API, including /api/v1 (default: $CUSTODY_BASE_URL).")
    String baseUrl;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}); json prints the response data.")
    Format format = Format.text;

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Connect time-out in seconds (default: ${DEFAULT-VALUE}).")
    int connectTimeoutSeconds = 10;

    @Option(names = "--request-timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "Time-out of one HTTP request in seconds (default: ${DEFAULT-VALUE}).")
    int requestTimeoutSeconds = 30;

    @Option(names = "--debug", description = "Print requests, statuses and stack traces on stderr (secrets redacted).")
    boolean debug;
}

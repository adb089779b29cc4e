package dev.custody.cli.command;

import dev.custody.cli.CliException;
import dev.custody.engine.coverage.CoverageRecorder;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --coverage FILE}, {@code --coverage-html DIR} and {@code --coverage-threshold PERCENT}, shared by
 * {@code test} and {@code replay} (docs/design.md §5.3). Any of them turns coverage on: the verb's engine gets a
 * {@link CoverageRecorder}, and {@link CoverageFiles} writes and checks what it counted.
 */
final class CoverageOptions {
    @Option(names = "--coverage", paramLabel = "FILE",
            description = "Write coverage as JSON to FILE: per rule how often it was evaluated, true, false, "
                    + "erroring; per branch (operand of &&, ||, !, ?: and comparison) how often true and false.")
    Path json;

    @Option(names = "--coverage-html", paramLabel = "DIR",
            description = "Write one HTML page per policy file to DIR (and index.html), each condition's parts "
                    + "marked as seen true, false, both or never.")
    Path html;

    @Option(names = "--coverage-threshold", paramLabel = "PERCENT", converter = PercentConverter.class,
            description = "Exit 1 when fewer than PERCENT %% of branch outcomes were seen "
                    + "(100 x outcomes seen / (2 x branches); a branch has two outcomes, true and false).")
    BigDecimal threshold;

    /** Whether coverage is asked for. */
    boolean on() {
        return json != null || html != null || threshold != null;
    }

    /** A recorder when coverage is on, else null (the engine then does no coverage work). */
    CoverageRecorder recorder() {
        return on() ? new CoverageRecorder() : null;
    }

    /** Fails before any work when an output cannot be written where it is asked for. */
    void checkWritable() {
        if (json != null) {
            if (Files.isDirectory(json)) {
                throw CliException.io("cannot write coverage to `" + json + "`: it is a directory");
            }
            Path parent = json.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw CliException.io("cannot write coverage to `" + json + "`: no directory `" + parent + "`");
            }
        }
        if (html != null && Files.exists(html) && !Files.isDirectory(html)) {
            throw CliException.io("cannot write coverage pages to `" + html + "`: it is a file, not a directory");
        }
    }

    /** A percentage from 0 to 100. */
    static final class PercentConverter implements ITypeConverter<BigDecimal> {
        @Override
        public BigDecimal convert(String value) {
            BigDecimal p;
            try {
                p = new BigDecimal(value.strip().endsWith("%") ? value.strip().substring(0, value.strip().length() - 1)
                        : value.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("`" + value + "` is not a percentage (a number from 0 to 100)");
            }
            if (p.signum() < 0 || p.compareTo(BigDecimal.valueOf(100)) > 0) {
                throw new TypeConversionException("`" + value + "` is not a percentage from 0 to 100");
            }
            return p;
        }
    }
}

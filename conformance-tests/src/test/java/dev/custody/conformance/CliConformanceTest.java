package dev.custody.conformance;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The conformance corpus ({@code src/test/resources/cases/*.yaml}) through the {@code custody} command line,
 * in-process. Cases the CLI cannot express (rule updates; an unknown trigger action or effect, a usage error
 * of {@code custody validate}) are reported as skipped, never as passed.
 */
class CliConformanceTest {
    private static final ConformanceSubject SUBJECT = new CliSubject();

    @TestFactory
    Stream<DynamicTest> corpus() {
        return CorpusRunner.tests(SUBJECT);
    }
}

package dev.custody.conformance;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** The conformance corpus ({@code src/test/resources/cases/*.yaml}) against the engine library. */
class LibraryConformanceTest {
    private static final ConformanceSubject SUBJECT = new LibrarySubject();

    @TestFactory
    Stream<DynamicTest> corpus() {
        return CorpusRunner.tests(SUBJECT);
    }
}

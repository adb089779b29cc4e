package dev.custody.cli.command;

import java.io.StringWriter;
import java.util.Locale;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * Policy test results as JUnit XML (the de-facto schema CI servers read): one {@code <testsuite>} per test
 * file, one {@code <testcase>} per case ({@code classname} = the file), a {@code <failure>} for a failed case
 * and an {@code <error>} test case for each problem of the file itself. Written with the JDK's StAX writer, so
 * names and messages are escaped correctly.
 */
final class JUnitXml {
    private JUnitXml() {}

    static String write(java.util.List<TestCommand.FileResult> results) {
        StringWriter buffer = new StringWriter();
        try {
            XMLStreamWriter x = XMLOutputFactory.newFactory().createXMLStreamWriter(buffer);
            x.writeStartDocument("UTF-8", "1.0");
            x.writeCharacters("\n");
            int tests = 0;
            int failures = 0;
            int errors = 0;
            long nanos = 0;
            for (TestCommand.FileResult r : results) {
                tests += r.cases().size() + r.problems().size();
                failures += (int) r.cases().stream().filter(c -> !c.passed()).count();
                errors += r.problems().size();
                nanos += r.nanos();
            }
            x.writeStartElement("testsuites");
            x.writeAttribute("name", "custody test");
            x.writeAttribute("tests", Integer.toString(tests));
            x.writeAttribute("failures", Integer.toString(failures));
            x.writeAttribute("errors", Integer.toString(errors));
            x.writeAttribute("time", seconds(nanos));
            x.writeCharacters("\n");
            for (TestCommand.FileResult r : results) {
                suite(x, r);
            }
            x.writeEndElement();
            x.writeCharacters("\n");
            x.writeEndDocument();
            x.close();
        } catch (XMLStreamException e) {
            throw new IllegalStateException("cannot write JUnit XML: " + e.getMessage(), e);
        }
        return buffer.toString();
    }

    private static void suite(XMLStreamWriter x, TestCommand.FileResult r) throws XMLStreamException {
        long failures = r.cases().stream().filter(c -> !c.passed()).count();
        x.writeCharacters("  ");
        x.writeStartElement("testsuite");
        x.writeAttribute("name", r.file());
        x.writeAttribute("tests", Integer.toString(r.cases().size() + r.problems().size()));
        x.writeAttribute("failures", Long.toString(failures));
        x.writeAttribute("errors", Integer.toString(r.problems().size()));
        x.writeAttribute("skipped", "0");
        x.writeAttribute("time", seconds(r.nanos()));
        x.writeCharacters("\n");
        for (PolicyTestFile.Problem p : r.problems()) {
            x.writeCharacters("    ");
            x.writeStartElement("testcase");
            x.writeAttribute("name", "(test file) " + (p.line() > 0 ? "line " + p.line() : p.file()));
            x.writeAttribute("classname", r.file());
            x.writeAttribute("time", "0");
            x.writeStartElement("error");
            x.writeAttribute("message", p.message());
            x.writeAttribute("type", "test-file");
            x.writeCharacters(p.oneLine());
            x.writeEndElement();
            x.writeEndElement();
            x.writeCharacters("\n");
        }
        for (TestCommand.CaseResult c : r.cases()) {
            x.writeCharacters("    ");
            x.writeStartElement("testcase");
            x.writeAttribute("name", c.testCase().name());
            x.writeAttribute("classname", r.file());
            x.writeAttribute("file", r.file());
            x.writeAttribute("line", Integer.toString(c.testCase().line()));
            x.writeAttribute("time", seconds(c.nanos()));
            if (!c.passed()) {
                x.writeStartElement("failure");
                x.writeAttribute("message", c.failure());
                x.writeAttribute("type", "assertion");
                x.writeCharacters(r.file() + ":" + c.testCase().line() + ": " + c.failure());
                x.writeEndElement();
            }
            x.writeEndElement();
            x.writeCharacters("\n");
        }
        x.writeCharacters("  ");
        x.writeEndElement();
        x.writeCharacters("\n");
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
    }
}

package dev.custody.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every citation of {@code docs/design.md} in the repository names a section that exists, as {@code ReadmeTest}
 * holds the README to the tool: code, tests, the corpus's {@code spec} fields and the documents cite sections as
 * {@code docs/design.md §n}, and a citation of a section that was moved or never written would send the reader
 * nowhere. A {@code §n} anywhere in the repository's text files is such a citation (design.md's own, a
 * continuation such as {@code §3.13, §4.4}, a range such as {@code §3.1–2}: its first number), except one
 * preceded by {@code DESIGN }, which names a document outside the repository.
 */
class DesignReferencesTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path DESIGN = ROOT.resolve("docs/design.md");

    private static final Pattern HEADING = Pattern.compile("^#{2,3} (\\d+(?:\\.\\d+)?)\\.? .*");
    private static final Pattern CITATION = Pattern.compile("§(\\d+(?:\\.\\d+)?)");
    private static final Set<String> TEXT = Set.of(
            "java", "md", "xml", "yaml", "yml", "json", "sh", "py", "lua", "properties", "txt", "html", "expected");

    @Test
    void everyCitationNamesASectionOfDesignMd() throws IOException {
        assertTrue(Files.isRegularFile(DESIGN), "run from the conformance-tests module: " + DESIGN);
        Set<String> sections = sections(Files.readAllLines(DESIGN, StandardCharsets.UTF_8));
        List<String> dangling = new ArrayList<>();
        int citations = 0;
        for (Path file : textFiles()) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (java.nio.charset.MalformedInputException e) {
                continue; // not UTF-8 text (a fuzz input named like text): nothing cites a section there
            }
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = CITATION.matcher(lines.get(i));
                while (m.find()) {
                    if (m.start() >= 7 && lines.get(i).startsWith("DESIGN ", m.start() - 7)) {
                        continue;
                    }
                    citations++;
                    if (!sections.contains(m.group(1))) {
                        dangling.add(ROOT.relativize(file) + ":" + (i + 1) + ": §" + m.group(1));
                    }
                }
            }
        }
        assertEquals(List.of(), dangling, "citations of sections docs/design.md does not have");
        // the corpus alone cites design.md well over a hundred times: far fewer means the walk missed the files
        assertTrue(citations > 300, "citations found: " + citations);
    }

    @Test
    void sectionNumbersAreUniqueAndDesignMdHasBothParts() throws IOException {
        List<String> lines = Files.readAllLines(DESIGN, StandardCharsets.UTF_8);
        List<String> numbers = new ArrayList<>();
        for (String line : lines) {
            Matcher m = HEADING.matcher(line);
            if (m.matches()) {
                numbers.add(m.group(1));
            }
        }
        assertEquals(new ArrayList<>(new LinkedHashSet<>(numbers)), numbers, "a section number used twice");
        assertTrue(numbers.containsAll(List.of("1", "3.7", "3.15", "5.1", "8", "10.4", "17")), numbers.toString());
        assertTrue(lines.contains("# Part one: contracts") && lines.contains("# Part two: implementation notes"));
    }

    static Set<String> sections(List<String> lines) {
        Set<String> sections = new LinkedHashSet<>();
        for (String line : lines) {
            Matcher m = HEADING.matcher(line);
            if (m.matches()) {
                sections.add(m.group(1));
            }
        }
        return sections;
    }

    /** The repository's text files, without build output and hidden directories. */
    static List<Path> textFiles() throws IOException {
        try (Stream<Path> walk = Files.walk(ROOT)) {
            return walk.filter(p -> {
                        Path rel = ROOT.relativize(p);
                        for (Path part : rel) {
                            String s = part.toString();
                            if (s.equals("target") || s.startsWith(".") && !s.equals(".ci")) {
                                return false;
                            }
                        }
                        String name = p.getFileName().toString();
                        int dot = name.lastIndexOf('.');
                        return dot > 0 && TEXT.contains(name.substring(dot + 1)) && Files.isRegularFile(p);
                    })
                    .sorted()
                    .toList();
        }
    }
}

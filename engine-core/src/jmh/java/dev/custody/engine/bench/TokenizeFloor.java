package dev.custody.engine.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JSON-parsing floor of a replay: one thread reads an action stream line by line and only tokenizes each line
 * with Jackson's streaming parser (no values built, nothing decided, nothing written). A replay cannot be faster
 * per core than this; its target is a ratio to it, measured side by side on the same file.
 *
 * <pre>
 * java -cp cli/target/custody.jar engine-core/src/jmh/java/dev/custody/engine/bench/TokenizeFloor.java STREAM [RUNS]
 * </pre>
 */
public final class TokenizeFloor {
    private TokenizeFloor() {}

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        JsonFactory json = new JsonFactory();
        for (int run = 0; run < runs; run++) {
            long start = System.nanoTime();
            long lines = 0;
            long tokens = 0;
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines++;
                    try (JsonParser p = json.createParser(line)) {
                        while (p.nextToken() != null) {
                            tokens++;
                        }
                    }
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("run %d: %,d lines, %,d tokens in %.2f s: %,.0f lines/s on one core%n",
                    run + 1, lines, tokens, seconds, lines / seconds);
        }
    }
}

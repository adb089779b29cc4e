package dev.custody.engine.bench;

import dev.custody.engine.check.ActionReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What reading one line costs a replay, action lines and settlement records apart: {@link ActionReader#read(byte[],
 * int, int)} (the action with its checked payload, or the settlement) on lines held in memory, one thread, the two
 * kinds in turn in every round so that load from other processes hits both alike. Prints nanoseconds per line for
 * each kind, every round after the first four.
 *
 * <pre>
 * java -cp cli/target/custody.jar engine-core/src/jmh/java/dev/custody/engine/bench/ReadPerLine.java STREAM [ROUNDS]
 * </pre>
 * (default: 30 rounds; use a stream of some 50,000 lines.)
 */
public final class ReadPerLine {
    private ReadPerLine() {}

    public static void main(String[] args) throws IOException {
        List<byte[]> settlements = new ArrayList<>();
        List<byte[]> actions = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                (line.contains("\"event\"") ? settlements : actions).add(line.getBytes(StandardCharsets.UTF_8));
            }
        }
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        System.out.printf("%,d action lines, %,d settlement records%n", actions.size(), settlements.size());
        long sink = 0;
        for (int round = 0; round < rounds; round++) {
            double[] ns = new double[2];
            for (int kind = 0; kind < 2; kind++) {
                List<byte[]> lines = kind == 0 ? actions : settlements;
                long start = System.nanoTime();
                for (byte[] b : lines) {
                    sink += ActionReader.read(b, 0, b.length) instanceof ActionReader.Malformed ? 0 : 1;
                }
                ns[kind] = (double) (System.nanoTime() - start) / Math.max(1, lines.size());
            }
            if (round >= 4) {
                System.out.printf("round %d: action %,.0f ns per line, settlement %,.0f ns per line%n", round, ns[0],
                        ns[1]);
            }
        }
        System.out.println("(sink " + sink + ")");
    }
}

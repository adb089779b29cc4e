package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.regex.Pattern;

/**
 * Jazzer fuzz target for action lines: any bytes through {@link ActionReader#read(byte[], int, int)} (the byte path:
 * {@link JsonLine}'s one pass, then Jackson's byte parser, then the text) and through {@link ActionReader#read(String)}
 * on their decoding ({@link ActionReader#decode}, the general path). Invariants: nothing escapes either; a malformed
 * line gets a non-empty one-line message and a column inside the line (or 0); an exception caught inside the reader
 * and turned into {@code malformed JSON: SomeException} counts as escaping; both paths give equal results (class,
 * {@code equals}, {@code toString}, the sections deep and doubles bit for bit, the checked payload at two instants,
 * through {@link FastPathFuzzTest}'s oracle); the same bytes inside a larger buffer read the same.
 *
 * <p>Committed inputs: {@code src/test/resources/dev/custody/engine/check/ActionLineFuzzInputs/actionLine/} (one
 * line per file: the example stream's kinds of line and boundary lines). Fuzzing:
 * {@code JAZZER_FUZZ=1 ./mvnw -B -pl engine-schema,engine-core test -Dtest=ActionLineFuzz#actionLine}
 * (docs/design.md §17).
 */
class ActionLineFuzz {
    /** What the reader says when it caught an exception that is not a JSON syntax error. */
    private static final Pattern SWALLOWED = Pattern.compile("malformed JSON: \\w+(Exception|Error)");

    @FuzzTest(maxDuration = "10m")
    @DictionaryEntries({"\"id\"", "\"action\"", "\"wallet_id\"", "\"workspace_id\"", "\"at\"", "\"raw_transaction\"",
        "\"method_name\"", "\"network_code\"", "\"event\"", "\"value_usd\"", "\"status\"", "\"principal\"",
        "\"withdrawal\"", "\"wallet\"", "\"workspace\"", "\"resource\"", "\"context\"", "\"decoded_args\"",
        "\"amount\"", "\"withdrawal.create\"", "\"web3.contract_call\"", "\"withdrawal.settled\"", "\"executed\"",
        "\"failed\"", "\"role\"", "\"signer\"", "\"2026-11-02T00:09:04Z\"", "\"11111111-1111-4111-8111-111111111111\"",
        "\"gas_limit\"", "\"value_wei\"", "\"outflow_1h\"", "\"withdrawal_count_1h\"", "\"address_age_sec\"",
        "\"is_whitelisted\"", "-0.0", "9007199254740993", "9223372036854775808", "1e309", "4.9e-324", "\\u0000",
        "\\ud800", "true", "false", "null"})
    void actionLine(byte[] line) {
        check(line);
    }

    /** Reads the bytes both ways and fails on any broken invariant. */
    static void check(byte[] bytes) {
        ActionReader.Result fast;
        ActionReader.Result general;
        String text = ActionReader.decode(bytes, 0, bytes.length);
        try {
            fast = ActionReader.read(bytes, 0, bytes.length);
        } catch (RuntimeException | StackOverflowError e) {
            throw new AssertionError("the byte path threw", e);
        }
        try {
            general = ActionReader.read(text);
        } catch (RuntimeException | StackOverflowError e) {
            throw new AssertionError("the text path threw", e);
        }
        for (ActionReader.Result r : new ActionReader.Result[] {fast, general}) {
            if (r instanceof ActionReader.Malformed m) {
                assertTrue(!m.message().isBlank() && m.message().indexOf('\n') < 0 && m.message().indexOf('\r') < 0,
                        () -> "not a one-line message: `" + m.message() + "`");
                assertTrue(!SWALLOWED.matcher(m.message()).matches(), () -> "an exception inside the reader: " + m);
                assertTrue(m.column() >= 0 && m.column() <= text.length() + 1,
                        () -> "column " + m.column() + " outside a line of " + text.length() + " characters: " + m);
            }
        }
        assertEquals(general.getClass(), fast.getClass(), () -> "byte path " + fast + ", text path " + general);
        assertEquals(general, fast);
        assertEquals(general.toString(), fast.toString());
        byte[] big = new byte[bytes.length + 40];
        java.util.Arrays.fill(big, (byte) '{');
        System.arraycopy(bytes, 0, big, 17, bytes.length);
        ActionReader.Result embedded = ActionReader.read(big, 17, bytes.length);
        assertEquals(fast.toString(), embedded.toString(), "the same bytes inside a larger buffer");
        if (fast instanceof ActionReader.Read fr) {
            Action a = fr.action();
            Action b = ((ActionReader.Read) general).action();
            String d = FastPathFuzzTest.diff(a.sections(), b.sections(), "sections");
            if (d != null) {
                fail("the sections differ: " + d);
            }
            Action fresh = new Action(a.id(), a.action(), a.walletId(), a.workspaceId(), a.at(),
                    new LinkedHashMap<>(a.sections()));
            FastPathFuzzTest.FAILURES.clear();
            for (Instant at : new Instant[] {Instant.parse("2026-11-03T10:00:00Z"), a.at() == null ? Instant.EPOCH : a.at()}) {
                PayloadResult pa = PayloadValidator.validate(a, at);
                PayloadResult pb = PayloadValidator.validate(b, at);
                PayloadResult pf = PayloadValidator.validate(fresh, at);
                FastPathFuzzTest.compare("payload", text, pa, pb);
                FastPathFuzzTest.compare("payload-vs-fresh", text, pa, pf);
                if (pa instanceof PayloadResult.Invalid inv) {
                    assertTrue(!inv.error().isBlank() && inv.error().indexOf('\n') < 0, () -> "not a one-line reason: " + inv);
                }
            }
            assertTrue(FastPathFuzzTest.FAILURES.isEmpty(), () -> FastPathFuzzTest.FAILURES.toString());
        }
    }
}

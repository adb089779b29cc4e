package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.custody.cli.Fixtures;
import dev.custody.engine.payload.ActionJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The fast reader is an optimisation only: every line must read exactly as {@link ActionJson} reads it. */
class FastActionReaderTest {
    static final String W = "\"wallet_id\": \"" + Fixtures.WALLET + "\"";

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + ", \"withdrawal\": {\"value_usd\": 1}}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + ", \"withdrawal\": {\"value_usd\": 1.5, "
                + "\"amount\": 3000000000, \"address_age_sec\": 123456789012345678901234567890}}",
        "{\"action\": \"withdrawal.create\", " + W + ", \"workspace_id\": null, \"at\": null, \"principal\": null}",
        "{\"action\": \"withdrawal.create\", " + W + ", \"principal\": {\"role\": null, \"user_email\": \"a\\u00e9\\\"b\"}}",
        "{\"action\": \"web3.contract_call\", " + W + ", \"resource\": {\"decoded_args\": {\"to\": \"0x1\", "
                + "\"path\": [\"0x2\", {\"k\": [1, 2.5, true, null]}], \"e\": {}}}}",
        "{\"at\": \"2026-11-02T14:05:00Z\", \"action\": \"withdrawal.create\", " + W + "}",
        "{\"at\": \"2026-11-02T14:05:00.250Z\", \"action\": \"withdrawal.create\", " + W + "}",
        "{\"at\": \"2028-02-29T23:59:59Z\", \"action\": \"withdrawal.create\", " + W + "}",
        "{\"at\": \"2026-02-30T00:00:00Z\", \"action\": \"withdrawal.create\", " + W + "}",
        "{\"at\": \"2026-12-31T23:59:60Z\", \"action\": \"withdrawal.create\", " + W + "}",
        "{\"at\": \"2026-11-02T24:00:00Z\", \"action\": \"withdrawal.create\", " + W + "}",
        "{\"at\": \"2026-11-02 14:05:00Z\", \"action\": \"withdrawal.create\", " + W + "}",
        "{\"at\": 17, \"action\": \"withdrawal.create\", " + W + "}",
        "{\"id\": 17, \"action\": \"withdrawal.create\", " + W + "}",
        "{\"id\": {\"x\": 1}, \"action\": \"withdrawal.create\", " + W + "}",
        "{\"id\": \"a\", \"action\": \"withdrawal.delete\", " + W + "}",
        "{\"id\": \"a\", \"action\": 3, " + W + "}",
        "{\"id\": \"a\", " + W + "}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", \"wallet_id\": 12}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + ", \"withdrawl\": {}}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + ", \"withdrawal\": []}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + ", \"withdrawal\": {\"a\": 1, \"a\": 2}}",
        "{\"id\": \"a\", \"id\": \"b\", \"action\": \"withdrawal.create\", " + W + "}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + "} {}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + ", \"withdrawal\": {\"v\": NaN}}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W,
        "[1, 2]",
        "\"just a string\"",
        "{\"event\": \"withdrawal.settled\", \"value_usd\": 5}",
        "{\"event\": \"withdrawal.settled\", \"event\": \"again\"}",
        "{\"id\": \"a\", \"action\": \"withdrawal.create\", " + W + ", \"event\": \"x\"}",
    })
    void readsEveryLineAsActionJsonDoes(String line) {
        assertSame(line);
    }

    @Test
    void deepNestingIsRefusedLikeActionJson() {
        String deep = "{\"action\": \"web3.contract_call\", " + W + ", \"resource\": {\"decoded_args\": "
                + "{\"a\": ".repeat(70) + "1" + "}".repeat(70) + "}}";
        assertSame(deep);
    }

    @Test
    void everyLineOfTheExampleStreamReadsTheSame() throws Exception {
        Path stream = Path.of("..", "examples", "actions", "stream.jsonl");
        Assumptions.assumeTrue(Files.exists(stream), "the examples module's stream");
        List<String> lines = Files.readAllLines(stream);
        for (String line : lines) {
            assertSame(line);
        }
    }

    @Test
    void theFastInstantIsTheParsedInstant() {
        for (String s : List.of("2026-11-02T14:05:00Z", "1970-01-01T00:00:00Z", "2000-02-29T12:00:00Z",
                "9999-12-31T23:59:59Z")) {
            assertEquals(java.time.Instant.parse(s), FastActionReader.instant(s), s);
        }
    }

    /** The line read by the stream (fast path or not) is what ActionJson (and the event check) make of it. */
    private static void assertSame(String line) {
        ActionStream.Line actual = ActionStream.parse(7, line);
        assertNotNull(actual);
        ActionStream.EventLine event = ActionStream.readEvent(7, line);
        if (event != null) {
            assertEquals(event, actual, line);
            return;
        }
        ActionJson.Result expected = ActionJson.parse(line);
        if (expected instanceof ActionJson.Ok ok) {
            assertEquals(new ActionStream.ActionLine(7, ok.action()), actual, line);
        } else {
            ActionJson.Error e = (ActionJson.Error) expected;
            assertEquals(new ActionStream.Malformed(7, e.id(), e.message()), actual, line);
        }
    }
}

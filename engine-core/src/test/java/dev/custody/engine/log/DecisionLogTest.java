package dev.custody.engine.log;

import static dev.custody.engine.Fixtures.allow;
import static dev.custody.engine.Fixtures.deny;
import static dev.custody.engine.Fixtures.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.engine.Fixtures;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.Decision;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decision log: what it records, that it reads back as actions, rotation, and that it never blocks. */
class DecisionLogTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String WS = "00cd4ae6-310e-4566-99ae-1270f1ed5570";

    @TempDir
    Path dir;

    static PolicyEngine.Builder engine() {
        return PolicyEngine.builder(ws -> List.of(policy("p", deny("big", "withdrawal.value_usd > 10000"),
                allow("listed", "withdrawal.is_whitelisted")))).timeBudget(Duration.ofSeconds(30));
    }

    @Test
    void everyDecisionIsRecordedWithItsRevisionAndTheActionReadsBack() throws Exception {
        Path file = dir.resolve("decisions.jsonl");
        Action a1 = Fixtures.withdrawal(20000).id("a1").field("principal.user_email", "ops@example.com").build();
        Action a2 = Fixtures.withdrawal(50).id("a2").build();
        Decision d1;
        try (DecisionLog log = DecisionLog.of(JsonLinesDecisionSink.builder(file).mask("principal.user_email").build())) {
            PolicyEngine engine = engine().observer(log).build();
            d1 = engine.evaluate(WS, a1);
            engine.evaluate(WS, a2);
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(2, lines.size());
        JsonNode r = JSON.readTree(lines.get(0));
        List<String> fields = new java.util.ArrayList<>();
        r.fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("decided_at", "workspace_id", "bundle_revision", "decision", "action"), fields);
        assertEquals(WS, r.get("workspace_id").asText());
        assertEquals(d1.bundleRevision(), r.get("bundle_revision").asText());
        assertEquals("DENY", r.get("decision").get("decision").asText());
        assertEquals("big", r.get("decision").get("rule_id").asText());
        assertEquals("***", r.get("action").get("principal").get("user_email").asText());
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> logged = JSON.convertValue(r.get("action"), java.util.Map.class);
        Action back = assertInstanceOf(ActionReader.Read.class, ActionReader.fromMap(logged)).action();
        assertEquals(a1.sections().get("withdrawal"), back.sections().get("withdrawal"));
        assertEquals(a1.at(), back.at());
        assertEquals("a1", back.id());
    }

    @Test
    void aFullFileIsRotatedAndOnlySoManyAreKept() throws Exception {
        Path file = dir.resolve("d.jsonl");
        try (DecisionLog log = DecisionLog.of(JsonLinesDecisionSink.builder(file).maxBytes(1500).keep(2).build())) {
            PolicyEngine engine = engine().observer(log).build();
            for (int i = 0; i < 20; i++) {
                engine.evaluate(WS, Fixtures.withdrawal(i).id("x" + i).build());
            }
        }
        assertTrue(Files.exists(dir.resolve("d.jsonl.1")));
        assertTrue(Files.exists(dir.resolve("d.jsonl.2")));
        assertEquals(false, Files.exists(dir.resolve("d.jsonl.3")));
        for (Path p : List.of(file, dir.resolve("d.jsonl.1"), dir.resolve("d.jsonl.2"))) {
            assertTrue(Files.size(p) <= 1500, p + " is " + Files.size(p) + " bytes");
        }
        List<String> newest = Files.readAllLines(file);
        assertTrue(newest.get(newest.size() - 1).contains("\"id\":\"x19\""), newest.toString());
    }

    @Test
    void aListenerThatCannotKeepUpNeverBlocksADecisionAndDropsAreCounted() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DecisionLog log = DecisionLog.of(event -> {
            entered.countDown();
            release.await();
        }, 2);
        PolicyEngine engine = engine().observer(log).build();
        engine.evaluate(WS, Fixtures.withdrawal(1).build());
        assertTrue(entered.await(10, TimeUnit.SECONDS), "the first event reached the listener");
        for (int i = 0; i < 9; i++) {
            engine.evaluate(WS, Fixtures.withdrawal(1).build());
        }
        // one in the listener, two queued: the other seven were dropped, and no decision waited
        assertEquals(7, log.dropped());
        release.countDown();
        log.close();
        assertEquals(3, log.delivered());
    }

    /**
     * The log is an observer like any other: it is told every decision, those denied before any lookup too, stamps
     * each with its own clock, and keeps its queue (nothing reaches the listener on the deciding thread).
     */
    @Test
    void theLogIsAnObserverStampedByItsClockAndToldEveryDecision() throws Exception {
        List<DecisionLog.Event> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.time.Clock fixed = java.time.Clock.fixed(java.time.Instant.parse("2026-11-03T14:05:00.120Z"),
                java.time.ZoneOffset.UTC);
        DecisionLog log = DecisionLog.of(e -> {
            events.add(e);
            threads.add(Thread.currentThread().getName());
        }, 16, fixed);
        PolicyEngine engine = engine().observer(log).build();
        engine.evaluate(WS.toUpperCase(java.util.Locale.ROOT), Fixtures.withdrawal(20000).id("a1").build());
        engine.evaluate(" ", Fixtures.withdrawal(1).id("a2").build());
        log.close();
        assertEquals(List.of("00cd4ae6-310e-4566-99ae-1270f1ed5570 a1 DENY big 2026-11-03T14:05:00.120Z",
                " a2 DENY null 2026-11-03T14:05:00.120Z"), events.stream().map(e -> e.workspaceId() + " "
                + e.action().id() + " " + e.decision().outcome() + " " + e.decision().ruleId() + " " + e.decidedAt())
                .toList());
        assertEquals(List.of("custody-decision-log", "custody-decision-log"), threads);
        assertEquals(0, log.dropped());
    }
}

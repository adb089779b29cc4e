package dev.custody.cli.command;

import dev.custody.engine.bundle.BoundRule;
import dev.custody.engine.bundle.PolicyBundle;
import dev.custody.engine.payload.Action;
import dev.custody.engine.payload.Payload;
import dev.custody.engine.payload.PayloadResult;
import dev.custody.engine.payload.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * Runs every rule of a bundle once on a synthetic payload before the real actions.
 *
 * <p>Why: the first evaluation in a fresh JVM loads and links cel-java's interpreter classes (and re2j for
 * {@code matches}, and so on), which on a busy machine can take longer than the 100 ms time budget. The
 * engine would then fail-closed the first action of a replay for a reason that has nothing to do with the
 * policies, making results depend on the machine's load. Conditions are pure, so evaluating them once
 * beforehand, with a generous deadline, changes nothing but the timing. Stateless.
 */
final class Warmup {
    private static final long GENEROUS_NANOS = Duration.ofSeconds(10).toNanos();
    private static final Map<TriggerAction, Payload> PAYLOADS = new EnumMap<>(TriggerAction.class);

    private Warmup() {}

    static void bundle(PolicyBundle bundle) {
        for (BoundRule rule : bundle.rules()) {
            rule.condition().evaluate(payload(rule.condition().action()), System.nanoTime() + GENEROUS_NANOS);
        }
    }

    /** A well-formed payload with every field of the action set to a plain value. */
    static synchronized Payload payload(TriggerAction action) {
        return PAYLOADS.computeIfAbsent(action, a -> {
            Action.Builder b = Action.builder(a).id("warm-up").walletId(EvalCommand.PLACEHOLDER_WALLET);
            for (Section s : FieldSchema.sections(a)) {
                if (s == Section.CONTEXT) {
                    continue;
                }
                for (FieldSpec f : FieldSchema.fields(s)) {
                    b.field(f.path(), switch (f.type()) {
                        case STRING -> f.enumValues().isEmpty() ? "warm-up" : f.enumValues().get(0);
                        case NUMBER -> 1.0;
                        case INTEGER -> 1L;
                        case BOOLEAN -> Boolean.FALSE;
                        case MAP -> Map.of("value", "1");
                    });
                }
            }
            PayloadResult r = PayloadValidator.validate(b.at(Instant.EPOCH).build(), Instant.EPOCH);
            return ((PayloadResult.Valid) r).payload();
        });
    }
}

package dev.custody.engine.internal.bundle;

import dev.custody.engine.payload.Action;
import dev.custody.engine.check.Payload;
import dev.custody.engine.check.PayloadResult;
import dev.custody.engine.check.PayloadValidator;
import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * Runs every rule of a freshly built bundle once on a synthetic payload, before it decides real actions.
 *
 * <p>Why: the first evaluation of a rule in a fresh JVM loads and links cel-java's interpreter classes (and
 * re2j for {@code matches}, and so on), which on a busy machine can take longer than the spec's 100 ms
 * evaluation time-out and, in a cold JVM, run into the time backstop (default 1 s of CPU time). The first real
 * action would then be slow, or denied, for a reason that has nothing to do with the policies.
 * Conditions are pure, so evaluating them once beforehand, with a generous deadline, changes nothing but the
 * timing. Results (true, false, an error on the synthetic payload) are ignored. Stateless and thread-safe.
 */
final class Warmup {
    private static final long GENEROUS_NANOS = Duration.ofSeconds(10).toNanos();
    private static final String WALLET = "00000000-0000-4000-8000-000000000000";
    private static final Map<TriggerAction, Payload> PAYLOADS = new EnumMap<>(TriggerAction.class);

    private Warmup() {}

    static void run(PolicyBundle bundle) {
        for (BoundRule rule : bundle.rules()) {
            rule.condition().evaluate(payload(rule.condition().action()), dev.custody.engine.compile.ThreadClock.now() + GENEROUS_NANOS);
        }
    }

    /** A well-formed payload with every field of the action set to a plain value. */
    private static synchronized Payload payload(TriggerAction action) {
        return PAYLOADS.computeIfAbsent(action, a -> {
            Action.Builder b = Action.builder(a).id("warm-up").walletId(WALLET);
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

package dev.custody.examples;

import dev.custody.engine.PolicySource;
import dev.custody.engine.policy.Policy;
import dev.custody.engine.policy.Rule;
import dev.custody.engine.schema.Effect;
import dev.custody.engine.schema.PolicyStatus;
import dev.custody.engine.schema.TriggerAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Policies built in code rather than read from a store: the platform's baseline, which every workspace gets before
 * its own policies (a service operator's guard rails that no workspace can edit away). Built with
 * {@link Policy#builder} and {@link Rule#builder}, which take the typed status, trigger action and effect and refuse
 * a malformed policy when the class loads rather than when the first withdrawal is denied.
 *
 * <p>A {@link PolicySource} over another one: the baseline first (declaration order decides which rule a decision
 * names), then the workspace's own. Thread-safe as the wrapped source is.
 */
public final class BaselinePolicies implements PolicySource {
    /** The approval group of the platform's own policies. */
    static final String PLATFORM_GROUP = "6fec786a-64b6-4df9-84d2-0b10cf5bd274";

    /** The baseline: no withdrawal above $1M, no large withdrawal to an address seen less than a day ago. */
    public static final Policy BASELINE = Policy.builder("platform-baseline")
            .name("Platform baseline")
            .description("Limits every workspace inherits from the platform.")
            .approvalGroupId(PLATFORM_GROUP)
            .status(PolicyStatus.ACTIVE)
            .rule(Rule.builder("platform-ceiling")
                    .triggerAction(TriggerAction.WITHDRAWAL_CREATE)
                    .condition("withdrawal.value_usd > 1000000")
                    .effect(Effect.DENY)
                    .description("no withdrawal above $1,000,000 on this platform")
                    .build())
            .rule(Rule.builder("fresh-address")
                    .triggerAction(TriggerAction.WITHDRAWAL_CREATE)
                    .condition("withdrawal.address_age_sec < 86400 && withdrawal.value_usd > 10000")
                    .effect(Effect.DENY)
                    .description("above $10,000 only to addresses known for a day")
                    .build())
            .build();

    private final PolicySource own;

    /** The baseline before the policies {@code own} holds for each workspace. */
    public BaselinePolicies(PolicySource own) {
        this.own = Objects.requireNonNull(own, "own");
    }

    @Override
    public List<Policy> policies(String workspaceId) throws Exception {
        List<Policy> workspace = own.policies(workspaceId);
        List<Policy> out = new ArrayList<>(workspace.size() + 1);
        out.add(BASELINE);
        out.addAll(workspace);
        return out;
    }
}

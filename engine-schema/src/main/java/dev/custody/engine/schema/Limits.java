package dev.custody.engine.schema;

import java.time.Duration;

/**
 * The limits of the service spec, as constants. A value outside a limit is a validation error, never
 * silently truncated.
 */
public final class Limits {
    /** Minimum policy name length, in characters. */
    public static final int POLICY_NAME_MIN = 3;
    /** Maximum policy name length, in characters. */
    public static final int POLICY_NAME_MAX = 100;
    /** Maximum policy description length, in characters. */
    public static final int POLICY_DESCRIPTION_MAX = 500;
    /** Maximum rule description length, in characters. */
    public static final int RULE_DESCRIPTION_MAX = 500;
    /** Minimum condition length, in characters. */
    public static final int CONDITION_MIN = 1;
    /** Maximum condition length, in characters (Unicode code points). */
    public static final int CONDITION_MAX = 4000;
    /** Maximum number of rules in one policy. */
    public static final int RULES_PER_POLICY_MAX = 50;
    /** Maximum number of wallet ids one policy targets. */
    public static final int WALLET_IDS_MAX = 500;
    /** The default evaluation time budget: exceeding it denies the action. */
    public static final Duration EVALUATION_TIMEOUT = Duration.ofMillis(100);
    /** Maximum {@code offset} of the assets list. */
    public static final int ASSETS_OFFSET_MAX = 100_000;
    /** Maximum {@code limit} of the assets list. */
    public static final int ASSETS_LIMIT_MAX = 1000;

    private Limits() {}
}

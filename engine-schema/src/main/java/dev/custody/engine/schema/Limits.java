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
    /**
     * Longest string field of an action's sections, in characters (an email, an address, a network code, a
     * decimal wei value: all far shorter). A longer one makes the action malformed: a rule must never run a regex
     * or a concatenation over megabytes a caller chose to send.
     */
    public static final int PAYLOAD_STRING_MAX = 1024;
    /** Longest string inside {@code resource.decoded_args} (a {@code bytes} argument as hex can be long), in characters. */
    public static final int DECODED_ARG_STRING_MAX = 16 * 1024;
    /** Longest key inside {@code resource.decoded_args}, in characters. */
    public static final int DECODED_ARG_KEY_MAX = 128;
    /** Most characters of all strings and keys inside {@code resource.decoded_args} together. */
    public static final int DECODED_ARGS_CHARS_MAX = 64 * 1024;
    /** The default evaluation time budget: exceeding it denies the action. */
    public static final Duration EVALUATION_TIMEOUT = Duration.ofMillis(100);
    /** Maximum {@code offset} of the assets list. */
    public static final int ASSETS_OFFSET_MAX = 100_000;
    /** Maximum {@code limit} of the assets list. */
    public static final int ASSETS_LIMIT_MAX = 1000;

    private Limits() {}
}

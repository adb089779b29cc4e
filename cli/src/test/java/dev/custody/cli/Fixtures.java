package dev.custody.cli;

/** Policies and actions shared by the CLI tests. */
public final class Fixtures {
    public static final String WORKSPACE = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
    public static final String OTHER_WORKSPACE = "2fde5aa1-e6c3-4cc3-9d89-438da3572c71";
    public static final String WALLET = "92e0490b-f666-47c5-8c1a-dd0688c6fc87";
    public static final String GROUP = "985976e8-9faf-4e44-a2ed-b01af2ca04cf";

    /** Two rules: DENY above $10,000, ALLOW to whitelisted addresses. */
    public static final String LIMITS_YAML = """
            id: limits
            name: Limits
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - rule_id: big
                trigger_action: withdrawal.create
                effect: DENY
                description: above $10,000
                condition: withdrawal.value_usd > 10000
              - rule_id: listed
                trigger_action: withdrawal.create
                effect: ALLOW
                description: whitelisted destination
                condition: withdrawal.is_whitelisted
            """;

    private Fixtures() {}

    /** A withdrawal action line. */
    public static String withdrawal(String id, double usd, boolean whitelisted) {
        return withdrawal(id, WORKSPACE, usd, whitelisted);
    }

    public static String withdrawal(String id, String workspace, double usd, boolean whitelisted) {
        return "{\"id\": \"" + id + "\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + WALLET + "\", "
                + "\"workspace_id\": \"" + workspace + "\", \"at\": \"2026-11-03T14:05:00Z\", "
                + "\"principal\": {\"role\": \"signer\"}, "
                + "\"withdrawal\": {\"amount\": 1.0, \"value_usd\": " + usd + ", \"asset_symbol\": \"USDC\", "
                + "\"asset_is_native\": false, \"destination_address\": \"0xabc\", \"network_code\": \"ETHEREUM_MAINNET\", "
                + "\"is_whitelisted\": " + whitelisted + ", \"address_age_sec\": 90000}}";
    }
}

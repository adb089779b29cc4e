package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.custody.client.StubServer.Recorded;
import dev.custody.client.model.Asset;
import dev.custody.client.model.AssetQuery;
import dev.custody.client.model.BalanceBySymbol;
import dev.custody.client.model.CreateWalletRequest;
import dev.custody.client.model.DepositAddress;
import dev.custody.client.model.Network;
import dev.custody.client.model.Policy;
import dev.custody.client.model.PolicyChange;
import dev.custody.client.model.PolicyDraft;
import dev.custody.client.model.PolicyQuery;
import dev.custody.client.model.PolicyRevision;
import dev.custody.client.model.PolicyUpdate;
import dev.custody.client.model.RuleDraft;
import dev.custody.client.model.RuleUpdate;
import dev.custody.client.model.RuleValidationRequest;
import dev.custody.client.model.SchemaField;
import dev.custody.client.model.SweepTaskParams;
import dev.custody.client.model.WalletAsset;
import dev.custody.client.model.WalletCreationResult;
import dev.custody.client.model.WalletCreationStatus;
import dev.custody.client.model.WalletListItem;
import dev.custody.client.model.WalletQuery;
import dev.custody.client.model.WorkspaceStats;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every endpoint: method, path, query, headers, recomputed signature, exact body, typed answer. */
class CustodyClientEndpointsTest {
    static final String WS = "11111111-1111-1111-1111-111111111111";
    static final String POLICY = "22222222-2222-2222-2222-222222222222";
    static final String RULE = "r-33";
    static final String WALLET = "44444444-4444-4444-4444-444444444444";
    static final String ASSET = "55555555-5555-5555-5555-555555555555";
    static final String NET = "66666666-6666-6666-6666-666666666666";

    StubServer server;
    TestClients t;
    CustodyClient client;

    @BeforeEach
    void start() throws Exception {
        server = new StubServer();
        t = new TestClients();
        client = t.client(server.baseUrl());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Recorded assertRequest(String method, String path, String query, String body) {
        Recorded r = server.only();
        assertEquals(method, r.method());
        assertEquals(path, r.path());
        assertEquals(query, r.query());
        assertEquals(body == null ? "" : body, r.body());
        assertEquals(body == null ? null : "application/json", r.header("Content-Type"));
        return r;
    }

    private void assertAuthenticated(String method, String path, String query, String body) {
        Signatures.assertSigned(assertRequest(method, path, query, body), TestClients.NOW);
    }

    @Test
    void policySchema() {
        server.ok("GET", "/api/v1/policy/schema", """
                {"withdrawal.create":{"principal":[{"name":"role","type":"string","enum":["owner","admin"]},
                {"name":"user_email","type":"string"}]}}""");
        Map<String, Map<String, List<SchemaField>>> schema = client.policySchema().data();
        assertAuthenticated("GET", "/api/v1/policy/schema", null, null);
        assertEquals(new SchemaField("role", "string", List.of("owner", "admin")),
                schema.get("withdrawal.create").get("principal").get(0));
        assertNull(schema.get("withdrawal.create").get("principal").get(1).enumValues());
    }

    @Test
    void validateRule() {
        server.ok("POST", "/api/v1/workspaces/" + WS + "/policies/rules/validate", "{\"valid\":false}");
        boolean valid = client.validateRule(WS,
                new RuleValidationRequest("withdrawal.create", "withdrawal.value_usd > 10000", "DENY")).data().valid();
        assertFalse(valid);
        assertAuthenticated("POST", "/api/v1/workspaces/" + WS + "/policies/rules/validate", null,
                "{\"trigger_action\":\"withdrawal.create\",\"condition\":\"withdrawal.value_usd > 10000\",\"effect\":\"DENY\"}");
    }

    @Test
    void createPolicyOmitsAbsentFieldsAndReadsTheApprovalRequest() {
        server.ok("POST", "/api/v1/workspaces/" + WS + "/policies", """
                {"status":"pending_approval","approval_request_id":"ar-1",
                 "policy":{"id":"p-1","name":"Large","status":"pending","version":1,"wallet_ids":[]}}""");
        PolicyDraft draft = new PolicyDraft("Large", null, "ag-1", null,
                List.of(new RuleDraft("withdrawal.create", "withdrawal.value_usd > 10000", "DENY", "too large", null)));
        PolicyChange change = client.createPolicy(WS, draft).data();
        assertAuthenticated("POST", "/api/v1/workspaces/" + WS + "/policies", null,
                "{\"name\":\"Large\",\"approval_group_id\":\"ag-1\",\"rules\":[{\"trigger_action\":\"withdrawal.create\","
                        + "\"condition\":\"withdrawal.value_usd > 10000\",\"effect\":\"DENY\",\"description\":\"too large\"}]}");
        assertEquals("pending_approval", change.status());
        assertEquals("ar-1", change.approvalRequestId());
        assertEquals(1, change.policy().version());
        assertEquals("p-1", change.policy().id());
    }

    @Test
    void listPoliciesSendsEveryFilter() {
        server.ok("GET", "/api/v1/workspaces/" + WS + "/policies", """
                [{"id":"p-1","name":"Large","status":"active","version":3,"wallet_ids":["w1"],
                  "rules":[{"rule_id":"r1","trigger_action":"withdrawal.create","condition":"true","effect":"DENY","is_enabled":false}]}]""");
        List<Policy> policies = client.listPolicies(WS, new PolicyQuery("active", 20, 40)).data();
        assertAuthenticated("GET", "/api/v1/workspaces/" + WS + "/policies", "status=active&limit=20&offset=40", null);
        assertEquals(1, policies.size());
        assertEquals(List.of("w1"), policies.get(0).walletIds());
        assertFalse(policies.get(0).rules().get(0).enabled());
    }

    @Test
    void listPoliciesAcceptsAPagedObject() {
        server.ok("GET", "/api/v1/workspaces/" + WS + "/policies", "{\"items\":[{\"id\":\"p-9\"}],\"total\":1}");
        assertEquals("p-9", client.listPolicies(WS, PolicyQuery.ALL).data().get(0).id());
        assertAuthenticated("GET", "/api/v1/workspaces/" + WS + "/policies", null, null);
    }

    @Test
    void getPolicy() {
        server.ok("GET", "/api/v1/workspaces/" + WS + "/policies/" + POLICY,
                "{\"id\":\"" + POLICY + "\",\"name\":\"Large\",\"approval_group\":{\"id\":\"ag\"},\"rules\":[]}");
        var response = client.getPolicy(WS, POLICY);
        assertAuthenticated("GET", "/api/v1/workspaces/" + WS + "/policies/" + POLICY, null, null);
        assertEquals("Large", response.data().name());
        assertEquals("ag", response.raw().path("approval_group").path("id").asText());
        assertEquals("ok", response.message());
    }

    @Test
    void updatePolicySendsOnlyTheGivenFields() {
        server.ok("PUT", "/api/v1/workspaces/" + WS + "/policies/" + POLICY,
                "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-2\"}");
        PolicyChange change = client.updatePolicy(WS, POLICY, new PolicyUpdate(null, "new text", null, null, List.of())).data();
        assertAuthenticated("PUT", "/api/v1/workspaces/" + WS + "/policies/" + POLICY, null,
                "{\"description\":\"new text\",\"rules\":[]}");
        assertEquals("ar-2", change.approvalRequestId());
    }

    @Test
    void deletePolicy() {
        server.ok("DELETE", "/api/v1/workspaces/" + WS + "/policies/" + POLICY, "{\"status\":\"deleted\"}");
        assertEquals("deleted", client.deletePolicy(WS, POLICY).data().status());
        assertAuthenticated("DELETE", "/api/v1/workspaces/" + WS + "/policies/" + POLICY, null, null);
    }

    @Test
    void policyHistory() {
        server.ok("GET", "/api/v1/workspaces/" + WS + "/policies/" + POLICY + "/history",
                "[{\"version\":2,\"changes\":[{\"field\":\"name\",\"old\":\"a\",\"new\":\"b\"}]},{\"changes\":[]}]");
        List<PolicyRevision> history = client.policyHistory(WS, POLICY).data();
        assertAuthenticated("GET", "/api/v1/workspaces/" + WS + "/policies/" + POLICY + "/history", null, null);
        assertEquals(2, history.size());
        assertEquals("b", history.get(0).changes().get(0).path("new").asText());
    }

    @Test
    void setPolicyWallets() {
        server.ok("PUT", "/api/v1/workspaces/" + WS + "/policies/" + POLICY + "/wallets", "null");
        client.setPolicyWallets(WS, POLICY, List.of("w1", "w2"));
        assertAuthenticated("PUT", "/api/v1/workspaces/" + WS + "/policies/" + POLICY + "/wallets", null,
                "{\"wallet_ids\":[\"w1\",\"w2\"]}");
    }

    @Test
    void createRule() {
        server.ok("POST", "/api/v1/workspaces/" + WS + "/policies/" + POLICY + "/rules",
                "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-3\"}");
        PolicyChange change = client.createRule(WS, POLICY,
                new RuleDraft("web3.contract_call", "resource.gas_limit > 1", "ALLOW", null, false)).data();
        assertAuthenticated("POST", "/api/v1/workspaces/" + WS + "/policies/" + POLICY + "/rules", null,
                "{\"trigger_action\":\"web3.contract_call\",\"condition\":\"resource.gas_limit > 1\",\"effect\":\"ALLOW\","
                        + "\"is_enabled\":false}");
        assertEquals("ar-3", change.approvalRequestId());
    }

    @Test
    void updateAndDeleteRule() {
        server.ok("PUT", "/api/v1/workspaces/" + WS + "/policies/rules/" + RULE, "{\"status\":\"pending_approval\"}");
        JsonNode updated = client.updateRule(WS, RULE, new RuleUpdate("true", null, null, true)).data();
        assertAuthenticated("PUT", "/api/v1/workspaces/" + WS + "/policies/rules/" + RULE, null,
                "{\"condition\":\"true\",\"is_enabled\":true}");
        assertEquals("pending_approval", updated.path("status").asText());

        StubServer.Recorded first = server.only();
        server.ok("DELETE", "/api/v1/workspaces/" + WS + "/policies/rules/" + RULE, "null");
        client.deleteRule(WS, RULE);
        Recorded delete = server.requests().get(1);
        assertEquals("DELETE", delete.method());
        assertEquals("/api/v1/workspaces/" + WS + "/policies/rules/" + RULE, delete.path());
        Signatures.assertSigned(delete, TestClients.NOW);
        assertEquals("PUT", first.method());
    }

    @Test
    void workspaceStatsWithEveryNestedEntry() {
        server.ok("GET", "/api/v1/workspaces/" + WS + "/stats", """
                {"total_value":"1234.50","total_wallets":4,"total_smart_contracts":1,"total_pending_transactions":2,
                 "daily_volume_stats":[{"id":{"day":19,"month":11},"total":"10","total_inflow_usd":"7","total_outflow_usd":"3"}],
                 "monthly_stats":[{"id":{"month":11,"year":2026},"total_transaction":12,"total_volume":"99.5"}],
                 "monthly_total_fee_spent_per_network":[{"id":{"month":11,"network_id":"n-1","year":2026},
                   "total_fee_spent":"0.01","value":"30.2","network":{"name":"Ethereum","native_currency":"ETH","x":1}}]}""");
        WorkspaceStats stats = client.workspaceStats(WS).data();
        assertAuthenticated("GET", "/api/v1/workspaces/" + WS + "/stats", null, null);
        assertEquals("1234.50", stats.totalValue());
        assertEquals(4, stats.totalWallets());
        assertEquals(new WorkspaceStats.DailyVolume(new WorkspaceStats.DayId(19, 11), "10", "7", "3"),
                stats.dailyVolumeStats().get(0));
        assertEquals(new WorkspaceStats.MonthlyStat(new WorkspaceStats.MonthId(11, 2026), 12, "99.5"),
                stats.monthlyStats().get(0));
        assertEquals(new WorkspaceStats.MonthlyNetworkFee(new WorkspaceStats.FeeId(11, "n-1", 2026), "0.01", "30.2",
                new WorkspaceStats.FeeNetwork("Ethereum", "ETH")), stats.monthlyTotalFeeSpentPerNetwork().get(0));
    }

    @Test
    void balancesRepeatTheSymbolParameter() {
        server.ok("GET", "/api/v1/workspaces/" + WS + "/balances", """
                [{"symbol":"USDC","total_balance":"15","total_value_usd":"15.00","total_wallet_count":2,
                  "networks":[{"asset_id":"a1","asset_name":"USD Coin","asset_logo":"https://l/a.png","network_id":"n1",
                  "network_name":"Base","network_logo":"https://l/n.png","balance":"5","wallet_count":1}]}]""");
        List<BalanceBySymbol> balances = client.balances(WS, List.of("USDC", "ETH")).data();
        assertAuthenticated("GET", "/api/v1/workspaces/" + WS + "/balances", "symbol=USDC&symbol=ETH", null);
        assertEquals("15.00", balances.get(0).totalValueUsd());
        assertEquals("Base", balances.get(0).networks().get(0).networkName());
        assertEquals(1, balances.get(0).networks().get(0).walletCount());
    }

    @Test
    void networksArePublicAndParseEveryField() {
        server.ok("GET", "/api/v1/networks", """
                [{"id":"n1","created_at":"c","updated_at":"u","name":"Ethereum","description":"d","is_evm":true,
                  "chain_id":1,"native_currency":"ETH","internal_code":"ETHEREUM_MAINNET","explorer_tx":"https://e/tx/%s",
                  "explorer_address":"https://e/a/%s","explorer_token":"https://e/t/%s","confirmation_blocks":12,
                  "block_interval_in_seconds":12,"disabled":false,"logo_url":"l","is_rpc_active":true,
                  "rpc_health_status":null,"pending_block_range_count":0,"brand_new_field":{"x":1}}]""");
        List<Network> networks = client.listNetworks("eth main").data();
        Recorded r = assertRequest("GET", "/api/v1/networks", "search=eth%20main", null);
        assertNull(r.header("ACCESS-API-KEY"));
        assertNull(r.header("ACCESS-SIGN"));
        assertNull(r.header("ACCESS-TIMESTAMP"));
        Network n = networks.get(0);
        assertEquals(new Network("n1", "c", "u", "Ethereum", "d", true, 1L, "ETH", null, "ETHEREUM_MAINNET",
                "https://e/tx/%s", "https://e/a/%s", "https://e/t/%s", 12, 12, false, "l", true, null, 0), n);
    }

    @Test
    void rescanTransaction() {
        server.on("POST", "/api/v1/networks/rescan-transaction",
                new StubServer.Reply(200, "{\"success\":true,\"message\":\"rescan queued\",\"code\":0}"));
        var response = client.rescanTransaction("0xabc", NET);
        assertAuthenticated("POST", "/api/v1/networks/rescan-transaction", null,
                "{\"tx_hash\":\"0xabc\",\"network_id\":\"" + NET + "\"}");
        assertEquals("rescan queued", response.message());
        assertTrue(response.raw().isNull());
    }

    @Test
    void assetsArePublicWithEveryFilter() {
        server.ok("GET", "/api/v1/assets", """
                [{"id":"a1","name":"USD Coin","symbol":"USDC","decimals":6,"address":"0xa0b8","asset_type":"erc20",
                  "is_native":false,"address_type":"evm","is_whitelisted":true,"network_id":"n1","price_usd":"1.0001",
                  "network":{"id":"n1","name":"Ethereum","chain_id":1,"native_currency":"ETH","is_evm":true}}]""");
        List<Asset> assets = client.listAssets(new AssetQuery(NET, "usd", false, true, 100000, 1000)).data();
        Recorded r = assertRequest("GET", "/api/v1/assets",
                "network_id=" + NET + "&search=usd&is_native=false&is_whitelisted=true&offset=100000&limit=1000", null);
        assertNull(r.header("ACCESS-API-KEY"));
        assertNull(r.header("ACCESS-SIGN"));
        Asset a = assets.get(0);
        assertEquals("USDC", a.symbol());
        assertEquals(6, a.decimals());
        assertEquals("Ethereum", a.network().name());
        assertEquals(1L, a.network().chainId());
        assertEquals("1.0001", a.priceUsd());
    }

    @Test
    void addAndRemoveWalletAsset() {
        String path = "/api/v1/wallets/" + WALLET + "/asset/" + ASSET;
        server.ok("PUT", path, "{\"id\":\"wa1\",\"wallet_id\":\"" + WALLET + "\",\"asset_id\":\"" + ASSET
                + "\",\"deposit_address\":\"0xdep\",\"hidden\":false}");
        WalletAsset added = client.addWalletAsset(WALLET, ASSET).data();
        assertAuthenticated("PUT", path, null, null);
        assertEquals(new WalletAsset("wa1", WALLET, ASSET, "0xdep", false), added);

        server.ok("DELETE", path, "null");
        client.removeWalletAsset(WALLET, ASSET);
        Recorded delete = server.requests().get(1);
        assertEquals("DELETE", delete.method());
        assertEquals(path, delete.path());
        assertEquals("", delete.body());
        Signatures.assertSigned(delete, TestClients.NOW);
    }

    @Test
    void createWallet() {
        server.ok("POST", "/api/v1/wallets", "{\"wallet_id\":\"" + WALLET + "\",\"status\":\"pending\"}");
        WalletCreationResult result = client.createWallet(new CreateWalletRequest("Treasury", "mpc", "general",
                new SweepTaskParams(new BigDecimal("1000.50"), "w-dest", null), null)).data();
        assertAuthenticated("POST", "/api/v1/wallets", null, "{\"name\":\"Treasury\",\"wallet_type\":\"mpc\","
                + "\"wallet_purpose\":\"general\",\"sweep_task_params\":{\"min_trigger_value_usd\":1000.50,"
                + "\"destination_wallet_id\":\"w-dest\"}}");
        assertEquals(new WalletCreationResult(WALLET, "pending"), result);
        assertEquals(List.of(), t.warnings);
    }

    @Test
    void createWalletWithSweepIdAndParamsWarnsAndStillSends() {
        server.ok("POST", "/api/v1/wallets", "{\"wallet_id\":\"w\",\"status\":\"success\"}");
        client.createWallet(new CreateWalletRequest("Ops", "standard", null,
                new SweepTaskParams(BigDecimal.TEN, "w-dest", "internal_wallet"), "st-1"));
        assertEquals(List.of("both sweep task parameters and sweep task id `st-1` are given: "
                + "the server uses the id and ignores the parameters"), t.warnings);
        assertTrue(server.only().body().contains("\"sweep_task_id\":\"st-1\""));
    }

    @Test
    void creationStatusIsBareJson() {
        server.on("GET", "/api/v1/wallets/creation-status/" + WALLET,
                new StubServer.Reply(200, "{\"wallet_id\":\"" + WALLET + "\",\"status\":\"success\"}"));
        WalletCreationStatus status = client.walletCreationStatus(WALLET).data();
        assertAuthenticated("GET", "/api/v1/wallets/creation-status/" + WALLET, null, null);
        assertEquals(new WalletCreationStatus(WALLET, "success"), status);
    }

    @Test
    void listWalletsIsABareArray() {
        server.on("GET", "/api/v1/workspaces/" + WS + "/wallets", new StubServer.Reply(200, """
                [{"id":"w1","name":"Hot","role":"owner","wallet_type":"mpc","value_usd":"10.5",
                  "top_assets":[{"symbol":"ETH"}],"wallet_purpose":"general"}]"""));
        List<WalletListItem> wallets = client.listWallets(WS, new WalletQuery("mpc", 10, 0)).data();
        assertAuthenticated("GET", "/api/v1/workspaces/" + WS + "/wallets", "wallet_type=mpc&limit=10&offset=0", null);
        assertEquals("Hot", wallets.get(0).name());
        assertEquals("ETH", wallets.get(0).topAssets().get(0).path("symbol").asText());
    }

    @Test
    void depositAddress() {
        server.ok("GET", "/api/v1/wallets/" + WALLET + "/deposit-address",
                "{\"asset_id\":\"" + ASSET + "\",\"address\":\"So1ana\",\"qr_code\":\"https://q/1.png\"}");
        DepositAddress address = client.depositAddress(WALLET, ASSET, "sol").data();
        assertAuthenticated("GET", "/api/v1/wallets/" + WALLET + "/deposit-address",
                "asset_id=" + ASSET + "&address_type=sol", null);
        assertEquals(new DepositAddress(ASSET, "So1ana", "https://q/1.png"), address);
    }

    @Test
    void pathSegmentsAreEncodedAndSignedAsSent() {
        server.ok("GET", "/api/v1/workspaces/a%2Fb%20c/stats", "{}");
        client.workspaceStats("a/b c");
        assertAuthenticated("GET", "/api/v1/workspaces/a%2Fb%20c/stats", null, null);
    }

    @Test
    void baseUrlTrailingSlashIsIgnored() throws Exception {
        CustodyClient slash = t.builder(CustodyClientConfig.builder(server.baseUrl() + "/")
                .credentials(Signatures.KEY, Signatures.SECRET).build()).build();
        server.ok("GET", "/api/v1/policy/schema", "{}");
        slash.policySchema();
        assertAuthenticated("GET", "/api/v1/policy/schema", null, null);
    }
}

package dev.custody.cli.command.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.ExitCode;
import dev.custody.client.Signatures;
import dev.custody.client.StallingServer;
import dev.custody.client.StubServer;
import dev.custody.client.StubServer.Recorded;
import dev.custody.client.StubServer.Reply;
import dev.custody.client.TestClients;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code custody api …} end to end against a loopback server: requests on the wire, output, exit codes. */
class ApiCommandTest {
    static final String WS = "ws-1";
    static final String P = "/api/v1/workspaces/ws-1";

    StubServer server;
    ApiCli cli;

    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        server = new StubServer();
        cli = new ApiCli(server);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Recorded signedOnly(String method, String path, String query, String body) {
        Recorded r = server.only();
        assertEquals(method, r.method());
        assertEquals(path, r.path());
        assertEquals(query, r.query());
        assertEquals(body, r.body());
        Signatures.assertSigned(r, TestClients.NOW);
        return r;
    }

    private static String lines(String... lines) {
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }

    // ------------------------------------------------------------------ structure and help

    @Test
    void subcommandTreeIsExactlyTheContract() {
        CommandLine api = new CommandLine(new ApiCommand());
        assertEquals(List.of("networks", "assets", "policies", "rules", "wallets", "stats", "balances", "sign"),
                List.copyOf(api.getSubcommands().keySet()));
        assertEquals(List.of("list", "rescan"), List.copyOf(api.getSubcommands().get("networks").getSubcommands().keySet()));
        assertEquals(List.of("list"), List.copyOf(api.getSubcommands().get("assets").getSubcommands().keySet()));
        assertEquals(List.of("list", "get", "create", "update", "delete", "history", "wallets", "pull", "plan", "apply"),
                List.copyOf(api.getSubcommands().get("policies").getSubcommands().keySet()));
        assertEquals(List.of("validate", "create", "update", "delete"),
                List.copyOf(api.getSubcommands().get("rules").getSubcommands().keySet()));
        assertEquals(List.of("create", "list", "status", "deposit-address", "add-asset", "remove-asset"),
                List.copyOf(api.getSubcommands().get("wallets").getSubcommands().keySet()));
        assertEquals(List.of("message", "typed-data", "raw"),
                List.copyOf(api.getSubcommands().get("sign").getSubcommands().keySet()));
    }

    @Test
    void everyCommandHasHelpAndExamples() {
        List<CommandLine> all = new ArrayList<>();
        collect(new CommandLine(new ApiCommand()), all);
        assertEquals(35, all.size());
        for (CommandLine c : all) {
            String name = c.getCommandSpec().qualifiedName();
            assertTrue(c.getCommandSpec().mixinStandardHelpOptions(), name);
            assertEquals("%nExamples:%n", c.getCommandSpec().usageMessage().footerHeading(), name);
            assertTrue(c.getCommandSpec().usageMessage().footer().length > 0, name);
            assertTrue(List.of(c.getCommandSpec().usageMessage().footer()).stream().anyMatch(l -> l.startsWith("  custody api ")), name);
        }
        ApiCli.Result help = cli.run("policies", "list", "--help");
        assertEquals(ExitCode.OK, help.exit());
        assertTrue(help.out().contains("Examples:"), help.out());
        assertTrue(help.out().contains("--workspace-id=UUID"), help.out());
    }

    private static void collect(CommandLine c, List<CommandLine> into) {
        into.add(c);
        c.getSubcommands().values().forEach(s -> collect(s, into));
    }

    @Test
    void aGroupWithoutSubcommandIsAUsageError() {
        ApiCli.Result r = cli.run("networks");
        assertEquals(ExitCode.USAGE, r.exit());
        assertTrue(r.err().startsWith("error: `api networks` needs a subcommand: one of `list`, `rescan`" + System.lineSeparator()),
                r.err());
        assertEquals(List.of(), server.requests());
        assertEquals(ExitCode.USAGE, cli.run("policies", "get", "--workspace-id", WS).exit());
    }

    // ------------------------------------------------------------------ networks and assets

    @Test
    void networksListIsPublicAndPrintsATable() {
        server.ok("GET", "/api/v1/networks", """
                [{"id":"n1","name":"Ethereum","internal_code":"ETHEREUM_MAINNET","chain_id":1,"native_currency":"ETH",
                  "is_evm":true,"disabled":false},
                 {"id":"n2","name":"Solana","internal_code":"SOL_MAINNET","native_currency":"SOL","is_evm":false,
                  "is_testnet":false,"disabled":false}]""");
        ApiCli.Result r = cli.run("networks", "list", "--search", "eth");
        assertEquals(ExitCode.OK, r.exit());
        assertEquals(lines(
                "ID  NAME      CODE              CHAIN_ID  NATIVE  EVM    TESTNET  DISABLED",
                "n1  Ethereum  ETHEREUM_MAINNET  1         ETH     true   -        false",
                "n2  Solana    SOL_MAINNET       -         SOL     false  false    false"), r.out());
        assertEquals("", r.err());
        Recorded req = server.only();
        assertEquals("search=eth", req.query());
        assertNull(req.header("ACCESS-API-KEY"));
        assertNull(req.header("ACCESS-SIGN"));
    }

    @Test
    void formatJsonPrintsTheDataExactlyWithUnknownFields() {
        server.ok("GET", "/api/v1/networks", "[{\"id\":\"n1\",\"future_field\":[1]}]");
        ApiCli.Result r = cli.run("networks", "list", "--format", "json");
        assertEquals(ExitCode.OK, r.exit());
        assertEquals(lines("[ {", "  \"id\" : \"n1\",", "  \"future_field\" : [ 1 ]", "} ]"), r.out());
    }

    @Test
    void networksRescan() {
        server.on("POST", "/api/v1/networks/rescan-transaction",
                new Reply(200, "{\"success\":true,\"message\":\"rescan queued\",\"code\":0}"));
        ApiCli.Result r = cli.run("networks", "rescan", "--tx-hash", "0xabc", "--network-id", "n1");
        assertEquals(ExitCode.OK, r.exit());
        assertEquals(lines("rescan requested for `0xabc`: rescan queued"), r.out());
        Recorded req = signedOnly("POST", "/api/v1/networks/rescan-transaction", null,
                "{\"tx_hash\":\"0xabc\",\"network_id\":\"n1\"}");
        assertEquals("application/json", req.header("Content-Type"));
    }

    @Test
    void assetsListSendsEveryFilter() {
        server.ok("GET", "/api/v1/assets", """
                [{"id":"a1","symbol":"USDC","name":"USD Coin","asset_type":"erc20","is_native":false,
                  "is_whitelisted":true,"price_usd":"1.00","network":{"name":"Base"}}]""");
        ApiCli.Result r = cli.run("assets", "list", "--network-id", "n1", "--search", "usd", "--tokens", "--whitelisted",
                "--offset", "100000", "--limit", "1000");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines(
                "ID  SYMBOL  NAME      NETWORK  TYPE   NATIVE  WHITELISTED  PRICE_USD",
                "a1  USDC    USD Coin  Base     erc20  false   true         1.00"), r.out());
        Recorded req = server.only();
        assertEquals("network_id=n1&search=usd&is_native=false&is_whitelisted=true&offset=100000&limit=1000", req.query());
        assertNull(req.header("ACCESS-SIGN"));

        server.ok("GET", "/api/v1/assets", "[]");
        ApiCli.Result natives = cli.run("assets", "list", "--native");
        assertEquals(lines("no assets"), natives.out());
        assertEquals("is_native=true", server.requests().get(1).query());
    }

    @Test
    void assetBoundsFailBeforeSending() {
        ApiCli.Result offset = cli.run("assets", "list", "--offset", "100001");
        assertEquals(ExitCode.USAGE, offset.exit());
        assertEquals(lines("error: assets offset `100001` is out of range: it must be between 0 and 100000"), offset.err());
        ApiCli.Result limit = cli.run("assets", "list", "--limit", "1001");
        assertEquals(ExitCode.USAGE, limit.exit());
        assertEquals(lines("error: assets limit `1001` is out of range: it must be between 1 and 1000"), limit.err());
        ApiCli.Result both = cli.run("assets", "list", "--native", "--tokens");
        assertEquals(ExitCode.USAGE, both.exit());
        assertTrue(both.err().contains("mutually exclusive"), both.err());
        assertEquals(List.of(), server.requests());
    }

    // ------------------------------------------------------------------ policies

    @Test
    void policiesList() {
        server.ok("GET", P + "/policies", """
                [{"id":"p1","name":"Large withdrawals","status":"active","version":3,"wallet_ids":[],
                  "rules":[{"rule_id":"r1"},{"rule_id":"r2"}]},
                 {"id":"p2","name":"Hot wallets","status":"pending","version":1,"wallet_ids":["w1","w2"]}]""");
        ApiCli.Result r = cli.run("policies", "list", "--workspace-id", WS, "--status", "active", "--limit", "2", "--offset", "4");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines(
                "ID  NAME               STATUS   VERSION  RULES  WALLETS",
                "p1  Large withdrawals  active   3        2      all",
                "p2  Hot wallets        pending  1        0      2"), r.out());
        signedOnly("GET", P + "/policies", "status=active&limit=2&offset=4", "");

        ApiCli.Result bad = cli.run("policies", "list", "--workspace-id", WS, "--status", "live");
        assertEquals(ExitCode.USAGE, bad.exit());
        assertEquals(lines("error: unknown policy status `live`: use `pending`, `active`, `inactive` or `rejected`"), bad.err());
        assertEquals(1, server.requests().size());
    }

    @Test
    void policiesGet() {
        server.ok("GET", P + "/policies/p1", """
                {"id":"p1","name":"Large withdrawals","status":"active","version":3,"approval_group_id":"ag1",
                 "wallet_ids":["w1"],"rules":[{"rule_id":"r1","trigger_action":"withdrawal.create",
                 "condition":"withdrawal.value_usd > 10000","effect":"DENY","is_enabled":true}]}""");
        ApiCli.Result r = cli.run("policies", "get", "--workspace-id", WS, "--policy-id", "p1");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines(
                "id:                 p1",
                "name:               Large withdrawals",
                "status:             active",
                "version:            3",
                "approval_group_id:  ag1",
                "wallets:            w1",
                "",
                "RULE_ID  ACTION             EFFECT  ENABLED  CONDITION",
                "r1       withdrawal.create  DENY    true     withdrawal.value_usd > 10000"), r.out());
        signedOnly("GET", P + "/policies/p1", null, "");
    }

    @Test
    void policiesCreateFromYamlSendsOnlyTheCreateBody() throws Exception {
        Path file = dir.resolve("large.yaml");
        Files.writeString(file, """
                id: p-local
                status: active
                name: Large withdrawals
                approval_group_id: ag1
                rules:
                  - rule_id: large#0
                    trigger_action: withdrawal.create
                    condition: withdrawal.value_usd > 10000
                    effect: DENY
                    description: too large
                """);
        server.ok("POST", P + "/policies", """
                {"status":"pending_approval","approval_request_id":"ar-1",
                 "policy":{"id":"p9","name":"Large withdrawals","status":"pending","version":1,"wallet_ids":[]}}""");
        ApiCli.Result r = cli.run("policies", "create", "--workspace-id", WS, "--file", file.toString());
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines(
                "status:               pending_approval",
                "approval_request_id:  ar-1",
                "policy_id:            p9",
                "version:              1"), r.out());
        signedOnly("POST", P + "/policies", null, "{\"name\":\"Large withdrawals\",\"approval_group_id\":\"ag1\","
                + "\"rules\":[{\"trigger_action\":\"withdrawal.create\",\"condition\":\"withdrawal.value_usd > 10000\","
                + "\"effect\":\"DENY\",\"description\":\"too large\"}]}");
    }

    @Test
    void policiesCreateRejectsBadFiles() throws Exception {
        Path two = dir.resolve("two.json");
        Files.writeString(two, "[{\"name\":\"a\"},{\"name\":\"b\"}]");
        ApiCli.Result many = cli.run("policies", "create", "--workspace-id", WS, "--file", two.toString());
        assertEquals(ExitCode.INPUT, many.exit());
        assertEquals(lines("error: `" + two + "` holds 2 policies: this command takes exactly one"), many.err());

        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"name\": ");
        ApiCli.Result bad = cli.run("policies", "create", "--workspace-id", WS, "--file", broken.toString());
        assertEquals(ExitCode.INPUT, bad.exit());
        assertEquals(lines(broken + ":1:10: error[parse_error] malformed JSON: unexpected end-of-input within/between "
                + "Object entries"), bad.err());

        Path typed = dir.resolve("typed.json");
        Files.writeString(typed, "{\"name\":\"x\",\"rules\":\"nope\"}");
        ApiCli.Result wrong = cli.run("policies", "create", "--workspace-id", WS, "--file", typed.toString());
        assertEquals(ExitCode.INPUT, wrong.exit());
        assertEquals(lines(typed + ":1:21: error[invalid_type] `rules` must be an array, not a string"), wrong.err());

        Path typo = dir.resolve("typo.yaml");
        Files.writeString(typo, "name: Large\napproval_group_id: ag\nrules:\n  - trigger_action: withdrawal.create\n"
                + "    condition: 'true'\n    effect: DENY\n    is_enable: false\n");
        ApiCli.Result misspelt = cli.run("policies", "update", "--workspace-id", WS, "--policy-id", "p1", "--file",
                typo.toString());
        assertEquals(ExitCode.INPUT, misspelt.exit());
        assertEquals(lines(typo + ":7:5: error[unknown_property] unknown property `is_enable`",
                "  hint: did you mean `is_enabled`?"), misspelt.err());

        ApiCli.Result missing = cli.run("policies", "create", "--workspace-id", WS, "--file", dir.resolve("nope.json").toString());
        assertEquals(ExitCode.IO, missing.exit());
        assertEquals(lines("error: cannot read `" + dir.resolve("nope.json") + "`: no such file"), missing.err());
        assertEquals(List.of(), server.requests());
    }

    @Test
    void policiesUpdateDeleteHistoryAndWallets() throws Exception {
        Path file = dir.resolve("update.json");
        Files.writeString(file, "{\"success\":true,\"data\":{\"description\":\"new\",\"rules\":[]}}");
        server.ok("PUT", P + "/policies/p1", "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-2\"}");
        ApiCli.Result update = cli.run("policies", "update", "--workspace-id", WS, "--policy-id", "p1", "--file", file.toString());
        assertEquals(lines("status:               pending_approval", "approval_request_id:  ar-2"), update.out());
        signedOnly("PUT", P + "/policies/p1", null, "{\"description\":\"new\",\"rules\":[]}");

        server.ok("DELETE", P + "/policies/p1", "{\"status\":\"deleted\"}");
        ApiCli.Result delete = cli.run("policies", "delete", "--workspace-id", WS, "--policy-id", "p1");
        assertEquals(ExitCode.OK, delete.exit());
        assertEquals(lines("status:  deleted"), delete.out());
        assertEquals("DELETE", server.requests().get(1).method());

        server.ok("GET", P + "/policies/p1/history",
                "[{\"version\":2,\"created_at\":\"2026-11-02T10:00:00Z\",\"changes\":[{\"field\":\"name\",\"old\":\"a\",\"new\":\"b\"}]}]");
        ApiCli.Result history = cli.run("policies", "history", "--workspace-id", WS, "--policy-id", "p1");
        assertEquals(lines("revision 2 (2026-11-02T10:00:00Z): 1 change(s)",
                "  {\"field\":\"name\",\"old\":\"a\",\"new\":\"b\"}"), history.out());

        server.ok("PUT", P + "/policies/p1/wallets", "null");
        ApiCli.Result wallets = cli.run("policies", "wallets", "--workspace-id", WS, "--policy-id", "p1",
                "--wallet-id", "w1", "--wallet-id", "w2");
        assertEquals(lines("policy `p1` now targets 2 wallet(s)"), wallets.out());
        assertEquals("{\"wallet_ids\":[\"w1\",\"w2\"]}", server.requests().get(3).body());
        ApiCli.Result all = cli.run("policies", "wallets", "--workspace-id", WS, "--policy-id", "p1", "--all-wallets");
        assertEquals(lines("policy `p1` now targets every wallet"), all.out());
        assertEquals("{\"wallet_ids\":[]}", server.requests().get(4).body());
        Signatures.assertSigned(server.requests().get(4), TestClients.NOW);
    }

    // ------------------------------------------------------------------ rules

    @Test
    void rulesValidateExitsOneWhenInvalid() {
        server.ok("POST", P + "/policies/rules/validate", "{\"valid\":true}");
        ApiCli.Result ok = cli.run("rules", "validate", "--workspace-id", WS, "--action", "withdrawal.create",
                "--effect", "deny", "withdrawal.value_usd > 10000");
        assertEquals(ExitCode.OK, ok.exit(), ok.err());
        assertEquals(lines("valid"), ok.out());
        signedOnly("POST", P + "/policies/rules/validate", null,
                "{\"trigger_action\":\"withdrawal.create\",\"condition\":\"withdrawal.value_usd > 10000\",\"effect\":\"DENY\"}");

        server.ok("POST", P + "/policies/rules/validate", "{\"valid\":false}");
        ApiCli.Result invalid = cli.run("rules", "validate", "--workspace-id", WS, "--action", "withdrawal.create",
                "--effect", "DENY", "withdrawal.amout > 1");
        assertEquals(ExitCode.INPUT, invalid.exit());
        assertEquals(lines("invalid: the server rejected `withdrawal.amout > 1`"), invalid.out());

        ApiCli.Result json = cli.run("rules", "validate", "--workspace-id", WS, "--action", "withdrawal.create",
                "--effect", "DENY", "--format", "json", "x");
        assertEquals(ExitCode.INPUT, json.exit());
        assertEquals(lines("{", "  \"valid\" : false", "}"), json.out());
    }

    @Test
    void unknownActionOrEffectIsAUsageErrorBeforeSending() {
        ApiCli.Result action = cli.run("rules", "validate", "--workspace-id", WS, "--action", "withdrawal.delete",
                "--effect", "DENY", "true");
        assertEquals(ExitCode.USAGE, action.exit());
        assertEquals(lines("error: unknown trigger action `withdrawal.delete`: use `withdrawal.create` or `web3.contract_call`"),
                action.err());
        ApiCli.Result effect = cli.run("rules", "create", "--workspace-id", WS, "--policy-id", "p1", "--action",
                "web3.contract_call", "--effect", "MAYBE", "true");
        assertEquals(ExitCode.USAGE, effect.exit());
        assertEquals(lines("error: unknown effect `MAYBE`: use `ALLOW` or `DENY`"), effect.err());
        ApiCli.Result nothing = cli.run("rules", "update", "--workspace-id", WS, "--rule-id", "r1");
        assertEquals(ExitCode.USAGE, nothing.exit());
        assertEquals(lines("error: nothing to update: give `--condition`, `--effect`, `--description` or `--enabled`"),
                nothing.err());
        assertEquals(List.of(), server.requests());
    }

    @Test
    void rulesCreateUpdateDelete() {
        server.ok("POST", P + "/policies/p1/rules", "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-7\"}");
        ApiCli.Result create = cli.run("rules", "create", "--workspace-id", WS, "--policy-id", "p1", "--action",
                "web3.contract_call", "--effect", "ALLOW", "--description", "known router", "--disabled",
                "resource.contract_address == '0xabc'");
        assertEquals(ExitCode.OK, create.exit(), create.err());
        assertEquals(lines("status:               pending_approval", "approval_request_id:  ar-7"), create.out());
        signedOnly("POST", P + "/policies/p1/rules", null, "{\"trigger_action\":\"web3.contract_call\","
                + "\"condition\":\"resource.contract_address == '0xabc'\",\"effect\":\"ALLOW\",\"description\":\"known router\","
                + "\"is_enabled\":false}");

        server.ok("PUT", P + "/policies/rules/r1", "null");
        ApiCli.Result update = cli.run("rules", "update", "--workspace-id", WS, "--rule-id", "r1", "--enabled=false",
                "--condition", "true");
        assertEquals(lines("rule `r1` updated"), update.out());
        assertEquals("{\"condition\":\"true\",\"is_enabled\":false}", server.requests().get(1).body());

        server.ok("DELETE", P + "/policies/rules/r1", "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-8\"}");
        ApiCli.Result delete = cli.run("rules", "delete", "--workspace-id", WS, "--rule-id", "r1");
        assertEquals(lines("status:               pending_approval", "approval_request_id:  ar-8"), delete.out());
        assertEquals("DELETE", server.requests().get(2).method());
    }

    // ------------------------------------------------------------------ wallets

    @Test
    void walletsCreateWarnsWhenTheSweepIdWinsAndWaitsForMpc() {
        server.ok("POST", "/api/v1/wallets", "{\"wallet_id\":\"w9\",\"status\":\"pending\"}");
        server.on("GET", "/api/v1/wallets/creation-status/w9", new Reply(200, "{\"wallet_id\":\"w9\",\"status\":\"pending\"}"),
                new Reply(200, "{\"wallet_id\":\"w9\",\"status\":\"success\"}"));
        ApiCli.Result r = cli.run("wallets", "create", "--name", "Treasury", "--type", "mpc", "--sweep-min-usd", "1000",
                "--sweep-destination", "w1", "--sweep-task-id", "st-1", "--wait");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines("warning: both sweep task parameters and sweep task id `st-1` are given: "
                + "the server uses the id and ignores the parameters"), r.err());
        assertEquals(lines("wallet_id:  w9", "status:     success"), r.out());
        List<Recorded> all = server.requests();
        assertEquals("{\"name\":\"Treasury\",\"wallet_type\":\"mpc\",\"sweep_task_params\":{\"min_trigger_value_usd\":1000,"
                + "\"destination_wallet_id\":\"w1\"},\"sweep_task_id\":\"st-1\"}", all.get(0).body());
        assertEquals(3, all.size());
        assertEquals(List.of(java.time.Duration.ofSeconds(1)), cli.time.sleeps());
    }

    @Test
    void walletsCreateThatEndsInErrorExitsThree() {
        server.ok("POST", "/api/v1/wallets", "{\"wallet_id\":\"w9\",\"status\":\"error\"}");
        ApiCli.Result r = cli.run("wallets", "create", "--name", "Ops", "--type", "standard");
        assertEquals(ExitCode.IO, r.exit());
        assertEquals(lines("wallet_id:  w9", "status:     error"), r.out());
        assertEquals(lines("error: creation of wallet `w9` ended with status `error`"), r.err());
        ApiCli.Result badType = cli.run("wallets", "create", "--name", "Ops", "--type", "cold");
        assertEquals(ExitCode.USAGE, badType.exit());
        assertEquals(lines("error: unknown wallet type `cold`: use `standard` or `mpc`"), badType.err());
    }

    @Test
    void walletsListStatusAndAssets() {
        server.on("GET", P + "/wallets", new Reply(200, """
                [{"id":"w1","name":"Hot","role":"owner","wallet_type":"mpc","value_usd":"10.50","wallet_purpose":"general"}]"""));
        ApiCli.Result list = cli.run("wallets", "list", "--workspace-id", WS, "--type", "mpc", "--limit", "5", "--offset", "10");
        assertEquals(lines("ID  NAME  TYPE  PURPOSE  ROLE   VALUE_USD", "w1  Hot   mpc   general  owner  10.50"), list.out());
        signedOnly("GET", P + "/wallets", "wallet_type=mpc&limit=5&offset=10", "");

        server.on("GET", "/api/v1/wallets/creation-status/w1", new Reply(200, "{\"wallet_id\":\"w1\",\"status\":\"pending\"}"));
        ApiCli.Result status = cli.run("wallets", "status", "--wallet-id", "w1", "--format", "json");
        assertEquals(lines("{", "  \"wallet_id\" : \"w1\",", "  \"status\" : \"pending\"", "}"), status.out());

        server.ok("PUT", "/api/v1/wallets/w1/asset/a1",
                "{\"id\":\"wa1\",\"wallet_id\":\"w1\",\"asset_id\":\"a1\",\"deposit_address\":\"0xd\",\"hidden\":false}");
        ApiCli.Result add = cli.run("wallets", "add-asset", "--wallet-id", "w1", "--asset-id", "a1");
        assertEquals(lines("id:               wa1", "wallet_id:        w1", "asset_id:         a1",
                "deposit_address:  0xd", "hidden:           false"), add.out());
        assertEquals("", server.requests().get(2).body());

        server.on("DELETE", "/api/v1/wallets/w1/asset/a1", new Reply(400,
                "{\"success\":false,\"code\":40010,\"message\":\"asset balance is not zero\"}"));
        ApiCli.Result remove = cli.run("wallets", "remove-asset", "--wallet-id", "w1", "--asset-id", "a1");
        assertEquals(ExitCode.IO, remove.exit());
        assertEquals(lines("error: api returned 400 (code 40010): asset balance is not zero"), remove.err());
        assertEquals("", remove.out());
    }

    @Test
    void depositAddressAndTronRefusal() {
        server.ok("GET", "/api/v1/wallets/w1/deposit-address",
                "{\"asset_id\":\"a1\",\"address\":\"0xabc\",\"qr_code\":\"https://q/1.png\"}");
        ApiCli.Result r = cli.run("wallets", "deposit-address", "--wallet-id", "w1", "--asset-id", "a1", "--address-type", "evm");
        assertEquals(lines("address:   0xabc", "asset_id:  a1", "qr_code:   https://q/1.png"), r.out());
        signedOnly("GET", "/api/v1/wallets/w1/deposit-address", "asset_id=a1&address_type=evm", "");

        ApiCli.Result tron = cli.run("wallets", "deposit-address", "--wallet-id", "w1", "--asset-id", "a1", "--address-type", "tron");
        assertEquals(ExitCode.USAGE, tron.exit());
        assertEquals(lines("error: address type `tron` is not available yet for deposit addresses: use `evm` or `sol`"), tron.err());
        assertEquals(1, server.requests().size());
    }

    // ------------------------------------------------------------------ stats and balances

    @Test
    void statsText() {
        server.ok("GET", P + "/stats", """
                {"total_value":"1234.50","total_wallets":4,"total_smart_contracts":1,"total_pending_transactions":2,
                 "daily_volume_stats":[{"id":{"day":9,"month":11},"total":"10","total_inflow_usd":"7","total_outflow_usd":"3"}],
                 "monthly_stats":[{"id":{"month":11,"year":2026},"total_transaction":12,"total_volume":"99.5"}],
                 "monthly_total_fee_spent_per_network":[{"id":{"month":11,"network_id":"n1","year":2026},
                   "total_fee_spent":"0.01","value":"30.2","network":{"name":"Ethereum","native_currency":"ETH"}}]}""");
        ApiCli.Result r = cli.run("stats", "--workspace-id", WS);
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines(
                "total value usd:       1234.50",
                "wallets:               4",
                "smart contracts:       1",
                "pending transactions:  2",
                "",
                "DAY    TOTAL_USD  INFLOW_USD  OUTFLOW_USD",
                "11-09  10         7           3",
                "",
                "MONTH    TRANSACTIONS  VOLUME_USD",
                "2026-11  12            99.5",
                "",
                "MONTH    NETWORK   FEE   CURRENCY  FEE_USD",
                "2026-11  Ethereum  0.01  ETH       30.2"), r.out());
        signedOnly("GET", P + "/stats", null, "");
    }

    @Test
    void balancesWithRepeatedSymbols() {
        server.ok("GET", P + "/balances", """
                [{"symbol":"USDC","total_balance":"15","total_value_usd":"15.00","total_wallet_count":2,
                  "networks":[{"network_name":"Base","balance":"5","wallet_count":1},
                              {"network_name":"Ethereum","balance":"10","wallet_count":1}]}]""");
        ApiCli.Result r = cli.run("balances", "--workspace-id", WS, "--symbol", "USDC", "--symbol", "ETH");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines(
                "SYMBOL  NETWORK   BALANCE  VALUE_USD  WALLETS",
                "USDC    (all)     15       15.00      2",
                "        Base      5                   1",
                "        Ethereum  10                  1"), r.out());
        signedOnly("GET", P + "/balances", "symbol=USDC&symbol=ETH", "");
    }

    // ------------------------------------------------------------------ signing

    @Test
    void signMessageWithoutWaitPrintsTheKey() {
        server.ok("POST", "/api/v1/web3/w1/sign", "{\"transaction_id\":\"tx-1\"}");
        ApiCli.Result r = cli.run("sign", "message", "--wallet-id", "w1", "--chain-id", "1", "hello");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines("transaction_id:   tx-1", "idempotency_key:  key-1"), r.out());
        Recorded req = signedOnly("POST", "/api/v1/web3/w1/sign", null, "{\"method\":\"eth_sign\",\"message\":\"hello\",\"chain_id\":1}");
        assertEquals("key-1", req.header("X-Idempotency-Key"));

        ApiCli.Result both = cli.run("sign", "message", "--wallet-id", "w1", "--chain-id", "1", "--solana", "x");
        assertEquals(ExitCode.USAGE, both.exit());
        assertEquals(lines("error: give exactly one of `--chain-id` (eth_sign) and `--solana`"), both.err());
    }

    @Test
    void signMessageWaitsUntilConfirmedWithASignature() {
        server.ok("POST", "/api/v1/web3/w1/sign", "{\"transaction_id\":\"tx-1\"}");
        server.on("GET", "/api/v1/web3/w1/sign/tx-1",
                new Reply(200, StubServer.envelope("{\"transaction_id\":\"tx-1\",\"status\":\"pending_approval\"}")),
                new Reply(200, StubServer.envelope("{\"transaction_id\":\"tx-1\",\"status\":\"confirmed\",\"signature\":\"0xsig\"}")));
        ApiCli.Result r = cli.run("sign", "message", "--wallet-id", "w1", "--solana", "gm", "--idempotency-key", "mine", "--wait");
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertEquals(lines("transaction_id:   tx-1", "idempotency_key:  mine", "status:           confirmed",
                "signature:        0xsig"), r.out());
        assertEquals("mine", server.requests().get(0).header("X-Idempotency-Key"));
        assertEquals("{\"method\":\"solana_signMessage\",\"message\":\"gm\",\"chain_id\":0}", server.requests().get(0).body());
    }

    @Test
    void signRejectedOrTimedOutExitsThree() {
        server.ok("POST", "/api/v1/web3/w1/sign", "{\"transaction_id\":\"tx-1\"}");
        server.on("GET", "/api/v1/web3/w1/sign/tx-1",
                new Reply(200, StubServer.envelope("{\"transaction_id\":\"tx-1\",\"status\":\"rejected\"}")));
        ApiCli.Result rejected = cli.run("sign", "message", "--wallet-id", "w1", "--chain-id", "1", "x", "--wait");
        assertEquals(ExitCode.IO, rejected.exit());
        assertEquals(lines("error: signing request `tx-1` ended `rejected`"), rejected.err());

        server.on("GET", "/api/v1/web3/w1/sign/tx-1",
                new Reply(200, StubServer.envelope("{\"transaction_id\":\"tx-1\",\"status\":\"pending\"}")));
        ApiCli.Result timeout = cli.run("sign", "message", "--wallet-id", "w1", "--chain-id", "1", "x", "--wait",
                "--wait-timeout", "5");
        assertEquals(ExitCode.IO, timeout.exit());
        assertEquals(lines("error: signing request `tx-1` is still `pending` after 5 s; it was not resubmitted: "
                + "poll it again later"), timeout.err());
        long posts = server.requests().stream().filter(q -> q.method().equals("POST")).count();
        assertEquals(2, posts);
    }

    @Test
    void signTypedDataAndRaw() throws Exception {
        Path typed = dir.resolve("permit.json");
        Files.writeString(typed, "{\"domain\":{\"name\":\"USDC\"},\"types\":{},\"message\":{\"value\":\"1\"}}");
        server.ok("POST", "/api/v1/web3/w1/sign", "{\"transaction_id\":\"tx-2\"}");
        ApiCli.Result t = cli.run("sign", "typed-data", "--wallet-id", "w1", "--chain-id", "137", "--file", typed.toString(),
                "--format", "json");
        assertEquals(ExitCode.OK, t.exit(), t.err());
        assertEquals(lines("{", "  \"transaction_id\" : \"tx-2\",", "  \"idempotency_key\" : \"key-1\"", "}"), t.out());
        assertEquals("{\"method\":\"eth_signTypedData_v4\",\"message\":\"\",\"chain_id\":137,\"typed_data\":"
                + "\"{\\\"domain\\\":{\\\"name\\\":\\\"USDC\\\"},\\\"types\\\":{},\\\"message\\\":{\\\"value\\\":\\\"1\\\"}}\"}",
                server.requests().get(0).body());

        Path tx = dir.resolve("tx.json");
        Files.writeString(tx, "{\"from\":\"0xF\",\"to\":\"0xT\",\"gasLimit\":\"0x5208\",\"chainId\":1}");
        server.ok("POST", "/api/v1/web3/transaction/w1/signRaw", "{\"transaction_id\":\"tx-9\"}");
        server.on("GET", "/api/v1/web3/transaction/w1/tx-9",
                new Reply(200, StubServer.envelope("{\"transaction_id\":\"tx-9\",\"status\":\"completed\",\"hash\":\"0xh\"}")));
        ApiCli.Result raw = cli.run("sign", "raw", "--wallet-id", "w1", "--file", tx.toString(), "--wait");
        assertEquals(ExitCode.OK, raw.exit(), raw.err());
        assertEquals(lines("warning: raw signing is unsafe: sign only payloads you have verified"), raw.err());
        assertEquals(lines("transaction_id:   tx-9", "idempotency_key:  key-2", "status:           completed", "hash:             0xh"),
                raw.out());
        Recorded post = server.requests().get(1);
        assertEquals("{\"from\":\"0xF\",\"to\":\"0xT\",\"gasLimit\":\"0x5208\",\"chainId\":1}", post.body());
        assertEquals("key-2", post.header("X-Idempotency-Key"));
        Signatures.assertSigned(post, TestClients.NOW);
    }

    // ------------------------------------------------------------------ errors, configuration, redaction

    @Test
    void apiErrorIsOneLineWithoutStackTrace() {
        server.on("GET", P + "/policies/p404", new Reply(404, """
                {"success":false,"code":40401,"message":"policy not found","errors":["policy_id: no such policy"]}"""));
        ApiCli.Result r = cli.run("policies", "get", "--workspace-id", WS, "--policy-id", "p404");
        assertEquals(ExitCode.IO, r.exit());
        assertEquals(lines("error: api returned 404 (code 40401): policy not found", "  - policy_id: no such policy"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void successFalseIsAnErrorToo() {
        server.on("GET", P + "/stats", new Reply(200, "{\"success\":false,\"code\":10001,\"message\":\"workspace suspended\"}"));
        ApiCli.Result r = cli.run("stats", "--workspace-id", WS);
        assertEquals(ExitCode.IO, r.exit());
        assertEquals(lines("error: api returned 200 (code 10001): workspace suspended"), r.err());
    }

    @Test
    void connectionRefusedExitsThree() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String base = "http://127.0.0.1:" + port + "/api/v1";
        ApiCli.Result r = cli.run("networks", "list", "--base-url", base);
        assertEquals(ExitCode.IO, r.exit());
        assertEquals(lines("error: cannot reach `" + base + "`: connection refused (after 3 attempts)"), r.err());
    }

    @Test
    void aStalledResponseBodyTimesOutWithinTheRequestTimeOutAndExitsThree() throws Exception {
        for (boolean debug : new boolean[] {false, true}) {
            try (StallingServer stalling = new StallingServer(false, 1)) {
                List<String> args = new ArrayList<>(List.of("networks", "rescan", "--tx-hash", "0xabc", "--network-id",
                        "n1", "--base-url", stalling.baseUrl(), "--request-timeout", "1"));
                if (debug) {
                    args.add("--debug");
                }
                // the server never sends the rest: only the request time-out ends the call (the message says it
                // was that time-out); 60 s bounds a hang, it measures nothing
                ApiCli.Result r = assertTimeoutPreemptively(Duration.ofSeconds(60),
                        () -> cli.run(args.toArray(String[]::new)));
                assertEquals(ExitCode.IO, r.exit());
                String error = "error: no complete answer from `" + stalling.baseUrl()
                        + "`: the response body did not complete within the 1 s request time-out";
                if (debug) {
                    assertTrue(r.err().contains(error + System.lineSeparator()), r.err());
                } else {
                    assertEquals(lines(error), r.err());
                }
                assertEquals(1, stalling.accepted.get(), "a POST is sent once");
            }
        }
    }

    @Test
    void missingConfigurationIsAUsageError() {
        cli.env.remove("CUSTODY_BASE_URL");
        ApiCli.Result noUrl = cli.run("networks", "list");
        assertEquals(ExitCode.USAGE, noUrl.exit());
        assertEquals(lines("error: no base url: pass `--base-url` or set `CUSTODY_BASE_URL`"), noUrl.err());

        ApiCli.Result badUrl = cli.run("networks", "list", "--base-url", "custody.example");
        assertEquals(ExitCode.USAGE, badUrl.exit());
        assertEquals(lines("error: base url `custody.example` must start with http:// or https://"), badUrl.err());

        cli.env.put("CUSTODY_BASE_URL", server.baseUrl());
        cli.env.remove("CUSTODY_API_SECRET");
        ApiCli.Result noSecret = cli.run("stats", "--workspace-id", WS);
        assertEquals(ExitCode.USAGE, noSecret.exit());
        assertEquals(lines("error: missing api credentials for `GET /workspaces/ws-1/stats`: "
                + "set `CUSTODY_API_KEY` and `CUSTODY_API_SECRET`"), noSecret.err());
        assertEquals(List.of(), server.requests());
    }

    @Test
    void debugShowsRequestsAndTheStackTraceButNeverTheSecretOrSignature() {
        server.on("GET", P + "/stats", new Reply(500, "{\"success\":false,\"code\":50000,\"message\":\"boom\"}"));
        ApiCli.Result r = cli.run("stats", "--workspace-id", WS, "--debug");
        assertEquals(ExitCode.IO, r.exit());
        assertTrue(r.err().contains("debug: > GET " + server.baseUrl() + "/workspaces/ws-1/stats"), r.err());
        assertTrue(r.err().contains("debug: > ACCESS-SIGN: [redacted]"), r.err());
        assertTrue(r.err().contains("debug: CustodyClientConfig[baseUrl=" + server.baseUrl() + ", apiKey=key-****, apiSecret=[redacted]"),
                r.err());
        assertTrue(r.err().contains("error: api returned 500 (code 50000): boom"), r.err());
        assertTrue(r.err().contains("at dev.custody.client.CustodyClient"), "stack trace with --debug");
        assertFalse(r.err().contains(Signatures.SECRET));
        for (Recorded req : server.requests()) {
            assertFalse(r.err().contains(req.header("ACCESS-SIGN")), "signature leaked");
        }
        ApiCli.Result quiet = cli.run("stats", "--workspace-id", WS);
        assertFalse(quiet.err().contains("\tat "), "no stack trace without --debug");
    }

    @Test
    void environmentIsReadThroughTheInjectedLookup() {
        server.ok("GET", "/api/v1/networks", "[]");
        ApiCli.Result r = cli.run("networks", "list");
        assertEquals(lines("no networks"), r.out());
        assertEquals(List.of("CUSTODY_BASE_URL", "CUSTODY_API_KEY", "CUSTODY_API_SECRET"), cli.lookups);
        cli.lookups.clear();
        cli.run("networks", "list", "--base-url", server.baseUrl());
        assertEquals(List.of("CUSTODY_API_KEY", "CUSTODY_API_SECRET"), cli.lookups);
    }
}

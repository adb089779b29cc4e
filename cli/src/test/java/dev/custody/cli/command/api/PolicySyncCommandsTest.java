package dev.custody.cli.command.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.custody.cli.ExitCode;
import dev.custody.client.Signatures;
import dev.custody.client.StubServer;
import dev.custody.client.StubServer.Recorded;
import dev.custody.client.TestClients;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code policies pull|plan|apply} against a loopback server and real policy files. */
class PolicySyncCommandsTest {
    static final String WS = "ws-1";
    static final String BASE = "/api/v1/workspaces/ws-1/policies";
    static final String AG = "9b2f6c1e-0000-4000-8000-000000000001";
    static final String P1 = "0d1c2b3a-0000-4000-8000-0000000000a1";
    static final String P2 = "0d1c2b3a-0000-4000-8000-0000000000a2";
    static final String W1 = "5b1e0000-0000-4000-8000-0000000000b1";

    StubServer server;
    ApiCli cli;

    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        server = new StubServer();
        cli = new ApiCli(server);
        server.ok("GET", BASE, "[{\"id\":\"" + P1 + "\"},{\"id\":\"" + P2 + "\"}]");
        server.ok("GET", BASE + "/" + P1, """
                {"id":"%s","name":"Large withdrawals","description":"blocks big ones","approval_group":{"id":"%s"},
                 "wallet_ids":[],"status":"active","version":3,"workspace_id":"ws-1","pending_approval_request":null,
                 "rules":[{"rule_id":"r1","trigger_action":"withdrawal.create","condition":"withdrawal.value_usd > 10000",
                           "effect":"DENY","description":"too large","is_enabled":true},
                          {"rule_id":"r2","trigger_action":"withdrawal.create","condition":"withdrawal.is_whitelisted",
                           "effect":"ALLOW"}]}""".formatted(P1, AG));
        server.ok("GET", BASE + "/" + P2, """
                {"id":"%s","name":"Hot wallet","approval_group_id":"%s","wallet_ids":["%s"],"status":"pending",
                 "version":1,"rules":[]}""".formatted(P2, AG, W1));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String lines(String... lines) {
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }

    private ApiCli.Result pull() {
        return cli.run("policies", "pull", "--workspace-id", WS, "--dir", dir.toString());
    }

    @Test
    void pullWritesOneStableFilePerPolicy() throws Exception {
        ApiCli.Result r = pull();
        assertEquals(ExitCode.OK, r.exit(), r.err());
        Path f1 = dir.resolve(P1 + ".json");
        Path f2 = dir.resolve(P2 + ".json");
        assertEquals(lines("wrote `" + f1 + "` (Large withdrawals, 2 rule(s))", "wrote `" + f2 + "` (Hot wallet, 0 rule(s))",
                "pulled 2 policies into `" + dir + "`"), r.out());
        assertEquals("""
                {
                  "id" : "%s",
                  "name" : "Large withdrawals",
                  "description" : "blocks big ones",
                  "approval_group_id" : "%s",
                  "wallet_ids" : [ ],
                  "rules" : [ {
                    "rule_id" : "r1",
                    "trigger_action" : "withdrawal.create",
                    "condition" : "withdrawal.value_usd > 10000",
                    "effect" : "DENY",
                    "description" : "too large",
                    "is_enabled" : true
                  }, {
                    "rule_id" : "r2",
                    "trigger_action" : "withdrawal.create",
                    "condition" : "withdrawal.is_whitelisted",
                    "effect" : "ALLOW",
                    "is_enabled" : true
                  } ],
                  "status" : "active",
                  "version" : 3,
                  "workspace_id" : "ws-1"
                }
                """.formatted(P1, AG), Files.readString(f1));
        assertTrue(Files.readString(f2).contains("\"wallet_ids\" : [ \"" + W1 + "\" ]"));
        List<Recorded> requests = server.requests();
        assertEquals("limit=100&offset=0", requests.get(0).query());
        assertEquals(List.of("GET " + BASE, "GET " + BASE + "/" + P1, "GET " + BASE + "/" + P2),
                requests.stream().map(q -> q.method() + " " + q.path()).toList());
        requests.forEach(q -> Signatures.assertSigned(q, TestClients.NOW));

        assertEquals(ExitCode.OK, pull().exit());
        assertEquals(lines(P1 + ".json", P2 + ".json"),
                lines(Files.list(dir).map(p -> p.getFileName().toString()).sorted().toArray(String[]::new)));
    }

    @Test
    void planAfterPullShowsNoChange() {
        pull();
        ApiCli.Result plan = cli.run("policies", "plan", "--workspace-id", WS, dir.toString());
        assertEquals(ExitCode.OK, plan.exit(), plan.err());
        assertEquals(lines("plan: 0 to create, 0 to update, 0 to delete, 2 unchanged"), plan.out());
        assertEquals("", plan.err());
    }

    private void editFiles() throws Exception {
        pull();
        Path f1 = dir.resolve(P1 + ".json");
        ObjectNode policy = (ObjectNode) ApiLeaf.JSON.readTree(f1.toFile());
        policy.put("name", "Large withdrawals (EU)");
        ArrayNode rules = (ArrayNode) policy.get("rules");
        ((ObjectNode) rules.get(0)).put("condition", "withdrawal.value_usd > 5000");
        rules.remove(1);
        rules.addObject().put("trigger_action", "web3.contract_call").put("condition", "resource.gas_limit > 500000")
                .put("effect", "DENY");
        Files.writeString(f1, policy.toPrettyString());
        Files.delete(dir.resolve(P2 + ".json"));
        Files.writeString(dir.resolve("night.yaml"), """
                name: Night freeze
                approval_group_id: %s
                rules:
                  - trigger_action: withdrawal.create
                    condition: context.hour < 6
                    effect: DENY
                """.formatted(AG));
    }

    @Test
    void planShowsFieldLevelChangesNewAndMissingPolicies() throws Exception {
        editFiles();
        ApiCli.Result plan = cli.run("policies", "plan", "--workspace-id", WS, dir.toString());
        assertEquals(ExitCode.OK, plan.exit(), plan.err());
        Path f1 = dir.resolve(P1 + ".json");
        assertEquals(lines(
                "~ update `" + P1 + "` (Large withdrawals (EU)) from `" + f1 + "`",
                "    name: \"Large withdrawals\" -> \"Large withdrawals (EU)\"",
                "    ~ rule `r1` condition: \"withdrawal.value_usd > 10000\" -> \"withdrawal.value_usd > 5000\"",
                "    + rule `" + P1 + "#1` web3.contract_call DENY: resource.gas_limit > 500000",
                "    - rule `r2`",
                "+ create `night` (Night freeze) from `" + dir.resolve("night.yaml") + "`: 1 rule(s)",
                "- keep `" + P2 + "` (Hot wallet): in no file (pass --delete-missing to delete it)",
                "plan: 1 to create, 1 to update, 0 to delete, 0 unchanged, 1 kept"), plan.out());
        long writes = server.requests().stream().filter(q -> !q.method().equals("GET")).count();
        assertEquals(0, writes);

        ApiCli.Result json = cli.run("policies", "plan", "--workspace-id", WS, "--delete-missing", "--format", "json",
                dir.toString());
        assertEquals(ExitCode.OK, json.exit());
        var root = ApiLeaf.JSON.readTree(json.out());
        assertEquals("{\"create\":1,\"update\":1,\"delete\":1,\"unchanged\":0}", root.get("summary").toString());
        assertEquals("{\"field\":\"name\",\"before\":\"Large withdrawals\",\"after\":\"Large withdrawals (EU)\"}",
                root.get("changes").get(0).get("fields").get(0).toString());
        assertEquals("delete", root.get("changes").get(2).get("action").asText());
    }

    @Test
    void applyCreatesUpdatesAndPrintsApprovalRequests() throws Exception {
        editFiles();
        server.ok("PUT", BASE + "/" + P1, "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-1\"}");
        server.ok("POST", BASE, "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-2\","
                + "\"policy\":{\"id\":\"p-new\",\"name\":\"Night freeze\",\"status\":\"pending\",\"version\":1}}");
        server.ok("DELETE", BASE + "/" + P2, "{\"status\":\"pending_approval\"}");
        ApiCli.Result r = cli.run("policies", "apply", "--workspace-id", WS, "--delete-missing", dir.toString());
        assertEquals(ExitCode.OK, r.exit(), r.err());
        String out = r.out();
        assertTrue(out.endsWith(lines(
                "- delete `" + P2 + "` (Hot wallet): in no file",
                "updated `" + P1 + "`: approval request `ar-1`",
                "created `night` as `p-new`: approval request `ar-2`",
                "deleted `" + P2 + "`: status `pending_approval`",
                "apply: 1 created, 1 updated, 1 deleted, 0 unchanged")), out);
        List<Recorded> writes = server.requests().stream().filter(q -> !q.method().equals("GET")).toList();
        assertEquals(3, writes.size());
        assertEquals("PUT", writes.get(0).method());
        assertEquals("{\"name\":\"Large withdrawals (EU)\",\"rules\":[{\"trigger_action\":\"withdrawal.create\","
                + "\"condition\":\"withdrawal.value_usd > 5000\",\"effect\":\"DENY\",\"description\":\"too large\","
                + "\"is_enabled\":true},{\"trigger_action\":\"web3.contract_call\",\"condition\":\"resource.gas_limit > 500000\","
                + "\"effect\":\"DENY\"}]}", writes.get(0).body());
        assertEquals("POST", writes.get(1).method());
        assertEquals("{\"name\":\"Night freeze\",\"approval_group_id\":\"" + AG + "\",\"rules\":[{\"trigger_action\":"
                + "\"withdrawal.create\",\"condition\":\"context.hour < 6\",\"effect\":\"DENY\"}]}", writes.get(1).body());
        assertEquals("DELETE", writes.get(2).method());
        assertEquals(BASE + "/" + P2, writes.get(2).path());
        writes.forEach(q -> Signatures.assertSigned(q, TestClients.NOW));
    }

    @Test
    void applyWithoutDeleteMissingKeepsWorkspacePolicies() throws Exception {
        editFiles();
        server.ok("PUT", BASE + "/" + P1, "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-1\"}");
        server.ok("POST", BASE, "{\"status\":\"pending_approval\",\"approval_request_id\":\"ar-2\"}");
        ApiCli.Result r = cli.run("policies", "apply", "--workspace-id", WS, dir.toString());
        assertEquals(ExitCode.OK, r.exit(), r.err());
        assertTrue(r.out().endsWith(lines("updated `" + P1 + "`: approval request `ar-1`",
                "created `night`: approval request `ar-2`",
                "apply: 1 created, 1 updated, 0 deleted, 0 unchanged, 1 kept")), r.out());
        assertEquals(0, server.requests().stream().filter(q -> q.method().equals("DELETE")).count());
    }

    @Test
    void applyRefusesWhenLintFailsAndSendsNothing() throws Exception {
        Files.writeString(dir.resolve("bad.yaml"), """
                name: Bad
                approval_group_id: %s
                rules:
                  - trigger_action: withdrawal.create
                    condition: withdrawal.amout > 1
                    effect: DENY
                """.formatted(AG));
        ApiCli.Result r = cli.run("policies", "apply", "--workspace-id", WS, dir.toString());
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith(dir.resolve("bad.yaml") + ":5:27: error["), r.err());
        assertTrue(r.err().endsWith(lines("error: lint found 1 error(s) in 1 file(s): nothing was applied")), r.err());
        assertEquals(List.of(), server.requests());

        ApiCli.Result plan = cli.run("policies", "plan", "--workspace-id", WS, dir.toString());
        assertEquals(ExitCode.INPUT, plan.exit());
        assertTrue(plan.err().endsWith(lines("error: lint found 1 error(s) in 1 file(s): nothing was planned")), plan.err());
        assertEquals(List.of(), server.requests());
    }

    @Test
    void duplicatePolicyIdsAreAnInputError() throws Exception {
        pull();
        Files.copy(dir.resolve(P1 + ".json"), dir.resolve("copy.json"));
        ApiCli.Result r = cli.run("policies", "plan", "--workspace-id", WS, dir.toString());
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals(lines("error: policy id `" + P1 + "` is defined twice: in `" + dir.resolve(P1 + ".json")
                + "` and in `" + dir.resolve("copy.json") + "`"), r.err());
    }
}

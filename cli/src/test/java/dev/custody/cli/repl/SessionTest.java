package dev.custody.cli.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.repl.Session.Status;
import dev.custody.engine.schema.TriggerAction;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The REPL core, entry by entry, with the exact output of every command and condition. */
class SessionTest {
    @TempDir
    Path dir;

    private final StringWriter buffer = new StringWriter();
    private Session session;
    private Status status;

    @BeforeEach
    void setUp() {
        ReplFixtures.copyFiles(dir);
        session = ReplFixtures.session(new PrintWriter(buffer), dir);
    }

    /** Runs one entry and returns what it printed; the status is kept in {@link #status}. */
    private String run(String entry) {
        buffer.getBuffer().setLength(0);
        status = session.execute(entry);
        return buffer.toString();
    }

    private void assertRun(String entry, Status expectedStatus, String expectedOutput) {
        String output = run(entry);
        assertEquals(expectedOutput, output, "output of `" + entry + "`");
        assertEquals(expectedStatus, status, "status of `" + entry + "`");
    }

    @Nested
    class Conditions {
        @Test
        void printsTrueOrFalseAgainstThePayload() {
            assertRun(":set withdrawal.value_usd 12000", Status.OK, "withdrawal.value_usd = 12000.0\n");
            assertRun("withdrawal.value_usd > 10000", Status.OK, "true\n");
            assertRun("  withdrawal.value_usd < 100  ", Status.OK, "false\n");
        }

        @Test
        void compileErrorIsRenderedWithTheConditionAndACaret() {
            assertRun("withdrawal.amout > 1", Status.ERROR, """
                    error[unknown_field] 1:12: unknown field `withdrawal.amout`
                     | withdrawal.amout > 1
                     | ...........^
                     = hint: did you mean `withdrawal.amount`?
                    """);
        }

        @Test
        void caretLandsOnTheRightLineOfAMultiLineCondition() {
            assertRun("(withdrawal.value_usd > 1 &&\n  withdrawal.amout > 1)", Status.ERROR, """
                    error[unknown_field] 2:14: unknown field `withdrawal.amout`
                     |   withdrawal.amout > 1)
                     | .............^
                     = hint: did you mean `withdrawal.amount`?
                    """);
        }

        @Test
        void aFieldOfTheOtherActionIsAnUnknownField() {
            run(":action web3.contract_call");
            String out = run("withdrawal.value_usd > 1");
            assertTrue(out.startsWith("error[unknown_field] 1:1: "), out);
            assertEquals(Status.ERROR, status);
        }

        @Test
        void nonBooleanConditionIsADiagnostic() {
            String out = run("withdrawal.value_usd + 1.0");
            assertTrue(out.startsWith("error[not_boolean]"), out);
            assertEquals(Status.ERROR, status);
        }

        @Test
        void runtimeErrorIsOneLine() {
            assertRun("principal.role == \"admin\"", Status.ERROR,
                    "error: `principal.role` is absent from the payload (at 1:11)\n");
        }

        @Test
        void warningsArePrintedBeforeTheResult() {
            run(":set principal.user_email ops@example.com");
            assertRun("principal.user_email.endsWith(\"@example.com\")", Status.OK, """
                    warning[unguarded_optional_read] 1:11: `principal.user_email` is optional and read without a `has()` guard
                     | principal.user_email.endsWith("@example.com")
                     | ..........^
                     = hint: when it is absent the rule fails and the action is denied; write `has(principal.user_email) && …`
                    true
                    """);
        }

        @Test
        void cancelledFieldsOfTheOtherActionAreNotEvaluated() {
            run(":set withdrawal.value_usd 5");
            run(":action web3.contract_call");
            run(":set resource.gas_limit 21000");
            assertRun("resource.gas_limit == 21000", Status.OK, "true\n");
            run(":action withdrawal.create");
            assertRun("withdrawal.value_usd == 5.0", Status.OK, "true\n");
        }

        @Test
        void aConditionPastTheTimeBudgetIsAnError() {
            session = Session.builder(new PrintWriter(buffer)).clock(ReplFixtures.CLOCK).workingDirectory(dir)
                    .timeBudget(java.time.Duration.ofNanos(1)).build();
            assertRun("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, x > 0)", Status.ERROR,
                    "error: time budget exceeded before the rule ran\n");
        }

        @Test
        void commentsAndBlankLinesDoNothing() {
            assertRun("", Status.OK, "");
            assertRun("   ", Status.OK, "");
            assertRun("# a comment for scripts", Status.OK, "");
        }
    }

    @Nested
    class Set {
        @Test
        void valuesAreTypedByTheSchema() {
            assertRun(":set withdrawal.value_usd 12000", Status.OK, "withdrawal.value_usd = 12000.0\n");
            assertRun(":set withdrawal.amount 1.5e3", Status.OK, "withdrawal.amount = 1500.0\n");
            assertRun(":set wallet.withdrawal_count_1h 3", Status.OK, "wallet.withdrawal_count_1h = 3\n");
            assertRun(":set withdrawal.is_whitelisted true", Status.OK, "withdrawal.is_whitelisted = true\n");
            assertRun(":set principal.role admin", Status.OK, "principal.role = \"admin\"\n");
            assertRun(":set withdrawal.asset_symbol USD Coin", Status.OK, "withdrawal.asset_symbol = \"USD Coin\"\n");
            assertRun(":set withdrawal.network_code \"ETHEREUM_MAINNET\"", Status.OK,
                    "withdrawal.network_code = \"ETHEREUM_MAINNET\"\n");
            assertRun(":set withdrawal.destination_address '0xab\"c'", Status.OK,
                    "withdrawal.destination_address = \"0xab\\\"c\"\n");
            assertRun(":set withdrawal.asset_symbol \"tab\\there\"", Status.OK, "withdrawal.asset_symbol = \"tab\\there\"\n");
            assertRun("withdrawal.value_usd == 12000.0 && wallet.withdrawal_count_1h == 3 && withdrawal.is_whitelisted"
                    + " && principal.role == 'admin' && withdrawal.network_code == 'ETHEREUM_MAINNET'", Status.OK, "true\n");
        }

        @Test
        void decodedArgsIsAJsonObject() {
            run(":action web3.contract_call");
            assertRun(":set resource.decoded_args {\"to\": \"0x12\", \"value\": \"5\", \"n\": 7}", Status.OK,
                    "resource.decoded_args = {\"to\":\"0x12\",\"value\":\"5\",\"n\":7}\n");
            assertRun("has(resource.decoded_args.n) && resource.decoded_args.n == 7", Status.OK, "true\n");
            assertRun(":set resource.decoded_args [1, 2]", Status.ERROR,
                    "error: `resource.decoded_args` is a JSON object such as {\"to\": \"0x…\"}; `[1, 2]` is not\n");
            assertRun(":set resource.decoded_args {to: 1}", Status.ERROR,
                    "error: `resource.decoded_args` is a JSON object such as {\"to\": \"0x…\"}; `{to: 1}` is not valid JSON\n");
            assertRun(":set resource.decoded_args {\"a\": 1, \"a\": 2}", Status.ERROR,
                    "error: `resource.decoded_args` is a JSON object such as {\"to\": \"0x…\"}; `{\"a\": 1, \"a\": 2}` is not valid JSON\n");
        }

        @Test
        void aValueOfTheWrongTypeNamesTheExpectedType() {
            assertRun(":set withdrawal.value_usd abc", Status.ERROR,
                    "error: `withdrawal.value_usd` is a number; `abc` is not\n");
            assertRun(":set withdrawal.value_usd NaN", Status.ERROR,
                    "error: `withdrawal.value_usd` is a number; `NaN` is not\n");
            assertRun(":set withdrawal.value_usd 1e400", Status.ERROR,
                    "error: `withdrawal.value_usd` is a number; `1e400` is out of range\n");
            assertRun(":set withdrawal.value_usd -5", Status.ERROR,
                    "error: `withdrawal.value_usd` cannot be negative; `-5` is\n");
            assertRun(":set wallet.withdrawal_count_1h 1.5", Status.ERROR,
                    "error: `wallet.withdrawal_count_1h` is an integer; `1.5` is not\n");
            assertRun(":set wallet.withdrawal_count_1h 99999999999999999999", Status.ERROR,
                    "error: `wallet.withdrawal_count_1h` is an integer; `99999999999999999999` is out of range\n");
            assertRun(":set withdrawal.is_whitelisted yes", Status.ERROR,
                    "error: `withdrawal.is_whitelisted` is a boolean (true or false); `yes` is not\n");
            assertRun(":set principal.role admn", Status.ERROR,
                    "error: `principal.role` is one of owner, admin, signer, proposer, viewer, guest; `admn` is not"
                            + " (did you mean `admin`?)\n");
            assertRun(":set principal.role \"admin", Status.ERROR,
                    "error: `principal.role` is one of owner, admin, signer, proposer, viewer, guest; `\"admin` is not (did you mean `admin`?)\n");
            assertRun(":set withdrawal.asset_symbol \"bad\\escape\"", Status.ERROR,
                    "error: `withdrawal.asset_symbol` is a string; `\"bad\\escape\"` is not a valid quoted string\n");
            assertRun(":show", Status.OK, """
                    action: withdrawal.create
                    at: now, 2026-11-03T14:05:00Z (context.hour == 14, context.day_of_week == "Tuesday")
                    {
                      "action": "withdrawal.create",
                      "wallet_id": "00000000-0000-0000-0000-000000000000"
                    }
                    """);
        }

        @Test
        void unknownFieldsAreRefusedWithAHint() {
            assertRun(":set withdrawal.amout 1", Status.ERROR,
                    "error: unknown field `withdrawal.amout` (did you mean `withdrawal.amount`?); `:schema` lists the fields\n");
            assertRun(":set nothing.here 1", Status.ERROR,
                    "error: unknown field `nothing.here`; `:schema` lists the fields\n");
            assertRun(":set resource.gas_limit 1", Status.ERROR,
                    "error: `resource.gas_limit` is not a field of withdrawal.create (switch with `:action web3.contract_call`)\n");
            assertRun(":set context.hour 3", Status.ERROR,
                    "error: `context.hour` is computed from the instant; set it with `:at TIMESTAMP`\n");
            assertRun(":set withdrawal.value_usd", Status.ERROR,
                    "error: `:set` needs a field and a value: `:set FIELD VALUE`\n");
            assertRun(":set", Status.ERROR, "error: `:set` needs a field and a value: `:set FIELD VALUE`\n");
        }

        @Test
        void idsOfTheActionCanBeSet() {
            assertRun(":set wallet_id 11111111-1111-4111-8111-111111111111", Status.OK,
                    "wallet_id = \"11111111-1111-4111-8111-111111111111\"\n");
            assertRun(":set wallet_id nope", Status.ERROR, "error: `wallet_id` is a UUID; `nope` is not\n");
            assertRun(":set id a-1", Status.OK, "id = \"a-1\"\n");
            assertRun(":set workspace_id ws-9", Status.OK, "workspace_id = \"ws-9\"\n");
            assertRun(":show", Status.OK, """
                    action: withdrawal.create
                    at: now, 2026-11-03T14:05:00Z (context.hour == 14, context.day_of_week == "Tuesday")
                    {
                      "id": "a-1",
                      "action": "withdrawal.create",
                      "wallet_id": "11111111-1111-4111-8111-111111111111",
                      "workspace_id": "ws-9"
                    }
                    """);
            assertRun(":unset wallet_id", Status.OK, "unset wallet_id (back to 00000000-0000-0000-0000-000000000000)\n");
            assertRun(":unset id", Status.OK, "unset id\n");
        }

        @Test
        void unsetRemovesAField() {
            run(":set withdrawal.value_usd 1");
            assertRun(":unset withdrawal.value_usd", Status.OK, "unset withdrawal.value_usd\n");
            assertRun(":unset withdrawal.value_usd", Status.OK, "withdrawal.value_usd was not set\n");
            assertRun("withdrawal.value_usd > 0", Status.ERROR,
                    "error: `withdrawal.value_usd` is absent from the payload (at 1:12)\n");
            assertRun(":unset withdrawal.valeu_usd", Status.ERROR,
                    "error: unknown field `withdrawal.valeu_usd` (did you mean `withdrawal.value_usd`?); `:schema` lists the fields\n");
            assertRun(":unset", Status.ERROR, "error: `:unset` takes one field; got none\n");
        }

        @Test
        void unsetClearsAFieldKeptFromTheOtherAction() {
            run(":set withdrawal.value_usd 1");
            run(":action web3.contract_call");
            assertRun(":unset withdrawal.value_usd", Status.OK, "unset withdrawal.value_usd\n");
            assertRun(":action withdrawal.create", Status.OK, "action: withdrawal.create\n");
        }
    }

    @Nested
    class ActionAndInstant {
        @Test
        void switchingSaysWhichFieldsNoLongerApply() {
            run(":set withdrawal.value_usd 12000");
            run(":set principal.role admin");
            run(":set wallet.outflow_24h 5");
            assertRun(":action web3.contract_call", Status.OK, """
                    action: web3.contract_call
                    fields that do not apply to web3.contract_call (kept): withdrawal.value_usd, wallet.outflow_24h
                    """);
            assertEquals(TriggerAction.WEB3_CONTRACT_CALL, session.action());
            assertRun("principal.role == \"admin\"", Status.OK, "true\n");
            assertRun(":action", Status.OK, "action: web3.contract_call\n");
            assertRun(":action withdrawal.create", Status.OK, "action: withdrawal.create\n");
            assertRun("withdrawal.value_usd == 12000.0", Status.OK, "true\n");
        }

        @Test
        void unknownActionIsAnErrorWithAHint() {
            assertRun(":action withdrawal.crate", Status.ERROR,
                    "error: unknown action `withdrawal.crate` (did you mean `withdrawal.create`?); actions:"
                            + " withdrawal.create, web3.contract_call\n");
            assertRun(":action a b", Status.ERROR, "error: `:action` takes one action; got `a b`\n");
            assertEquals(TriggerAction.WITHDRAWAL_CREATE, session.action());
        }

        @Test
        void atFixesTheInstantBehindContext() {
            assertRun(":at", Status.OK,
                    "at: now, 2026-11-03T14:05:00Z (context.hour == 14, context.day_of_week == \"Tuesday\")\n");
            assertRun("context.hour == 14 && context.day_of_week == \"Tuesday\"", Status.OK, "true\n");
            assertRun(":at 2026-11-08T03:30:00Z", Status.OK,
                    "at: 2026-11-08T03:30:00Z (context.hour == 3, context.day_of_week == \"Sunday\")\n");
            assertRun("context.hour < 6 && context.day_of_week == \"Sunday\"", Status.OK, "true\n");
            assertRun(":at 2026-11-08T03:30:00+05:00", Status.OK,
                    "at: 2026-11-07T22:30:00Z (context.hour == 22, context.day_of_week == \"Saturday\")\n");
            assertRun(":at now", Status.OK,
                    "at: now, 2026-11-03T14:05:00Z (context.hour == 14, context.day_of_week == \"Tuesday\")\n");
            assertRun(":at tomorrow", Status.ERROR,
                    "error: `tomorrow` is not an ISO-8601 instant such as `2026-11-02T14:05:00Z` (or `now`)\n");
        }

        @Test
        void nowFollowsTheClock() {
            Instant[] now = {Instant.parse("2026-11-03T23:59:00Z")};
            Clock moving = new Clock() {
                @Override
                public ZoneId getZone() {
                    return java.time.ZoneOffset.UTC;
                }

                @Override
                public Clock withZone(ZoneId zone) {
                    return this;
                }

                @Override
                public Instant instant() {
                    return now[0];
                }
            };
            session = Session.builder(new PrintWriter(buffer)).clock(moving).workingDirectory(dir).build();
            assertRun("context.hour == 23", Status.OK, "true\n");
            now[0] = Instant.parse("2026-11-04T00:01:00Z");
            assertRun("context.hour == 0 && context.day_of_week == \"Wednesday\"", Status.OK, "true\n");
        }
    }

    @Nested
    class ShowAndLoad {
        @Test
        void showPrintsTheActionTheInstantAndThePayload() {
            run(":at 2026-11-02T14:05:00Z");
            run(":set withdrawal.value_usd 12000");
            run(":set principal.role signer");
            run(":set wallet.withdrawal_count_1h 2");
            assertRun(":show", Status.OK, """
                    action: withdrawal.create
                    at: 2026-11-02T14:05:00Z (context.hour == 14, context.day_of_week == "Monday")
                    {
                      "action": "withdrawal.create",
                      "wallet_id": "00000000-0000-0000-0000-000000000000",
                      "at": "2026-11-02T14:05:00Z",
                      "principal": {
                        "role": "signer"
                      },
                      "withdrawal": {
                        "value_usd": 12000.0
                      },
                      "wallet": {
                        "withdrawal_count_1h": 2
                      }
                    }
                    """);
            assertRun(":show me", Status.ERROR, "error: `:show` takes no argument; got `me`\n");
        }

        @Test
        void loadReplacesThePayloadWithAnActionFile() {
            run(":set resource.gas_limit 1");
            assertRun(":load withdrawal.json", Status.OK, """
                    loaded withdrawal.create action `a-17` from `withdrawal.json` (11 fields)
                    at: 2026-11-02T14:05:00Z (context.hour == 14, context.day_of_week == "Monday")
                    """);
            assertRun(":show", Status.OK, """
                    action: withdrawal.create
                    at: 2026-11-02T14:05:00Z (context.hour == 14, context.day_of_week == "Monday")
                    {
                      "id": "a-17",
                      "action": "withdrawal.create",
                      "wallet_id": "11111111-1111-4111-8111-111111111111",
                      "workspace_id": "ws-1",
                      "at": "2026-11-02T14:05:00Z",
                      "principal": {
                        "user_email": "ops@example.com",
                        "role": "signer"
                      },
                      "withdrawal": {
                        "amount": 2.5,
                        "value_usd": 7400.0,
                        "asset_symbol": "ETH",
                        "asset_is_native": true,
                        "destination_address": "0xabc",
                        "network_code": "ETHEREUM_MAINNET",
                        "is_whitelisted": false,
                        "address_age_sec": 0.0
                      },
                      "wallet": {
                        "outflow_24h": 12000.0
                      }
                    }
                    """);
            assertRun("withdrawal.value_usd > 5000 && wallet.outflow_24h >= 12000", Status.OK, "true\n");
        }

        @Test
        void showOutputLoadsBack() throws IOException {
            run(":load withdrawal.json");
            String shown = run(":show");
            String json = shown.substring(shown.indexOf('{'));
            Files.writeString(dir.resolve("again.json"), json);
            run(":set withdrawal.value_usd 1");
            assertRun(":load again.json", Status.OK, """
                    loaded withdrawal.create action `a-17` from `again.json` (11 fields)
                    at: 2026-11-02T14:05:00Z (context.hour == 14, context.day_of_week == "Monday")
                    """);
            assertEquals(shown, run(":show"));
        }

        @Test
        void loadSwitchesTheAction() {
            assertRun(":load call.json", Status.OK, "loaded web3.contract_call action from `call.json` (7 fields)\n");
            assertEquals(TriggerAction.WEB3_CONTRACT_CALL, session.action());
            assertRun("has(resource.decoded_args.to) && resource.decoded_args.to == \"0x1234\"", Status.OK, "true\n");
        }

        @Test
        void loadErrorsLeaveThePayloadAlone() throws IOException {
            run(":set withdrawal.value_usd 3");
            assertRun(":load missing.json", Status.ERROR, "error: `missing.json` does not exist\n");
            assertRun(":load bad-field.json", Status.ERROR,
                    "error: `bad-field.json`: field `withdrawal.value_usd` must be a number, not a string\n");
            Files.writeString(dir.resolve("garbage.json"), "{\"action\": ");
            String out = run(":load garbage.json");
            assertTrue(out.startsWith("error: `garbage.json`: malformed JSON"), out);
            Files.writeString(dir.resolve("typo.json"), "{\"action\": \"withdrawal.create\", \"withdrawl\": {}}");
            assertRun(":load typo.json", Status.ERROR,
                    "error: `typo.json`: unknown property `withdrawl` (did you mean `withdrawal`?)\n");
            assertRun(":load", Status.ERROR, "error: `:load` takes one file; got none\n");
            assertRun(":load " + dir.resolve("missing.json"), Status.ERROR, "error: `missing.json` does not exist\n");
            assertRun("withdrawal.value_usd == 3.0", Status.OK, "true\n");
        }

        @Test
        void loadTakesQuotedPathsWithSpaces() throws IOException {
            Files.copy(dir.resolve("call.json"), dir.resolve("my call.json"));
            assertRun(":load \"my call.json\"", Status.OK, "loaded web3.contract_call action from `my call.json` (7 fields)\n");
        }
    }

    @Nested
    class PoliciesAndDecide {
        @Test
        void decideNeedsPolicies() {
            assertRun(":decide", Status.ERROR, "error: no policies loaded; load them with `:policies PATH...`\n");
            assertRun(":policies", Status.OK, "no policies loaded; load them with `:policies PATH...`\n");
        }

        @Test
        void analyzeProvesFactsAboutTheLoadedPolicies() {
            assertRun(":analyze", Status.ERROR, "error: no policies loaded; load them with `:policies PATH...`\n");
            run(":policies limits.yaml");
            assertRun(":analyze", Status.OK, "2 rules, 2 analysed: 0 errors, 0 warnings, 0 notes\n");
            assertRun(":analyze web3.contract_call", Status.OK, "0 rules, 0 analysed: 0 errors, 0 warnings, 0 notes\n");
            assertRun(":analyze web3", Status.ERROR, "error: unknown trigger action `web3`; trigger actions: "
                    + "withdrawal.create, web3.contract_call\n");
        }

        @Test
        void loadsPoliciesAndDecides() {
            assertRun(":policies limits.yaml", Status.OK, "loaded 1 file: 1 active policy, 2 enabled rules\n");
            run(":set withdrawal.value_usd 12000");
            assertRun(":decide", Status.OK, """
                    DENY
                      rule_id: big-withdrawal
                      policy_id: limits
                      reason: withdrawals over 10k USD need approval
                    """);
            run(":set withdrawal.value_usd 500");
            run(":set principal.role admin");
            run(":set withdrawal.is_whitelisted true");
            assertRun(":decide --explain", Status.OK, """
                    ALLOW
                      rule_id: trusted-admin
                      policy_id: limits
                      reason: admins may send to whitelisted addresses
                      trace:
                        big-withdrawal (DENY): false
                        trusted-admin (ALLOW): true
                    """);
            run(":set withdrawal.is_whitelisted false");
            assertRun(":decide", Status.OK, "NO_MATCH\n");
            assertRun(":decide --verbose", Status.ERROR, "error: `:decide` takes only `--explain`; got `--verbose`\n");
        }

        @Test
        void aRuleThatFailsDeniesFailClosed() {
            assertRun(":policies limits.yaml vip.yaml", Status.OK, """
                    vip.yaml:6:26: warning[unguarded_optional_read] `principal.user_email` is optional and read without a `has()` guard (hint: when it is absent the rule fails and the action is denied; write `has(principal.user_email) && …`)
                    loaded 2 files: 2 active policies, 3 enabled rules
                    """);
            run(":set withdrawal.value_usd 500");
            run(":set principal.role signer");
            run(":set withdrawal.is_whitelisted false");
            assertRun(":decide --explain", Status.OK, """
                    DENY (fail-closed)
                      rule_id: vip#0
                      policy_id: vip
                      error: rule `vip#0` failed: `principal.user_email` is absent from the payload (at 1:11)
                      trace:
                        big-withdrawal (DENY): false
                        trusted-admin (ALLOW): false
                        vip#0 (ALLOW): error: `principal.user_email` is absent from the payload (at 1:11)
                    """);
            assertRun(":policies", Status.OK, """
                    limits.yaml
                      limits: active, 2 rules
                    vip.yaml
                      vip: active, 1 rule
                    """);
        }

        @Test
        void aPolicyThatDoesNotCompileIsReportedWithFileLineAndColumn() {
            assertRun(":policies limits.yaml broken.yaml", Status.ERROR, """
                    broken.yaml:6:27: error[unknown_field] unknown field `withdrawal.amout` (hint: did you mean `withdrawal.amount`?)
                    error: the policies do not compile: `:decide` denies every action (fail-closed) until they are fixed
                    """);
            assertRun(":decide", Status.OK, """
                    DENY (fail-closed)
                      error: policies do not compile: policy `broken` /rules/0/condition 1:12: error[unknown_field] unknown field `withdrawal.amout` (hint: did you mean `withdrawal.amount`?)
                    """);
        }

        @Test
        void aMalformedPolicyFileFailsTheLoad() {
            String out = run(":policies malformed.yaml");
            assertTrue(out.startsWith("malformed.yaml:4:"), out);
            assertTrue(out.contains(": error[parse_error] "), out);
            assertTrue(out.endsWith("error: the policies do not compile: `:decide` denies every action (fail-closed)"
                    + " until they are fixed\n"), out);
            assertEquals(Status.ERROR, status);
            String decision = run(":decide");
            assertTrue(decision.startsWith("DENY (fail-closed)\n  error: policies could not be loaded: `"), decision);
            assertTrue(decision.contains("malformed.yaml` is not a valid policy file: "), decision);
        }

        @Test
        void missingPathsKeepThePoliciesLoadedBefore() {
            run(":policies limits.yaml");
            assertRun(":policies limits.yaml nope/", Status.ERROR, "error: `nope` does not exist\n");
            run(":set withdrawal.value_usd 20000");
            assertRun(":decide", Status.OK, """
                    DENY
                      rule_id: big-withdrawal
                      policy_id: limits
                      reason: withdrawals over 10k USD need approval
                    """);
        }

        @Test
        void aDirectoryIsSearchedForPolicyFiles() throws IOException {
            Path policies = Files.createDirectories(dir.resolve("policies/nested"));
            Files.copy(dir.resolve("limits.yaml"), policies.resolve("limits.yaml"));
            Files.writeString(dir.resolve("policies/notes.txt"), "not a policy");
            assertRun(":policies policies", Status.OK, "loaded 1 file: 1 active policy, 2 enabled rules\n");
            assertRun(":policies", Status.OK, "policies/nested/limits.yaml\n  limits: active, 2 rules\n");
            Files.createDirectories(dir.resolve("empty"));
            assertRun(":policies empty", Status.ERROR, "error: no policy file (.json, .yaml, .yml) under `empty`\n");
        }
    }

    @Nested
    class SchemaHelpAndCommands {
        @Test
        void schemaListsTheFieldsOfASection() {
            assertRun(":schema principal", Status.OK, """
                    principal fields:
                      principal.user_email  string   email of the initiating user, when available; optional
                      principal.role        string   workspace role of the initiating user; one of owner, admin, signer, proposer, viewer, guest
                    """);
            assertRun(":schema resource", Status.OK, """
                    resource fields (not part of withdrawal.create):
                      resource.network_code      string   internal network code
                      resource.contract_address  string   lowercase address from the raw transaction `to` field
                      resource.method_selector   string   lowercase 4-byte selector, `0x` plus 8 hex digits
                      resource.method_name       string   method name from request metadata when provided; optional
                      resource.value_wei         string   native value sent with the call, as a decimal string
                      resource.gas_limit         integer  gas limit from the raw transaction
                      resource.decoded_args      map      decoded arguments when the call is recognized; guard reads with has()
                    """);
        }

        @Test
        void schemaWithoutArgumentListsTheCurrentAction() {
            String out = run(":schema");
            assertTrue(out.startsWith("withdrawal.create fields:\n  principal.user_email "), out);
            assertTrue(out.contains("\n  withdrawal.value_usd "), out);
            assertTrue(out.contains("\n  context.day_of_week "), out);
            assertTrue(!out.contains("resource."), out);
            assertEquals(1 + 24, out.lines().count());
            String web3 = run(":schema web3.contract_call");
            assertTrue(web3.startsWith("web3.contract_call fields:\n"), web3);
            assertEquals(1 + 11, web3.lines().count());
            assertRun(":schema principle", Status.ERROR, "error: unknown section or action `principle` (did you mean"
                    + " `principal`?); sections: principal, context, withdrawal, wallet, workspace, resource\n");
        }

        @Test
        void helpListsEveryCommand() {
            assertRun(":help", Status.OK, """
                    commands:
                      :action [A]          switch the trigger action: withdrawal.create | web3.contract_call
                      :load FILE           replace the payload with an action file (JSON, one action)
                      :set FIELD VALUE     set a payload field; the value is typed by the schema
                      :unset FIELD         remove a payload field
                      :show                print the action, the instant and the payload as JSON
                      :at [TIMESTAMP|now]  set the instant behind context.* (ISO-8601, e.g. 2026-11-02T14:05:00Z)
                      :policies [PATH...]  load and compile policy files and directories (no PATH: list them)
                      :decide [--explain]  decide the payload against the loaded policies
                      :analyze [A]         prove facts about the loaded rules for every valid action
                      :schema [SECTION|A]  list the fields of the current action, of a section or of an action
                      :help                print this help
                      :quit                leave the REPL (Ctrl-D also leaves)
                    any other line is a condition, evaluated against the payload: prints true, false or the error
                    lines starting with # are comments; open brackets and quotes continue on the next line
                    """);
        }

        @Test
        void unknownCommandSuggestsTheClosestOne() {
            assertRun(":quti", Status.ERROR,
                    "error: unknown command `:quti` (did you mean `:quit`?); `:help` lists the commands\n");
            assertRun(":polices a.yaml", Status.ERROR,
                    "error: unknown command `:polices` (did you mean `:policies`?); `:help` lists the commands\n");
            assertRun(":xyzzy", Status.ERROR, "error: unknown command `:xyzzy`; `:help` lists the commands\n");
        }

        @Test
        void quitEndsTheSession() {
            assertRun(":quit", Status.QUIT, "");
            assertRun("  :quit  ", Status.QUIT, "");
            assertRun(":quit now", Status.ERROR, "error: `:quit` takes no argument; got `now`\n");
        }

        @Test
        void anUnexpectedFailureIsPrintedAndTheSessionGoesOn() {
            Clock broken = new Clock() {
                @Override
                public ZoneId getZone() {
                    return java.time.ZoneOffset.UTC;
                }

                @Override
                public Clock withZone(ZoneId zone) {
                    return this;
                }

                @Override
                public Instant instant() {
                    throw new IllegalStateException("clock unplugged\nsecond line");
                }
            };
            session = Session.builder(new PrintWriter(buffer)).clock(broken).workingDirectory(dir).build();
            assertRun("true", Status.ERROR, "error: internal error: IllegalStateException: clock unplugged\n");
            assertRun(":at 2026-11-02T14:05:00Z", Status.OK,
                    "at: 2026-11-02T14:05:00Z (context.hour == 14, context.day_of_week == \"Monday\")\n");
            assertRun("context.hour == 14", Status.OK, "true\n");
            assertRun(":set withdrawal.value_usd 1", Status.OK, "withdrawal.value_usd = 1.0\n");
        }
    }
}

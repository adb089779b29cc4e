package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValidateCommandTest {

    @Test
    void aValidConditionPrintsValidAndExitsZero() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY",
                "withdrawal.value_usd > 10000");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("valid\n", r.out());
        assertEquals("", r.err());
    }

    @Test
    void anUnknownFieldShowsTheConditionWithACaretUnderTheFieldAndExitsOne() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY",
                "withdrawal.amout > 1");
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertEquals(List.of(
                "error[unknown_field] 1:12: unknown field `withdrawal.amout`",
                " | withdrawal.amout > 1",
                " | ...........^",
                " = hint: did you mean `withdrawal.amount`?",
                "invalid: 1 error"), r.outLines());
    }

    @Test
    void aCaretPerErrorOnItsOwnLineOfAMultiLineCondition() {
        Cli.Result r = Cli.run("validate", "--action", "web3.contract_call", "--effect", "DENY",
                "resource.value_wei != \"0\"\n  && resource.decoded_args.to == \"0x1\"");
        assertEquals(ExitCode.INPUT, r.exit(), r.toString());
        assertEquals("error[unguarded_dynamic_read] 2:28: ", r.outLines().get(0).substring(0, 36));
        assertEquals(" |   && resource.decoded_args.to == \"0x1\"", r.outLines().get(1));
        assertEquals(" | ...........................^", r.outLines().get(2));
    }

    @Test
    void warningsAloneKeepTheConditionValid() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "ALLOW",
                "principal.user_email.endsWith('@example.com')");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("warning[unguarded_optional_read] 1:11: `principal.user_email` is optional and read without a "
                + "`has()` guard", r.outLines().get(0));
        assertEquals("valid (1 warning)", r.outLines().get(r.outLines().size() - 1));
    }

    @Test
    void jsonPrintsExactlyValidDiagnosticsAndTheCostEstimate() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY", "--format", "json",
                "withdrawal.amout > 1");
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("{\"valid\":false,\"diagnostics\":[{\"severity\":\"error\",\"code\":\"unknown_field\","
                + "\"message\":\"unknown field `withdrawal.amout`\",\"line\":1,\"column\":12,"
                + "\"hint\":\"did you mean `withdrawal.amount`?\"}],\"cost_estimate\":null,\"compiled\":null}\n", r.out());

        Cli.Result ok = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY", "--format", "json",
                "withdrawal.amount > 1");
        assertEquals(ExitCode.OK, ok.exit());
        // four nodes: the section, the field, the constant, the comparison (docs/design.md §3.15)
        assertEquals("{\"valid\":true,\"diagnostics\":[],\"cost_estimate\":4,\"compiled\":true}\n", ok.out());
    }

    @Test
    void aConditionWhoseWorstCaseCostPassesTheLimitGetsAWarning() {
        String range = "[" + "1,".repeat(98) + "1]";
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY", "--format", "json",
                range + ".all(x, " + range + ".all(y, withdrawal.destination_address.matches('^0x[0-9a-f]+$')))");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertTrue(r.out().startsWith("{\"valid\":true,\"diagnostics\":[{\"severity\":\"warning\","
                + "\"code\":\"cost_exceeds_limit\",\"message\":\"the condition's worst-case cost, "), r.out());
        assertTrue(r.out().contains(" units, exceeds the limit of 400000: on the largest valid payloads it is stopped and "
                + "the action denied (cost_budget)\",\"line\":1,\"column\":1,"), r.out());
        assertTrue(r.out().matches("(?s).*\"cost_estimate\":[0-9]{8,},\"compiled\":true\\}\n"), r.out());
        // unsigned integers have no compiled form: such a condition runs on cel-java (docs/design.md §10.4)
        Cli.Result uint = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY", "--format", "json",
                "uint(wallet.withdrawal_count_1h) > 3u");
        assertEquals("{\"valid\":true,\"diagnostics\":[],\"cost_estimate\":7,\"compiled\":false}\n", uint.out());
    }

    @Test
    void aDashReadsTheConditionFromStandardInput() {
        Cli.Result r = Cli.runWithInput("principal.role == \"guest\"\n", "validate", "--action", "withdrawal.create",
                "--effect", "DENY", "-");
        assertEquals(ExitCode.OK, r.exit(), r.toString());
        assertEquals("valid\n", r.out());
    }

    @Test
    void anEmptyConditionIsInvalid() {
        Cli.Result r = Cli.runWithInput("\n", "validate", "--action", "withdrawal.create", "--effect", "DENY", "-");
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("error[empty_condition] 1:1: condition is empty", r.outLines().get(0));
    }

    @Test
    void anUnknownActionIsAUsageError() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawl.create", "--effect", "DENY", "true");
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("", r.out());
        assertEquals("error: invalid value for option `--action`: unknown action `withdrawl.create` (did you mean "
                + "`withdrawal.create`?); actions: withdrawal.create, web3.contract_call; see `custody validate --help`\n",
                r.err());
    }

    @Test
    void anUnknownEffectIsAUsageError() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "deny", "true");
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("error: invalid value for option `--effect`: unknown effect `deny` (did you mean `DENY`?); "
                + "effects: ALLOW, DENY; see `custody validate --help`\n", r.err());
    }

    @Test
    void anUnknownFlagIsAUsageErrorWithASuggestion() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY", "--formt", "json",
                "true");
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("error: unknown option `--formt` (did you mean `--format`?); see `custody validate --help`\n",
                r.err());
    }

    @Test
    void aMissingConditionIsAUsageError() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY");
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("error: missing required parameter: `CONDITION`; see `custody validate --help`\n", r.err());
    }

    @Test
    void anUnknownFormatIsAUsageError() {
        Cli.Result r = Cli.run("validate", "--action", "withdrawal.create", "--effect", "DENY", "--format", "xml", "1");
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("error: invalid value for option `--format`: expected one of [text, json] (case-sensitive) but was "
                + "`xml`; see `custody validate --help`\n", r.err());
    }
}

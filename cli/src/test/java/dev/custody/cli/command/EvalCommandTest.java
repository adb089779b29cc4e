package dev.custody.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.custody.cli.Cli;
import dev.custody.cli.ExitCode;
import dev.custody.cli.Fixtures;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalCommandTest {
    static final String SECTIONS = "{\"withdrawal\": {\"value_usd\": 12000}, \"principal\": {\"role\": \"signer\"}}";

    @TempDir
    Path dir;

    @Test
    void printsTrueOrFalseForAPayloadOfSections() {
        String payload = Cli.write(dir, "p.json", SECTIONS);
        Cli.Result t = Cli.run("eval", "--action", "withdrawal.create", "--payload", payload, "withdrawal.value_usd > 10000");
        assertEquals(ExitCode.OK, t.exit(), t.toString());
        assertEquals("true\n", t.out());
        Cli.Result f = Cli.run("eval", "--action", "withdrawal.create", "--payload", payload, "withdrawal.value_usd > 20000");
        assertEquals(ExitCode.OK, f.exit());
        assertEquals("false\n", f.out());
    }

    @Test
    void acceptsAWholeActionAsThePayload() {
        String payload = Cli.write(dir, "a.json", Fixtures.withdrawal("a-1", 7400, true));
        Cli.Result r = Cli.run("eval", "--action", "withdrawal.create", "--payload", payload,
                "withdrawal.is_whitelisted && context.day_of_week == \"Tuesday\" && context.hour == 14");
        assertEquals("true\n", r.out(), r.toString());
    }

    @Test
    void aPayloadOfAnotherActionIsAnInputError() {
        String payload = Cli.write(dir, "a.json", Fixtures.withdrawal("a-1", 7400, true));
        Cli.Result r = Cli.run("eval", "--action", "web3.contract_call", "--payload", payload, "true");
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("error: payload is a `withdrawal.create` action but `--action` is `web3.contract_call`\n", r.err());
    }

    @Test
    void readingAnAbsentFieldPrintsTheErrorAndExitsOne() {
        Cli.Result r = Cli.runWithInput(SECTIONS, "eval", "--action", "withdrawal.create", "--payload", "-",
                "withdrawal.amount > 1");
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("error: `withdrawal.amount` is absent from the payload (at 1:12)\n", r.out());
    }

    @Test
    void explainListsTheFieldsTheConditionReads() {
        Cli.Result r = Cli.runWithInput(SECTIONS, "eval", "--action", "withdrawal.create", "--payload", "-", "--explain",
                "withdrawal.value_usd > 10000 && principal.role == 'signer' && !has(principal.user_email) "
                        + "&& 'withdrawal.amount' != ''");
        assertEquals(List.of("true", "fields:", "  withdrawal.value_usd = 12000.0", "  principal.role = \"signer\"",
                "  principal.user_email = (absent)"), r.outLines(), r.toString());
    }

    @Test
    void atSetsTheContextFields() {
        Cli.Result r = Cli.run("eval", "--action", "withdrawal.create", "--at", "2026-11-07T23:30:00Z",
                "context.day_of_week == 'Saturday' && context.hour == 23");
        assertEquals("true\n", r.out(), r.toString());
        Cli.Result now = Cli.run("eval", "--action", "withdrawal.create", "context.hour == 14");
        assertEquals("true\n", now.out(), "without --at, the environment's clock: " + Cli.NOW);
    }

    @Test
    void anInvalidConditionIsRenderedLikeValidate() {
        Cli.Result r = Cli.run("eval", "--action", "withdrawal.create", "withdrawal.amout > 1");
        assertEquals(ExitCode.INPUT, r.exit());
        assertEquals("error[unknown_field] 1:12: unknown field `withdrawal.amout`", r.outLines().get(0));
        assertEquals("invalid: 1 error", r.outLines().get(4));
    }

    @Test
    void warningsGoToStandardError() {
        Cli.Result r = Cli.runWithInput("{\"principal\": {\"user_email\": \"a@example.com\", \"role\": \"admin\"}}", "eval",
                "--action", "withdrawal.create", "--payload", "-", "principal.user_email.endsWith('@example.com')");
        assertEquals("true\n", r.out());
        assertEquals("warning[unguarded_optional_read] 1:11: `principal.user_email` is optional and read without a "
                + "`has()` guard", r.errLines().get(0));
    }

    @Test
    void aMalformedPayloadIsAnInputError() {
        Cli.Result negative = Cli.runWithInput("{\"withdrawal\": {\"value_usd\": -5}}", "eval", "--action",
                "withdrawal.create", "--payload", "-", "true");
        assertEquals(ExitCode.INPUT, negative.exit());
        assertEquals("error: malformed payload: field `withdrawal.value_usd` must not be negative, got -5\n",
                negative.err());
        Cli.Result json = Cli.runWithInput("{\"withdrawal\": ", "eval", "--action", "withdrawal.create", "--payload", "-",
                "true");
        assertEquals(ExitCode.INPUT, json.exit());
        assertEquals("error: payload is not valid JSON: unexpected end-of-input within/between Object entries "
                + "(line 1, column 16)\n", json.err());
        Cli.Result unknown = Cli.runWithInput("{\"withdrawl\": {}}", "eval", "--action", "withdrawal.create",
                "--payload", "-", "true");
        assertEquals("error: payload: unknown property `withdrawl` (did you mean `withdrawal`?)\n", unknown.err());
    }

    @Test
    void jsonHasTheResultTheErrorAndTheFields() {
        Cli.Result r = Cli.runWithInput(SECTIONS, "eval", "--action", "withdrawal.create", "--payload", "-",
                "--format", "json", "--explain", "withdrawal.value_usd > 1 && withdrawal.amount > 1");
        assertEquals("{\"result\":null,\"error\":\"`withdrawal.amount` is absent from the payload (at 1:40)\","
                + "\"diagnostics\":[],\"fields\":{\"withdrawal.value_usd\":12000.0,\"withdrawal.amount\":null}}\n",
                r.out());
        Cli.Result ok = Cli.run("eval", "--action", "withdrawal.create", "--format", "json", "1 < 2");
        assertEquals("{\"result\":true,\"error\":null,\"diagnostics\":[]}\n", ok.out());
    }

    @Test
    void theConditionAndThePayloadCannotBothComeFromStandardInput() {
        Cli.Result r = Cli.run("eval", "--action", "withdrawal.create", "--payload", "-", "-");
        assertEquals(ExitCode.USAGE, r.exit());
        assertEquals("error: the condition and `--payload` cannot both read standard input\n", r.err());
    }

    @Test
    void aMissingPayloadFileIsAnIoError() {
        Cli.Result r = Cli.run("eval", "--action", "withdrawal.create", "--payload", dir.resolve("no.json").toString(),
                "true");
        assertEquals(ExitCode.IO, r.exit());
        assertEquals("error: `" + dir.resolve("no.json") + "` does not exist\n", r.err());
    }

    @Test
    void stringLiteralsAreNotFieldReads() {
        assertEquals("a == " + " ".repeat(19) + " && " + " ".repeat(5) + " != b",
                EvalCommand.withoutStrings("a == 'withdrawal.amount' && \"x.y\" != b"));
        assertEquals("x + " + " ".repeat(11) + " + y", EvalCommand.withoutStrings("x + '''a ' b''' + y"));
        assertEquals("x == " + " ".repeat(6), EvalCommand.withoutStrings("x == 'a\\'b'"));
    }
}

package dev.custody.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bad-input corpus (issue "Hardening", item 7): every kind of broken input a user can hand the CLI, each run
 * in-process and pinned to its exit code, its {@code error:} line on stderr and, for streams, the number of
 * records on stdout. Whatever the input, the contract of docs/design.md §5 holds: one error line (lowercase,
 * user input in backticks), never a stack trace or an exception class name, and never a lost record.
 *
 * <p>The corpus is data: {@link #CORPUS} is a table of {@link Case}s, each the files to create (bytes, directories,
 * symlinks, permissions), the arguments, standard input, and what must come out. {@code {dir}} in arguments and
 * expectations stands for the case's temporary directory.
 *
 * <p>Checks on every case: the exit code; no {@code \tat } line and no {@code Exception} anywhere in the output;
 * the lines of stderr that start with {@code error: } are exactly the expected one (none when {@code err} is
 * null); for exits 2 and 3 that line is all of stderr; the stdout line count when {@code records} is given.
 */
class BadInputCorpusTest {

    private static final String WALLET = Fixtures.WALLET;
    private static final String LIMITS = Fixtures.LIMITS_YAML;
    private static final String A1 = Fixtures.withdrawal("a-1", 20000, false);
    private static final String A2 = Fixtures.withdrawal("a-2", 500, true);
    private static final String GROUP = Fixtures.GROUP;

    /**
     * Whether this process can read a file whose permissions are 000: true as root (and with CAP_DAC_OVERRIDE),
     * where chmod does not block reading. The unreadable-file cases then pin what happens instead: the file is
     * read like any other.
     */
    static final boolean CHMOD_BYPASSED = chmodBypassed();

    // ----------------------------------------------------------------------------------------------------------

    /** One kind of bad input. */
    record Case(String name, Map<String, Object> files, List<String> args, Supplier<InputStream> stdin,
            int exit, String err, Integer records, String outContains) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A directory to create. */
    record Dir() {}

    /** A symbolic link to create, pointing at {@code target} (relative to the link's directory, or absolute). */
    record Link(String target) {}

    /** A file whose permissions are 000 after it is written. */
    record Unreadable(byte[] bytes) {}

    /** Builds a {@link Case}; {@code {dir}} in arguments stands for the case's temporary directory. */
    static final class B {
        private final String name;
        private final Map<String, Object> files = new LinkedHashMap<>();
        private List<String> args = List.of();
        private Supplier<InputStream> stdin = () -> new ByteArrayInputStream(new byte[0]);

        B(String name) {
            this.name = name;
        }

        B file(String path, String text) {
            files.put(path, text.getBytes(StandardCharsets.UTF_8));
            return this;
        }

        B file(String path, byte[] bytes) {
            files.put(path, bytes);
            return this;
        }

        B dir(String path) {
            files.put(path, new Dir());
            return this;
        }

        B link(String path, String target) {
            files.put(path, new Link(target));
            return this;
        }

        B unreadable(String path, String text) {
            files.put(path, new Unreadable(text.getBytes(StandardCharsets.UTF_8)));
            return this;
        }

        B args(String... a) {
            args = List.of(a);
            return this;
        }

        B stdin(byte[] bytes) {
            stdin = () -> new ByteArrayInputStream(bytes);
            return this;
        }

        B stdin(Supplier<InputStream> s) {
            stdin = s;
            return this;
        }

        /** Expects exit {@code exit} and exactly this {@code error:} line (a trailing {@code *} makes it a prefix). */
        Case expect(int exit, String err) {
            return new Case(name, files, args, stdin, exit, err, null, null);
        }

        /** As {@link #expect(int, String)}, with the number of stdout lines (records) and text stdout must contain. */
        Case expect(int exit, String err, Integer records, String outContains) {
            return new Case(name, files, args, stdin, exit, err, records, outContains);
        }
    }

    static B c(String name) {
        return new B(name);
    }

    // ---------------------------------------------------------------------------------------------------- bytes

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static final byte[] UTF8_BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    static final byte[] UTF16LE_BOM = {(byte) 0xFF, (byte) 0xFE};

    static byte[] utf16le(String s) {
        return s.getBytes(StandardCharsets.UTF_16LE);
    }

    static byte[] utf16be(String s) {
        return s.getBytes(StandardCharsets.UTF_16BE);
    }

    static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A valid UTF-8 text with one invalid sequence ({@code C3 28}: a lead byte without its continuation). */
    static byte[] invalidUtf8(String before, String after) {
        return concat(utf8(before), new byte[] {(byte) 0xC3, (byte) 0x28}, utf8(after));
    }

    /** Policy with one rule whose condition is given as YAML text. */
    static String policyWithCondition(String conditionYaml) {
        return "id: p\nname: P\napproval_group_id: " + GROUP + "\nrules:\n"
                + "  - rule_id: r\n    trigger_action: withdrawal.create\n    effect: DENY\n"
                + "    description: d\n    condition: " + conditionYaml + "\n";
    }

    /** A withdrawal line with {@code fields} replacing the withdrawal section's {@code value_usd}. */
    static String withdrawalWith(String id, String withdrawalFields) {
        return "{\"id\": \"" + id + "\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + WALLET + "\", "
                + "\"at\": \"2026-11-03T14:05:00Z\", \"withdrawal\": {" + withdrawalFields + "}}";
    }

    static String lines(String... l) {
        return String.join("\n", l) + "\n";
    }

    /** {@code replay --policies {dir}/p.yaml --actions ACTIONS --format jsonl --time-budget 1m} plus more. */
    static String[] replayArgs(String actions, String... more) {
        List<String> a = new ArrayList<>(List.of("replay", "--policies", "{dir}/p.yaml", "--actions", actions,
                "--format", "jsonl", "--time-budget", "1m"));
        a.addAll(List.of(more));
        return a.toArray(new String[0]);
    }

    static String[] diffArgs(String actions, String... more) {
        List<String> a = new ArrayList<>(List.of("diff", "--base", "{dir}/p.yaml", "--head", "{dir}/p.yaml",
                "--actions", actions, "--format", "jsonl", "--time-budget", "1m"));
        a.addAll(List.of(more));
        return a.toArray(new String[0]);
    }

    static String[] benchArgs(String actions, String... more) {
        List<String> a = new ArrayList<>(List.of("bench", "--policies", "{dir}/p.yaml", "--actions", actions,
                "--warmup", "1ms", "--iterations", "1"));
        a.addAll(List.of(more));
        return a.toArray(new String[0]);
    }

    static String[] evalArgs(String payload, String... more) {
        List<String> a = new ArrayList<>(List.of("eval", "--action", "withdrawal.create", "--payload", payload));
        a.addAll(List.of(more));
        a.add("has(withdrawal.value_usd)");
        return a.toArray(new String[0]);
    }

    static final String BILLION_LAUGHS = """
            a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
            b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
            c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
            d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
            e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
            f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
            g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
            h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
            i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
            """;

    static final String TEST_FILE = """
            policies: [p.yaml]
            cases:
              - name: small
                action: {action: withdrawal.create, wallet_id: %s, withdrawal: {value_usd: 5}}
                expect: {decision: NO_MATCH}
            """.formatted(WALLET);

    /** Standard input that was closed ({@code <&-}): every read fails. */
    static InputStream closedStdin() {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("Bad file descriptor");
            }
        };
    }

    // --------------------------------------------------------------------------------------------------- corpus

    static final List<Case> CORPUS = List.of(
            // ---- encodings: policy files (lint reads them; replay loads them)
            c("policy utf-16le with bom").file("p.yaml", concat(UTF16LE_BOM, utf16le(LIMITS)))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "{dir}/p.yaml: error[parse_error] file is not UTF-8 text"),
            c("policy utf-16be without bom").file("p.yaml", utf16be(LIMITS))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null,
                            "{dir}/p.yaml: error[parse_error] malformed YAML: special characters are not allowed"),
            c("policy latin-1 bytes").file("p.yaml", latin1(LIMITS.replace("Limits", "Limités")))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "file is not UTF-8 text"),
            c("policy invalid utf-8 sequence, replay").file("p.yaml", invalidUtf8(LIMITS, "# end\n"))
                    .file("a.jsonl", lines(A1))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(1, "error: the policies could not be loaded; every action is denied (fail_closed):", 1,
                            "\"failure\":\"load\""),
            c("policy latin-1 bytes, diff").file("p.yaml", LIMITS).file("q.yaml", latin1(LIMITS.replace("Limits", "Limités")))
                    .file("a.jsonl", lines(A1, A2))
                    .args("diff", "--base", "{dir}/p.yaml", "--head", "{dir}/q.yaml", "--actions", "{dir}/a.jsonl",
                            "--format", "jsonl", "--time-budget", "1m")
                    .expect(1, "error: the head policies could not be loaded; every action is denied (fail_closed):", 2,
                            "\"head\":{\"decision\":\"DENY\",\"policy_id\":null,\"rule_id\":null,\"reason\":null,"
                                    + "\"fail_closed\":true,\"failure\":\"load\""),
            c("policy utf-8 bom before the first line").file("p.yaml", concat(UTF8_BOM, utf8(LIMITS)))
                    .args("lint", "{dir}/p.yaml").expect(0, null, null, "1 file, 1 policy, 2 rules: 0 errors, 0 warnings"),
            c("policy nul byte").file("p.yaml", LIMITS.replace("name: Limits", "name: Lim\0its"))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "malformed YAML: special characters are not allowed"),
            // ---- structure of policy files
            c("policy json nested 10000 deep").file("p.json", "[".repeat(10_000) + "]".repeat(10_000))
                    .args("lint", "{dir}/p.json").expect(1, null, null, "error[parse_error] JSON nests deeper than 64 levels"),
            c("policy json number of 1201 digits").file("p.json", "{\"name\": \"P\", \"version\": 1." + "0".repeat(1200) + "}")
                    .args("lint", "{dir}/p.json")
                    .expect(1, null, null, "error[parse_error] malformed JSON: a number longer than 1000 digits"),
            c("policy yaml nested 10000 deep").file("p.yaml", "a: " + "[".repeat(10_000) + "]".repeat(10_000) + "\n")
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "error[parse_error] malformed YAML: Nesting Depth exceeded max 64"),
            c("policy version 1e400").file("p.yaml", LIMITS + "version: 1e400\n")
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "15:10: error[invalid_type] `version` must be a whole number"),
            c("policy version 2^64").file("p.yaml", LIMITS + "version: 18446744073709551616\n")
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "15:10: error[invalid_type] `version` must be a whole number"),
            c("policy version -0").file("p.json", "{\"name\": \"P\", \"approval_group_id\": \"" + GROUP
                            + "\", \"version\": -0, \"rules\": []}")
                    .args("lint", "{dir}/p.json").expect(1, null, null, "1:87: error[invalid_type] version must be 1 or more, got 0"),
            c("policy duplicate key json").file("p.json", "{\"name\": \"P\", \"name\": \"Q\", \"approval_group_id\": \""
                            + GROUP + "\", \"rules\": []}")
                    .args("lint", "{dir}/p.json").expect(1, null, null, "1:21: error[parse_error] malformed JSON: duplicate field `name`"),
            c("policy duplicate key yaml").file("p.yaml", LIMITS.replace("    effect: DENY\n",
                            "    effect: DENY\n    effect: ALLOW\n"))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "8:5: error[parse_error] malformed YAML: duplicate key `effect`"),
            c("policy string for a boolean").file("p.yaml", LIMITS.replace("    effect: DENY\n",
                            "    effect: DENY\n    is_enabled: \"no\"\n"))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "8:17: error[invalid_type] `is_enabled` must be true or false, not the string `no`"),
            c("policy array for the rules object").file("p.json", "{\"name\": \"P\", \"approval_group_id\": \""
                            + GROUP + "\", \"rules\": [[]]}")
                    .args("lint", "{dir}/p.json").expect(1, null, null, "1:86: error[invalid_type] a rule must be an object, not an array"),
            c("policy null for a required field").file("p.yaml", LIMITS.replace("name: Limits", "name: null"))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "2:7: error[missing_field] `name` is required"),
            c("policy file empty").file("p.yaml", "")
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "{dir}/p.yaml:1:1: error[parse_error] file is empty"),
            c("policy file whitespace only").file("p.json", "  \n\t\n")
                    .args("lint", "{dir}/p.json").expect(1, null, null, "{dir}/p.json:1:1: error[parse_error] file is empty"),
            c("policy json array of non-objects").file("p.json", "[1, \"two\", null]")
                    .args("lint", "{dir}/p.json").expect(1, null, null, "1:12: error[invalid_type] a policy must be an object, not null"),
            c("policy yaml with two documents").file("p.yaml", LIMITS + "---\n" + LIMITS)
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "15:1: error[parse_error] malformed YAML: but found another document"),
            c("policy yaml billion laughs").file("p.yaml", BILLION_LAUGHS)
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "malformed YAML: Number of aliases for non-scalar nodes exceeds the specified max=20"),
            c("policy condition of 1 MB").file("p.yaml", policyWithCondition(
                            "'" + "withdrawal.value_usd > 1 || ".repeat(40_000) + "false'"))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "9:4017: error[too_long] condition is 1120005 characters long; the limit is 4000"),
            c("policy condition that is not a string").file("p.yaml", policyWithCondition("42"))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "9:16: error[invalid_type] `condition` must be a string, not a number"),
            c("policy condition that is a list").file("p.yaml", policyWithCondition("[a, b]"))
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "9:16: error[invalid_type] `condition` must be a string, not an array"),
            c("policy unknown top-level property").file("p.yaml", LIMITS + "is_enable: false\n")
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "15:1: error[unknown_property] unknown property `is_enable`"),
            c("policy crlf line endings").file("p.yaml", LIMITS.replace("\n", "\r\n"))
                    .args("lint", "{dir}/p.yaml").expect(0, null, null, "1 file, 1 policy, 2 rules: 0 errors, 0 warnings"),
            c("policy file of 11 MB").file("p.yaml", LIMITS + "#" + "x".repeat(11 * 1024 * 1024) + "\n")
                    .args("lint", "{dir}/p.yaml").expect(1, null, null, "{dir}/p.yaml: error[parse_error] file is larger than 10 MiB"),
            // ---- policy paths
            c("policy file missing").args("lint", "{dir}/nope.yaml")
                    .expect(3, "error: `{dir}/nope.yaml` does not exist"),
            c("policies directory with a symlink loop").file("pol/p.yaml", LIMITS).link("pol/loop", ".")
                    .file("a.jsonl", lines(A1))
                    .args("replay", "--policies", "{dir}/pol", "--actions", "{dir}/a.jsonl", "--format", "jsonl", "--time-budget", "1m")
                    .expect(0, null, 1, "\"policy_id\":\"limits\""),
            c("policies directory with a dangling symlink").file("pol/p.yaml", LIMITS).link("pol/gone.yaml", "nowhere.yaml")
                    .args("lint", "{dir}/pol").expect(0, null, null, "1 file, 1 policy, 2 rules: 0 errors, 0 warnings"),
            c("policy file is a dangling symlink").link("p.yaml", "nowhere.yaml")
                    .args("lint", "{dir}/p.yaml").expect(3, "error: `{dir}/p.yaml` does not exist"),
            c("policy file is a symlink loop").link("p.yaml", "q.yaml").link("q.yaml", "p.yaml")
                    .args("lint", "{dir}/p.yaml").expect(3, "error: `{dir}/p.yaml` does not exist"),
            c("policy file unreadable").unreadable("p.yaml", LIMITS)
                    .args("lint", "{dir}/p.yaml")
                    .expect(CHMOD_BYPASSED ? 0 : 3,
                            CHMOD_BYPASSED ? null : "error: cannot read `{dir}/p.yaml`: permission denied"),
            c("replay --policies missing").file("a.jsonl", lines(A1))
                    .args("replay", "--policies", "{dir}/nope", "--actions", "{dir}/a.jsonl", "--format", "jsonl")
                    .expect(3, "error: `{dir}/nope` does not exist", 0, null),
            c("test file policy path not utf-8").file("p.yaml", latin1(LIMITS.replace("Limits", "Limités")))
                    .file("t.test.yaml", TEST_FILE)
                    .args("test", "{dir}/t.test.yaml")
                    .expect(1, null, null, "ERROR {dir}/p.yaml: error: policy file: file is not UTF-8 text"),
            c("policies directory without policy files").dir("pol")
                    .args("lint", "{dir}/pol").expect(1, "error: no policy files (.json, .yaml, .yml) under `{dir}/pol`"),
            // ---- action streams: encodings
            c("stream utf-16le with bom").file("p.yaml", LIMITS).file("a.jsonl", concat(UTF16LE_BOM, utf16le(lines(A1, A2))))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(1, null, 3, "{\"id\":null,\"action\":null,\"decision\":\"DENY\",\"policy_id\":null,\"rule_id\":null,"
                            + "\"reason\":null,\"fail_closed\":true,\"failure\":\"malformed_action\",\"error\":\"malformed action "
                            + "line: malformed JSON at column 2: illegal character ((CTRL-CHAR, code 0))"),
            c("stream utf-16be without bom").file("p.yaml", LIMITS).file("a.jsonl", utf16be(lines(A1, A2)))
                    .args(replayArgs("{dir}/a.jsonl")).expect(1, null, 2, "\"line\":2,\"column\":2}"),
            c("stream latin-1 bytes in a string").file("p.yaml", LIMITS)
                    .file("a.jsonl", latin1(lines(A1.replace("\"a-1\"", "\"a-é\""), A2)))
                    .args(replayArgs("{dir}/a.jsonl")).expect(1, null, 2, "\"error\":\"malformed action line: malformed JSON at "
                            + "column 11: illegal unquoted character ((CTRL-CHAR, code 0))"),
            c("stream invalid utf-8 sequence").file("p.yaml", LIMITS)
                    .file("a.jsonl", concat(invalidUtf8(A1.substring(0, A1.indexOf("a-1") + 2), A1.substring(A1.indexOf("a-1") + 3)),
                            utf8("\n" + A2 + "\n")))
                    .args(replayArgs("{dir}/a.jsonl")).expect(1, null, 2, "\"line\":1,\"column\":11}"),
            c("stream invalid utf-8, bench skips the line").file("p.yaml", LIMITS)
                    .file("a.jsonl", concat(invalidUtf8("", A1), utf8("\n")))
                    .args(benchArgs("{dir}/a.jsonl")).expect(1, "error: no actions to decide in `{dir}/a.jsonl`", 0, null),
            c("stream utf-8 bom before the first line").file("p.yaml", LIMITS)
                    .file("a.jsonl", concat(UTF8_BOM, utf8(lines(A1, A2))))
                    .args(replayArgs("{dir}/a.jsonl")).expect(0, null, 2, null),
            c("stream nul byte inside a line").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines(A1.replace("\"a-1\", ", "\"a-1\",\0 "), A2))
                    .args(replayArgs("{dir}/a.jsonl")).expect(1, null, 2, "\"line\":1,\"column\":15}"),
            c("stream nul byte inside a string").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines(A1.replace("\"a-1\"", "\"a-\0\""), A2))
                    .args(replayArgs("{dir}/a.jsonl")).expect(1, null, 2, "\"line\":1,\"column\":11}"),
            // ---- action streams: content
            c("stream line nested 10000 deep").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines("{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}", A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(1, null, 2, "malformed action line: malformed JSON: nested deeper than 64 levels"),
            c("stream value_usd of 1205 digits").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines(withdrawalWith("h", "\"value_usd\": 1408." + "0".repeat(1200)), A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(1, null, 2, "malformed action line: malformed JSON: a number longer than 1000 digits"),
            c("stream member name of 60000 characters").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines(withdrawalWith("h", "\"" + "k".repeat(60_000) + "\": 1"), A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(1, null, 2, "malformed action line: malformed JSON: a member name longer than 50000 characters"),
            c("stream value_usd 1e400").file("p.yaml", LIMITS).file("a.jsonl", lines(withdrawalWith("h", "\"value_usd\": 1e400"), A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(0, null, 2, "malformed action: field `withdrawal.value_usd` must be a finite number"),
            c("stream integer 2^64").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines(A1.replace("}}", "}, \"wallet\": {\"withdrawal_count_1h\": 18446744073709551616}}"), A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(0, null, 2, "\"error\":\"malformed action: field `wallet.withdrawal_count_1h` is out of the integer range\""),
            c("stream value_usd -0").file("p.yaml", LIMITS).file("a.jsonl", lines(withdrawalWith("h", "\"value_usd\": -0, \"is_whitelisted\": false"), A2))
                    .args(replayArgs("{dir}/a.jsonl")).expect(0, null, 2, "{\"id\":\"h\",\"action\":\"withdrawal.create\",\"decision\":\"NO_MATCH\""),
            c("stream duplicate key").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines(A1.replace("\"id\": \"a-1\",", "\"id\": \"a-1\", \"id\": \"a-9\","), A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(1, null, 2, "malformed action line: malformed JSON at column 19: duplicate field `id`"),
            c("stream string for a number").file("p.yaml", LIMITS).file("a.jsonl", lines(withdrawalWith("h", "\"value_usd\": \"lots\""), A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(0, null, 2, "malformed action: field `withdrawal.value_usd` must be a number, not a string"),
            c("stream array for a section").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines("{\"id\": \"h\", \"action\": \"withdrawal.create\", \"wallet_id\": \"" + WALLET
                            + "\", \"withdrawal\": []}", A2))
                    .args(replayArgs("{dir}/a.jsonl")).expect(1, null, 2, "malformed action line: section `withdrawal` must be an object"),
            c("stream null wallet_id").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines("{\"id\": \"h\", \"action\": \"withdrawal.create\", \"wallet_id\": null}", A2))
                    .args(replayArgs("{dir}/a.jsonl")).expect(0, null, 2, "malformed action: `wallet_id` is missing"),
            c("stream empty").file("p.yaml", LIMITS).file("a.jsonl", "")
                    .args(replayArgs("{dir}/a.jsonl")).expect(0, null, 0, null),
            c("stream whitespace only").file("p.yaml", LIMITS).file("a.jsonl", "  \t ")
                    .args(replayArgs("{dir}/a.jsonl")).expect(0, null, 0, null),
            c("stream only blank lines").file("p.yaml", LIMITS).file("a.jsonl", "\n\n\r\n  \n")
                    .args(replayArgs("{dir}/a.jsonl")).expect(0, null, 0, null),
            c("stream lines null, [] and 42").file("p.yaml", LIMITS).file("a.jsonl", lines("null", "[]", "42", A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(1, null, 4, "malformed action line: an action must be a JSON object\",\"bundle_revision\":null,\"elapsed_us\":0,\"line\":3}"),
            c("stream truncated last line without newline").file("p.yaml", LIMITS)
                    .file("a.jsonl", A1 + "\n" + A2.substring(0, 40))
                    .args(replayArgs("{dir}/a.jsonl")).expect(1, null, 2, "malformed JSON at column 41: unexpected end-of-input"),
            c("stream complete last line without newline").file("p.yaml", LIMITS).file("a.jsonl", A1 + "\n" + A2)
                    .args(replayArgs("{dir}/a.jsonl")).expect(0, null, 2, null),
            c("stream at year 99999").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines(A1.replace("2026-11-03T14:05:00Z", "+99999-01-01T00:00:00Z"), A2))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(0, null, 2, "instant `+99999-01-01T00:00:00Z` is outside the supported range 1970 to 2200"),
            c("stream at year 99999 without its sign").file("p.yaml", LIMITS)
                    .file("a.jsonl", lines(A1.replace("2026-11-03T14:05:00Z", "99999-01-01T00:00:00Z"), A2))
                    .args(replayArgs("{dir}/a.jsonl")).expect(1, null, 2, "\"line\":1"),
            c("stream crlf line endings").file("p.yaml", LIMITS).file("a.jsonl", A1 + "\r\n" + A2 + "\r\n")
                    .args(replayArgs("{dir}/a.jsonl")).expect(0, null, 2, null),
            c("stream line longer than --max-line-length").file("p.yaml", LIMITS).file("a.jsonl", lines(A1, A2))
                    .args(replayArgs("{dir}/a.jsonl", "--max-line-length", "100"))
                    .expect(1, null, 2, "malformed action line: line is 435 characters long, more than the 100 read (it was skipped)"),
            // ---- action streams: paths and stdin
            c("stream --actions is a directory").file("p.yaml", LIMITS).dir("acts")
                    .args(replayArgs("{dir}/acts")).expect(3, "error: `{dir}/acts` is a directory, not a file", 0, null),
            c("stream --actions missing").file("p.yaml", LIMITS)
                    .args(replayArgs("{dir}/nope.jsonl")).expect(3, "error: `{dir}/nope.jsonl` does not exist", 0, null),
            c("stream --actions dangling symlink").file("p.yaml", LIMITS).link("a.jsonl", "nowhere.jsonl")
                    .args(replayArgs("{dir}/a.jsonl")).expect(3, "error: `{dir}/a.jsonl` does not exist", 0, null),
            c("stream --actions unreadable").file("p.yaml", LIMITS).unreadable("a.jsonl", lines(A1))
                    .args(replayArgs("{dir}/a.jsonl"))
                    .expect(CHMOD_BYPASSED ? 0 : 3,
                            CHMOD_BYPASSED ? null : "error: cannot read `{dir}/a.jsonl`: permission denied",
                            CHMOD_BYPASSED ? 1 : 0, null),
            c("stream - with empty stdin").file("p.yaml", LIMITS)
                    .args(replayArgs("-")).expect(0, null, 0, null),
            c("stream - with closed stdin").file("p.yaml", LIMITS).stdin(BadInputCorpusTest::closedStdin)
                    .args(replayArgs("-")).expect(3, "error: cannot read standard input: bad file descriptor", 0, null),
            c("diff - with closed stdin").file("p.yaml", LIMITS).stdin(BadInputCorpusTest::closedStdin)
                    .args(diffArgs("-")).expect(3, "error: cannot read standard input: bad file descriptor", 0, null),
            c("diff stream with a malformed line").file("p.yaml", LIMITS).file("a.jsonl", lines(A1, "{", A2))
                    .args(diffArgs("{dir}/a.jsonl")).expect(1, "error: line 2: malformed action line: malformed JSON at column 2: "
                            + "unexpected end-of-input: expected close marker for Object", 0, null),
            c("diff --actions is a directory").file("p.yaml", LIMITS).dir("acts")
                    .args(diffArgs("{dir}/acts")).expect(3, "error: `{dir}/acts` is a directory, not a file", 0, null),
            c("bench stream of blank lines").file("p.yaml", LIMITS).file("a.jsonl", "\n\n")
                    .args(benchArgs("{dir}/a.jsonl")).expect(1, "error: no actions to decide in `{dir}/a.jsonl`", 0, null),
            c("bench --actions is a directory").file("p.yaml", LIMITS).dir("acts")
                    .args(benchArgs("{dir}/acts")).expect(3, "error: `{dir}/acts` is a directory, not a file", 0, null),
            // ---- option values
            c("--threads 0").file("p.yaml", LIMITS).file("a.jsonl", lines(A1))
                    .args(replayArgs("{dir}/a.jsonl", "--threads", "0"))
                    .expect(2, "error: `--threads` must be at least 1, got 0", 0, null),
            c("--max-line-length -1").file("p.yaml", LIMITS).file("a.jsonl", lines(A1))
                    .args(replayArgs("{dir}/a.jsonl", "--max-line-length", "-1"))
                    .expect(2, "error: `--max-line-length` must be at least 1, got -1", 0, null),
            c("--max-line-length not a number").file("p.yaml", LIMITS).file("a.jsonl", lines(A1))
                    .args(replayArgs("{dir}/a.jsonl", "--max-line-length", "lots"))
                    .expect(2, "error: invalid value for option `--max-line-length`: `lots` is not an int; "
                            + "see `custody replay --help`", 0, null),
            c("--time-budget 0ms").file("p.yaml", LIMITS).file("a.jsonl", lines(A1))
                    .args(replayArgs("{dir}/a.jsonl", "--time-budget", "0ms"))
                    .expect(2, "error: invalid value for option `--time-budget`: duration `0ms` must be positive; "
                            + "see `custody replay --help`", 0, null),
            c("--format xml").file("p.yaml", LIMITS).file("a.jsonl", lines(A1))
                    .args("replay", "--policies", "{dir}/p.yaml", "--actions", "{dir}/a.jsonl", "--format", "xml")
                    .expect(2, "error: invalid value for option `--format`: expected one of [text, jsonl, json] "
                            + "(case-sensitive) but was `xml`; see `custody replay --help`", 0, null),
            c("--iterations 0").file("p.yaml", LIMITS).file("a.jsonl", lines(A1))
                    .args("bench", "--policies", "{dir}/p.yaml", "--actions", "{dir}/a.jsonl", "--iterations", "0")
                    .expect(2, "error: `--iterations` must be at least 1, got 0", 0, null),
            c("--now not an instant").file("p.yaml", LIMITS).file("a.jsonl", lines(A1))
                    .args(replayArgs("{dir}/a.jsonl", "--now", "yesterday"))
                    .expect(2, "error: invalid value for option `--now`: `yesterday` is not an ISO-8601 instant such as "
                            + "`2026-11-02T14:05:00Z`; see `custody replay --help`", 0, null),
            // ---- eval payloads and conditions
            c("eval --payload is a directory").dir("pay").args(evalArgs("{dir}/pay"))
                    .expect(3, "error: `{dir}/pay` is a directory, not a file"),
            c("eval --payload empty").file("pay.json", "").args(evalArgs("{dir}/pay.json"))
                    .expect(1, "error: payload is empty; give a JSON object such as `{\"withdrawal\": {...}}`"),
            c("eval --payload whitespace only").file("pay.json", " \n ").args(evalArgs("{dir}/pay.json"))
                    .expect(1, "error: payload is empty; give a JSON object such as `{\"withdrawal\": {...}}`"),
            c("eval --payload - with empty stdin").args(evalArgs("-"))
                    .expect(1, "error: payload is empty; give a JSON object such as `{\"withdrawal\": {...}}`"),
            c("eval --payload latin-1").file("pay.json", latin1("{\"withdrawal\": {\"asset_symbol\": \"é\"}}"))
                    .args(evalArgs("{dir}/pay.json")).expect(1, "error: `{dir}/pay.json` is not UTF-8 text"),
            c("eval --payload utf-16").file("pay.json", concat(UTF16LE_BOM, utf16le("{}")))
                    .args(evalArgs("{dir}/pay.json")).expect(1, "error: `{dir}/pay.json` is not UTF-8 text"),
            c("eval --payload null").file("pay.json", "null").args(evalArgs("{dir}/pay.json"))
                    .expect(1, "error: payload must be a JSON object"),
            c("eval --payload array").file("pay.json", "[]").args(evalArgs("{dir}/pay.json"))
                    .expect(1, "error: payload must be a JSON object"),
            c("eval --payload duplicate key").file("pay.json", "{\"withdrawal\": {}, \"withdrawal\": {}}")
                    .args(evalArgs("{dir}/pay.json"))
                    .expect(1, "error: payload is not valid JSON: duplicate field `withdrawal` (line 1, column 32)"),
            c("eval --payload nested 10000 deep").file("pay.json", "{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}")
                    .args(evalArgs("{dir}/pay.json")).expect(1, "error: payload is not valid JSON: nested deeper than 64 levels"),
            c("eval --payload number of 1205 digits").file("pay.json", "{\"withdrawal\": {\"value_usd\": 1408."
                            + "0".repeat(1200) + "}}")
                    .args(evalArgs("{dir}/pay.json"))
                    .expect(1, "error: payload is not valid JSON: a number longer than 1000 digits"),
            c("eval --payload 1e400").file("pay.json", "{\"withdrawal\": {\"value_usd\": 1e400}}")
                    .args(evalArgs("{dir}/pay.json"))
                    .expect(1, "error: malformed payload: field `withdrawal.value_usd` must be a finite number"),
            c("eval --payload trailing content").file("pay.json", "{} {}")
                    .args(evalArgs("{dir}/pay.json"))
                    .expect(1, "error: payload is not valid JSON: unexpected content after the JSON value (line 1, column 4)"),
            c("eval --payload missing").args(evalArgs("{dir}/pay.json"))
                    .expect(3, "error: `{dir}/pay.json` does not exist"),
            c("eval --payload - with closed stdin").stdin(BadInputCorpusTest::closedStdin)
                    .args(evalArgs("-")).expect(3, "error: cannot read standard input: bad file descriptor"),
            c("validate condition - with closed stdin").stdin(BadInputCorpusTest::closedStdin)
                    .args("validate", "--action", "withdrawal.create", "--effect", "DENY", "-")
                    .expect(3, "error: cannot read standard input: bad file descriptor"),
            c("validate condition - with empty stdin")
                    .args("validate", "--action", "withdrawal.create", "--effect", "DENY", "-").expect(1, null, null, "error[empty_condition] 1:1: condition is empty"),
            c("validate condition - with invalid utf-8").stdin(invalidUtf8("withdrawal.value_usd > ", "1"))
                    .args("validate", "--action", "withdrawal.create", "--effect", "DENY", "-")
                    .expect(1, "error: standard input is not UTF-8 text"),
            c("validate condition of 1 MB")
                    .args("validate", "--action", "withdrawal.create", "--effect", "DENY",
                            "withdrawal.value_usd > 1 || ".repeat(40_000) + "false").expect(1, null, null, "error[too_long] 1:4001: condition is 1120005 characters long; the limit is 4000"),
            // ---- policy test files
            c("test file empty").file("t.test.yaml", "").args("test", "{dir}/t.test.yaml").expect(1, null, null, "ERROR {dir}/t.test.yaml:1:1: error: file is empty"),
            c("test file whitespace only").file("t.test.yaml", "\n   \n").args("test", "{dir}/t.test.yaml").expect(1, null, null, "ERROR {dir}/t.test.yaml:1:1: error: file is empty"),
            c("test file utf-16").file("p.yaml", LIMITS).file("t.test.yaml", concat(UTF16LE_BOM, utf16le(TEST_FILE)))
                    .args("test", "{dir}/t.test.yaml").expect(1, "error: `{dir}/t.test.yaml` is not UTF-8 text"),
            c("test file yaml billion laughs").file("t.test.yaml", BILLION_LAUGHS)
                    .args("test", "{dir}/t.test.yaml").expect(1, null, null, "error: malformed YAML: Number of aliases for non-scalar nodes exceeds the specified max=20"),
            c("test file two yaml documents").file("p.yaml", LIMITS).file("t.test.yaml", TEST_FILE + "---\n" + TEST_FILE)
                    .args("test", "{dir}/t.test.yaml").expect(1, null, null, "ERROR {dir}/t.test.yaml:6:1: error: malformed YAML: but found another document"),
            c("test file path is a directory").dir("t.test.yaml")
                    .args("test", "{dir}/t.test.yaml").expect(1, "error: no policy test files*"),
            c("test file missing").args("test", "{dir}/t.test.yaml").expect(3, "error: `{dir}/t.test.yaml` does not exist"),
            c("test file policy path is a directory without policies").dir("pol")
                    .file("t.test.yaml", TEST_FILE.replace("[p.yaml]", "[pol]"))
                    .args("test", "{dir}/t.test.yaml").expect(1, null, null, "ERROR {dir}/t.test.yaml:1:12: error: no policy files under `pol`")
    );

    static Stream<Case> corpus() {
        return CORPUS.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void badInput(Case c, @TempDir Path dir) throws IOException {
        create(dir, c.files());
        String[] args = c.args().stream().map(a -> a.replace("{dir}", dir.toString())).toArray(String[]::new);
        Cli.Result r = Cli.runWithStdin(c.stdin().get(), args);
        String out = r.out().replace(dir.toString(), "{dir}");
        String err = r.err().replace(dir.toString(), "{dir}");
        String shown = "exit " + r.exit() + "\n--- stdout\n" + abbreviate(out) + "--- stderr\n" + abbreviate(err);
        if (Boolean.getBoolean("corpus.print")) {
            System.out.println("=== " + c.name() + "\n" + shown);
            return;
        }
        assertEquals(c.exit(), r.exit(), shown);
        for (String stream : List.of(out, err)) {
            assertFalse(stream.contains("\tat "), "no stack trace: " + shown);
            assertFalse(stream.contains("Exception"), "no exception class name: " + shown);
        }
        List<String> errorLines = err.lines().filter(l -> l.startsWith("error: ")).toList();
        if (c.err() == null) {
            assertEquals(List.of(), errorLines, shown);
        } else {
            assertEquals(1, errorLines.size(), "one error line: " + shown);
            String line = errorLines.get(0);
            if (c.err().endsWith("*")) {
                String prefix = c.err().substring(0, c.err().length() - 1);
                assertTrue(line.startsWith(prefix), "error line starts with `" + prefix + "`: " + shown);
            } else {
                assertEquals(c.err(), line, shown);
            }
            assertTrue(line.length() > 7 && !Character.isUpperCase(line.charAt(7)), "lowercase: " + shown);
            assertFalse(line.endsWith("."), "no final period: " + shown);
        }
        if (c.exit() == ExitCode.USAGE || c.exit() == ExitCode.IO) {
            assertEquals(1, err.lines().count(), "a usage or i/o error is one line: " + shown);
        }
        if (c.records() != null) {
            assertEquals(c.records().longValue(), out.lines().count(), "records on stdout: " + shown);
        }
        if (c.outContains() != null) {
            assertTrue(out.contains(c.outContains()), "stdout contains `" + c.outContains() + "`: " + shown);
        }
    }

    @Test
    void theCorpusCoversAtLeastFortyKindsWithDistinctNames() {
        assertTrue(CORPUS.size() >= 40, "cases: " + CORPUS.size());
        assertEquals(CORPUS.size(), CORPUS.stream().map(Case::name).distinct().count(), "distinct names");
    }

    // ------------------------------------------------------------------------------------------------- helpers

    private static void create(Path dir, Map<String, Object> files) throws IOException {
        List<Path> unreadable = new ArrayList<>();
        for (Map.Entry<String, Object> e : files.entrySet()) {
            Path p = dir.resolve(e.getKey());
            Files.createDirectories(p.getParent());
            Object v = e.getValue();
            if (v instanceof byte[] bytes) {
                Files.write(p, bytes);
            } else if (v instanceof Dir) {
                Files.createDirectories(p);
            } else if (v instanceof Link link) {
                Files.createSymbolicLink(p, Path.of(link.target()));
            } else if (v instanceof Unreadable u) {
                Files.write(p, u.bytes());
                unreadable.add(p);
            } else {
                fail("unknown file spec " + v);
            }
        }
        for (Path p : unreadable) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("---------"));
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 4000 ? s : s.substring(0, 4000) + "… (" + s.length() + " chars)\n";
    }

    private static boolean chmodBypassed() {
        try {
            Path f = Files.createTempFile("custody-chmod", ".probe");
            try {
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
                Files.readAllBytes(f);
                return true;
            } catch (IOException e) {
                return false;
            } finally {
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
                Files.delete(f);
            }
        } catch (IOException | UnsupportedOperationException e) {
            throw new UncheckedIOException(new IOException("cannot probe file permissions", e));
        }
    }
}

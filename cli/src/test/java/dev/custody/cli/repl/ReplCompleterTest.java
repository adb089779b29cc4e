package dev.custody.cli.repl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jline.reader.Candidate;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.ParsedLine;
import org.jline.reader.Parser;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Completion candidates, asked the way jline asks: the parser splits the line, the completer answers. */
class ReplCompleterTest {
    @TempDir
    Path dir;

    private Session session;
    private ReplCompleter completer;
    private Terminal terminal;
    private LineReader reader;

    @BeforeEach
    void setUp() throws IOException {
        ReplFixtures.copyFiles(dir);
        session = ReplFixtures.session(new PrintWriter(new StringWriter()), dir);
        completer = new ReplCompleter(session);
        terminal = new DumbTerminal(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream());
        reader = LineReaderBuilder.builder().terminal(terminal).build();
    }

    @AfterEach
    void tearDown() throws IOException {
        terminal.close();
    }

    /** Candidate values with the cursor at the end of {@code line}, in the order the completer gives them. */
    private List<String> complete(String line) {
        return complete(line, line.length());
    }

    private List<String> complete(String line, int cursor) {
        List<Candidate> candidates = new ArrayList<>();
        completer.complete(reader, new ReplParser().parse(line, cursor, Parser.ParseContext.COMPLETE), candidates);
        return candidates.stream().map(Candidate::value).toList();
    }

    private Set<String> completeSet(String line) {
        return new TreeSet<>(complete(line));
    }

    @Test
    void commands() {
        assertEquals(Verb.commands(), complete(":"));
        assertEquals(List.of(":set", ":show", ":schema"), complete(":s"));
        assertEquals(List.of(":policies"), complete("  :po"));
        assertEquals(List.of(), complete(":nope x"));
    }

    @Test
    void fieldsAfterASectionPrefix() {
        assertEquals(List.of("withdrawal.value_usd"), complete("withdrawal.valu"));
        assertEquals(List.of("withdrawal.amount", "withdrawal.value_usd", "withdrawal.asset_symbol",
                "withdrawal.asset_is_native", "withdrawal.destination_address", "withdrawal.network_code",
                "withdrawal.is_whitelisted", "withdrawal.address_age_sec"), complete("withdrawal."));
        assertEquals(List.of("wallet.outflow_1h", "wallet.outflow_6h", "wallet.outflow_24h"), complete("wallet.out"));
        assertEquals(List.of("context.hour"), complete("context.h"));
        assertEquals(List.of(), complete("resource.dec"), "a section of the other action");
        session.execute(":action web3.contract_call");
        assertEquals(List.of("resource.decoded_args"), complete("resource.dec"));
        assertEquals(List.of(), complete("withdrawal.valu"));
    }

    @Test
    void theWordUnderTheCursorIsCompletedAnywhereInTheCondition() {
        assertEquals(List.of("principal."), complete("withdrawal.value_usd > 1 && (princ"));
        assertEquals(List.of("withdrawal.value_usd"), complete("withdrawal.valu > 1", 15));
        assertEquals(List.of("principal.role"), complete("has(principal.ro"));
    }

    @Test
    void sectionsFunctionsAndLiteralsForABareWord() {
        assertEquals(List.of("principal.", "withdrawal.", "wallet.", "workspace.", "context.", "has(", "size(", "int(",
                "uint(", "double(", "string(", "bool(", "bytes(", "dyn(", "type(", "matches(", "duration(",
                "timestamp(", "true", "false", "null"), complete(""));
        assertEquals(List.of("withdrawal.", "wallet.", "workspace."), complete("w"));
        assertEquals(List.of("has("), complete("ha"));
        assertEquals(List.of("size(", "string("), complete("s"));
        assertEquals(Set.of("true", "timestamp(", "type("), completeSet("t"));
        assertEquals(List.of("principal.", "resource.", "context.", "has(", "size(", "int(", "uint(", "double(",
                "string(", "bool(", "bytes(", "dyn(", "type(", "matches(", "duration(", "timestamp(", "true", "false",
                "null"), completeAfterSwitch(""));
    }

    private List<String> completeAfterSwitch(String line) {
        session.execute(":action web3.contract_call");
        return complete(line);
    }

    @Test
    void methodsAndMacros() {
        assertEquals(List.of("principal.role.startsWith("), complete("principal.role.st"));
        assertEquals(List.of("principal.role.contains(", "principal.role.startsWith(", "principal.role.endsWith(",
                "principal.role.matches(", "principal.role.size("), complete("principal.role."));
        assertEquals(List.of(), complete("withdrawal.value_usd."), "numbers have no methods");
        assertEquals(List.of(".exists(", ".exists_one("), complete("[1, 2].ex"));
        assertEquals(List.of("x.all(", "x.exists(", "x.exists_one(", "x.map(", "x.filter(", "x.contains(",
                "x.startsWith(", "x.endsWith(", "x.matches(", "x.size("), complete("[\"a\"].all(x, x."));
    }

    @Test
    void keysOfTheDecodedArgsOfThePayload() {
        session.execute(":action web3.contract_call");
        assertEquals(List.of("resource.decoded_args.all(", "resource.decoded_args.exists(",
                "resource.decoded_args.exists_one(", "resource.decoded_args.map(", "resource.decoded_args.filter(",
                "resource.decoded_args.size("), complete("resource.decoded_args."));
        session.execute(":set resource.decoded_args {\"to\": \"0x12\", \"value\": \"5\"}");
        assertEquals(List.of("resource.decoded_args.to"), complete("has(resource.decoded_args.t"));
        assertEquals(List.of("resource.decoded_args.to", "resource.decoded_args.value"),
                complete("resource.decoded_args.").subList(0, 2));
    }

    @Test
    void nothingInsideAStringLiteral() {
        assertEquals(List.of(), complete("principal.role == \"adm"));
        assertEquals(List.of(), complete("principal.role == 'withdrawal."));
        assertEquals(List.of("withdrawal."), complete("principal.role == 'x' && withd"));
    }

    @Test
    void setCompletesFieldsThenValues() {
        assertEquals(List.of("withdrawal.is_whitelisted"), complete(":set withdrawal.is"));
        List<String> fields = complete(":set ");
        assertEquals("principal.user_email", fields.get(0));
        assertEquals(List.of("id", "wallet_id", "workspace_id"), fields.subList(fields.size() - 3, fields.size()));
        assertEquals(22 + 3, fields.size(), "every field of withdrawal.create but context.*, and the ids");
        assertEquals(List.of("owner", "admin", "signer", "proposer", "viewer", "guest"), complete(":set principal.role "));
        assertEquals(List.of("admin"), complete(":set principal.role a"));
        assertEquals(List.of("true", "false"), complete(":set withdrawal.is_whitelisted "));
        assertEquals(List.of(), complete(":set withdrawal.value_usd "));
        assertEquals(List.of(), complete(":set principal.role admin "));
    }

    @Test
    void unsetCompletesTheFieldsThatAreSet() {
        assertEquals(List.of(), complete(":unset "));
        session.execute(":set wallet.outflow_1h 3");
        session.execute(":set principal.role admin");
        session.execute(":set id a-1");
        assertEquals(List.of("principal.role", "wallet.outflow_1h", "id"), complete(":unset "));
    }

    @Test
    void argumentsOfTheOtherCommands() {
        assertEquals(List.of("withdrawal.create", "web3.contract_call"), complete(":action "));
        assertEquals(List.of("web3.contract_call"), complete(":action we"));
        assertEquals(List.of("principal", "withdrawal", "wallet", "workspace", "context", "withdrawal.create",
                "web3.contract_call"), complete(":schema "));
        assertEquals(List.of("now"), complete(":at n"));
        assertEquals(List.of("--explain"), complete(":decide "));
        assertEquals(List.of(), complete(":decide --explain "));
        assertEquals(List.of(), complete(":show "));
    }

    @Test
    void aFailureCompletesNothing() {
        ParsedLine broken = new ParsedLine() {
            @Override
            public String word() {
                return "";
            }

            @Override
            public int wordCursor() {
                return 0;
            }

            @Override
            public int wordIndex() {
                return 0;
            }

            @Override
            public List<String> words() {
                return List.of("");
            }

            @Override
            public String line() {
                throw new IllegalStateException("line unavailable");
            }

            @Override
            public int cursor() {
                return 0;
            }
        };
        List<Candidate> candidates = new ArrayList<>();
        completer.complete(reader, broken, candidates);
        assertEquals(List.of(), candidates);
    }

    @Test
    void filePathsAfterLoadAndPolicies() throws IOException {
        assertEquals(Set.of("withdrawal.json"), completeSet(":load wi"));
        assertEquals(new TreeSet<>(ReplFixtures.FILES), completeSet(":load "));
        assertEquals(Set.of("broken.yaml", "bad-field.json"), completeSet(":policies limits.yaml b"));
        Files.createDirectories(dir.resolve("policies/prod"));
        Files.writeString(dir.resolve("policies/prod/limits.yaml"), "");
        assertEquals(Set.of("policies/"), completeSet(":policies pol"));
        assertEquals(Set.of("policies/prod/"), completeSet(":policies policies/"));
        assertEquals(Set.of("policies/prod/limits.yaml"), completeSet(":policies policies/prod/l"));
        assertEquals(Set.of(), completeSet(":load withdrawal.json "), ":load takes one file");
    }
}

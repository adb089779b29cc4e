package dev.custody.cli.lsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.custody.cli.Cli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.lsp4j.CodeAction;
import org.eclipse.lsp4j.CodeActionContext;
import org.eclipse.lsp4j.CodeActionParams;
import org.eclipse.lsp4j.CompletionItem;
import org.eclipse.lsp4j.CompletionParams;
import org.eclipse.lsp4j.Diagnostic;
import org.eclipse.lsp4j.DiagnosticSeverity;
import org.eclipse.lsp4j.DocumentSymbol;
import org.eclipse.lsp4j.DocumentSymbolParams;
import org.eclipse.lsp4j.Hover;
import org.eclipse.lsp4j.HoverParams;
import org.eclipse.lsp4j.InitializeResult;
import org.eclipse.lsp4j.Position;
import org.eclipse.lsp4j.Range;
import org.eclipse.lsp4j.TextDocumentIdentifier;
import org.eclipse.lsp4j.TextEdit;
import org.eclipse.lsp4j.jsonrpc.messages.Either;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code custody lsp} as a process, through LSP4J's client over real pipes (docs/design.md §8 "Editor
 * support"): one server for the feature tests, each on its own document. Ranges are 0-based LSP positions.
 */
class LanguageServerTest {
    static final String LIMITS = """
            # limits
            id: limits
            name: Withdrawal limits
            approval_group_id: 985976e8-9faf-4e44-a2ed-b01af2ca04cf
            rules:
              - rule_id: big
                trigger_action: withdrawal.create
                effect: DENY
                is_enable: true
                condition: withdrawal.amout > 10000
              - rule_id: mail
                trigger_action: withdrawal.create
                effect: DENNY
                condition: principal.user_email == "x@example.com"
            """;

    @TempDir
    static Path dir;

    static LspProcess lsp;
    static InitializeResult initialized;

    @BeforeAll
    static void start() throws Exception {
        lsp = LspProcess.start();
        initialized = lsp.initialize();
    }

    @AfterAll
    static void stop() throws Exception {
        lsp.shutdownAndExit();
    }

    static String uri(String name) {
        return dir.resolve(name).toUri().toString();
    }

    static Range range(int line, int from, int toLine, int to) {
        return new Range(new Position(line, from), new Position(toLine, to));
    }

    static Range range(int line, int from, int to) {
        return range(line, from, line, to);
    }

    /** A range as {@code line:character-line:character}, 0-based. */
    static String span(Range r) {
        return r.getStart().getLine() + ":" + r.getStart().getCharacter() + "-" + r.getEnd().getLine() + ":"
                + r.getEnd().getCharacter();
    }

    static String code(Diagnostic d) {
        return d.getCode().getLeft();
    }

    List<CompletionItem> complete(String uri, int line, int character) throws Exception {
        return lsp.server.getTextDocumentService()
                .completion(new CompletionParams(new TextDocumentIdentifier(uri), new Position(line, character)))
                .get(30, TimeUnit.SECONDS).getRight().getItems();
    }

    static List<String> labels(List<CompletionItem> items) {
        return items.stream().map(CompletionItem::getLabel).toList();
    }

    static CompletionItem item(List<CompletionItem> items, String label) {
        return items.stream().filter(i -> i.getLabel().equals(label)).findFirst().orElseThrow();
    }

    Hover hover(String uri, int line, int character) throws Exception {
        return lsp.server.getTextDocumentService()
                .hover(new HoverParams(new TextDocumentIdentifier(uri), new Position(line, character)))
                .get(30, TimeUnit.SECONDS);
    }

    List<CodeAction> codeActions(String uri, Range range) throws Exception {
        return lsp.server.getTextDocumentService()
                .codeAction(new CodeActionParams(new TextDocumentIdentifier(uri), range, new CodeActionContext(List.of())))
                .get(30, TimeUnit.SECONDS).stream().map(Either::getRight).toList();
    }

    @Test
    void initializeAnnouncesWhatTheServerDoes() {
        assertEquals("custody", initialized.getServerInfo().getName());
        var c = initialized.getCapabilities();
        assertEquals("Full", c.getTextDocumentSync().getLeft().name());
        assertEquals(List.of(".", ":", "\""), c.getCompletionProvider().getTriggerCharacters());
        assertEquals(Boolean.TRUE, c.getHoverProvider().getLeft());
        assertEquals(List.of("quickfix"), c.getCodeActionProvider().getRight().getCodeActionKinds());
        assertEquals(Boolean.TRUE, c.getDocumentSymbolProvider().getLeft());
    }

    @Test
    void diagnosticsAreLintsCodesMessagesAndPositionsOnTheOffendingToken() throws Exception {
        Path file = dir.resolve("limits.yaml");
        Files.writeString(file, LIMITS);
        List<Diagnostic> ds = lsp.open(file.toUri().toString(), LIMITS).getDiagnostics();

        // the same findings as `custody lint --format json` on the saved file, 1-based there, 0-based here
        JsonNode lint = new ObjectMapper().readTree(Cli.run("lint", "--format", "json", file.toString()).out());
        assertEquals(lint.get("diagnostics").size(), ds.size());
        for (int i = 0; i < ds.size(); i++) {
            JsonNode l = lint.get("diagnostics").get(i);
            Diagnostic d = ds.get(i);
            assertEquals(l.get("code").asText(), code(d));
            assertEquals(l.get("message").asText(), d.getMessage().getLeft());
            assertEquals(new Position(l.get("line").asInt() - 1, l.get("column").asInt() - 1), d.getRange().getStart());
            assertEquals(l.get("severity").asText().equals("error") ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
                    d.getSeverity());
            assertEquals("custody", d.getSource());
        }
        // each range covers the token: the key, the field name after the dot, the effect, the optional field
        assertEquals(List.of("unknown_property", "unknown_field", "invalid_effect", "unguarded_optional_read"),
                ds.stream().map(LanguageServerTest::code).toList());
        assertEquals("8:4-8:13", span(ds.get(0).getRange()));
        assertEquals("unknown property `is_enable`", ds.get(0).getMessage().getLeft());
        assertEquals("9:26-9:31", span(ds.get(1).getRange()));
        assertEquals("unknown field `withdrawal.amout`", ds.get(1).getMessage().getLeft());
        assertEquals("12:12-12:17", span(ds.get(2).getRange()));
        assertEquals("13:25-13:35", span(ds.get(3).getRange()));
        assertEquals(DiagnosticSeverity.Warning, ds.get(3).getSeverity());
    }

    @Test
    void malformedYamlMidEditIsADiagnosticAndTheServerStaysUp() throws Exception {
        String uri = uri("editing.yaml");
        assertEquals(4, lsp.open(uri, LIMITS).getDiagnostics().size());
        String broken = LIMITS.replace("effect: DENNY", "effect: [DENY");
        List<Diagnostic> ds = lsp.change(uri, 2, broken).getDiagnostics();
        assertEquals(1, ds.size(), ds.toString());
        assertEquals("parse_error", code(ds.get(0)));
        assertEquals(DiagnosticSeverity.Error, ds.get(0).getSeverity());
        // still answering: completion from the text around the cursor, then the fixed text analysed again
        assertEquals(List.of("amount", "value_usd", "asset_symbol", "asset_is_native", "destination_address",
                "network_code", "is_whitelisted", "address_age_sec"), labels(complete(uri, 9, 26)));
        List<Diagnostic> fixed = lsp.change(uri, 3, LIMITS.replace("DENNY", "DENY").replace("amout", "amount")
                .replace("is_enable", "is_enabled")).getDiagnostics();
        assertEquals(List.of("unguarded_optional_read"), fixed.stream().map(LanguageServerTest::code).toList());
    }

    @Test
    void completionAfterASectionOffersTheFieldsOfTheRulesTriggerAction() throws Exception {
        String text = """
                name: Completion
                rules:
                  - trigger_action: withdrawal.create
                    effect: DENY
                    condition: withdrawal.val > 1 && principal.
                  - trigger_action: web3.contract_call
                    effect: DENY
                    condition: resource. && withdrawal.
                """;
        String uri = uri("completion.yaml");
        lsp.open(uri, text);
        List<CompletionItem> fields = complete(uri, 4, 29);
        assertEquals(List.of("amount", "value_usd", "asset_symbol", "asset_is_native", "destination_address",
                "network_code", "is_whitelisted", "address_age_sec"), labels(fields));
        CompletionItem value = item(fields, "value_usd");
        assertEquals("number", value.getDetail());
        assertEquals("requested value in USD (never negative)", value.getDocumentation().getRight().getValue());
        assertEquals(new TextEdit(range(4, 26, 29), "value_usd"), value.getTextEdit().getLeft());

        List<CompletionItem> principal = complete(uri, 4, 47);
        assertEquals(List.of("user_email", "role"), labels(principal));
        assertEquals("string, optional", item(principal, "user_email").getDetail());
        assertEquals("string", item(principal, "role").getDetail());
        assertEquals("workspace role of the initiating user; one of `owner`, `admin`, `signer`, `proposer`, "
                + "`viewer`, `guest`", item(principal, "role").getDocumentation().getRight().getValue());
        assertEquals(new TextEdit(range(4, 47, 47), "role"), item(principal, "role").getTextEdit().getLeft());

        // a contract call rule reads `resource`, and has no `withdrawal` section
        assertEquals(List.of("network_code", "contract_address", "method_selector", "method_name", "value_wei",
                "gas_limit", "decoded_args"), labels(complete(uri, 7, 24)));
        assertEquals("map", item(complete(uri, 7, 24), "decoded_args").getDetail());
        assertEquals(List.of(), complete(uri, 7, 39));
        // at the start of a name: the sections of the action
        assertEquals(List.of("principal", "resource", "context"), labels(complete(uri, 7, 15)));
    }

    @Test
    void completionOfPropertyNamesAndValues() throws Exception {
        String text = """
                na
                rules:
                  - rule_id: a
                    eff
                  - trigger_action: withd
                    effect:\s
                """;
        String uri = uri("keys.yaml");
        lsp.open(uri, text);
        List<CompletionItem> policy = complete(uri, 0, 2);
        assertEquals(List.of("approval_group_id", "created_at", "description", "id", "name", "rules", "status",
                "updated_at", "version", "wallet_ids", "workspace_id"), labels(policy));
        assertEquals("policy property", item(policy, "name").getDetail());
        assertEquals(new TextEdit(range(0, 0, 2), "name"), item(policy, "name").getTextEdit().getLeft());

        List<CompletionItem> rule = complete(uri, 3, 7);
        assertEquals(List.of("condition", "created_at", "description", "effect", "is_enabled", "policy_id", "rule_id",
                "trigger_action", "updated_at"), labels(rule));
        assertEquals(new TextEdit(range(3, 4, 7), "effect"), item(rule, "effect").getTextEdit().getLeft());

        List<CompletionItem> actions = complete(uri, 4, 25);
        assertEquals(List.of("withdrawal.create", "web3.contract_call"), labels(actions));
        assertEquals(new TextEdit(range(4, 20, 25), "withdrawal.create"),
                item(actions, "withdrawal.create").getTextEdit().getLeft());
        assertEquals(List.of("ALLOW", "DENY"), labels(complete(uri, 5, 12)));
    }

    @Test
    void jsonKeysFieldsAndFixesFollowTheBrackets() throws Exception {
        String text = """
                [
                  {
                    "name": "Json",
                    "descripton": "x",
                    "rules": [
                      {"trigger_action": "withdrawal.create", "effect": "DENY",
                       "condition": "wallet.outflow_1h > 1 && withdrawal.amout > 2",
                       "ef
                """;
        String uri = uri("policy.json");
        List<Diagnostic> ds = lsp.open(uri, text).getDiagnostics();
        assertEquals(List.of("parse_error"), ds.stream().map(LanguageServerTest::code).toList());
        assertEquals(List.of("condition", "created_at", "description", "effect", "is_enabled", "policy_id", "rule_id",
                "trigger_action", "updated_at"), labels(complete(uri, 7, 10)));
        // a value after other members of the line: the typed part inside the quotes is replaced
        List<CompletionItem> effects = complete(uri, 5, 59);
        assertEquals(List.of("ALLOW", "DENY"), labels(effects));
        assertEquals(new TextEdit(range(5, 57, 59), "DENY"), item(effects, "DENY").getTextEdit().getLeft());
        assertEquals(List.of("outflow_1h", "outflow_6h", "outflow_24h", "withdrawal_count_1h"),
                labels(complete(uri, 6, 28)));

        String whole = text.replace("\"ef\n", "\"description\": \"x\"}]}]\n");
        ds = lsp.change(uri, 2, whole).getDiagnostics();
        assertEquals(List.of("missing_field", "unknown_property", "unknown_field"),
                ds.stream().map(LanguageServerTest::code).toList());
        assertEquals("1:2-1:3", span(ds.get(0).getRange()), "`approval_group_id` is missing from the object at its brace");
        assertEquals("3:4-3:16", span(ds.get(1).getRange()));
        List<CodeAction> fixes = codeActions(uri, range(3, 6, 6));
        assertEquals(1, fixes.size());
        assertEquals("replace `descripton` with `description`", fixes.get(0).getTitle());
        assertEquals(Map.of(uri, List.of(new TextEdit(range(3, 5, 15), "description"))),
                fixes.get(0).getEdit().getChanges());
        assertEquals(List.of("amount", "value_usd", "asset_symbol", "asset_is_native", "destination_address",
                "network_code", "is_whitelisted", "address_age_sec"), labels(complete(uri, 6, 57)));

        // symbols: ids derived as lint derives them, ranges from the opening to the closing brace
        DocumentSymbol policy = symbols(uri).get(0);
        assertEquals("Json | policy | 1:2-7:28 | 1:2-1:2", policy.getName() + " | " + policy.getDetail() + " | "
                + span(policy.getRange()) + " | " + span(policy.getSelectionRange()));
        DocumentSymbol rule = policy.getChildren().get(0);
        assertEquals("policy#0 | DENY withdrawal.create | 5:6-7:26", rule.getName() + " | " + rule.getDetail() + " | "
                + span(rule.getRange()));
    }

    List<DocumentSymbol> symbols(String uri) throws Exception {
        return lsp.server.getTextDocumentService()
                .documentSymbol(new DocumentSymbolParams(new TextDocumentIdentifier(uri)))
                .get(30, TimeUnit.SECONDS).stream().map(Either::getRight).toList();
    }

    @Test
    void hoverOnAFieldGivesItsTypeOptionalityAndMeaning() throws Exception {
        String text = """
                name: Hover
                rules:
                  - trigger_action: withdrawal.create
                    effect: DENY
                    condition: |
                      withdrawal.value_usd > 5 && principal.user_email == "a"
                      && resource.gas_limit > 1
                """;
        String uri = uri("hover.yaml");
        lsp.open(uri, text);
        Hover value = hover(uri, 5, 20);
        assertEquals("markdown", value.getContents().getRight().getKind());
        assertEquals("`withdrawal.value_usd`: number, required\n\nrequested value in USD (never negative)",
                value.getContents().getRight().getValue());
        assertEquals("5:6-5:26", span(value.getRange()));
        assertEquals(value.getContents(), hover(uri, 5, 8).getContents(), "the section name hovers the same field");

        Hover email = hover(uri, 5, 46);
        assertEquals("`principal.user_email`: string, optional: guard reads with `has(principal.user_email)`"
                + "\n\nemail of the initiating user, when available", email.getContents().getRight().getValue());
        assertEquals("5:34-5:54", span(email.getRange()));

        assertEquals("`resource.gas_limit`: integer, required\n\nnot available in `withdrawal.create` rules"
                + "\n\ngas limit from the raw transaction (never negative)",
                hover(uri, 6, 18).getContents().getRight().getValue());
        assertNull(hover(uri, 3, 13), "not in a condition");
        assertNull(hover(uri, 5, 29), "a number");
    }

    @Test
    void quickFixesReplaceTheTokenWithTheSuggestion() throws Exception {
        String uri = uri("fixes.yaml");
        lsp.open(uri, LIMITS);
        List<CodeAction> all = codeActions(uri, range(0, 0, 14, 0));
        List<String> titles = all.stream().map(CodeAction::getTitle).toList();
        assertEquals(List.of("replace `is_enable` with `is_enabled`", "replace `amout` with `amount`",
                "replace `DENNY` with `DENY`"), titles);
        for (CodeAction a : all) {
            assertEquals("quickfix", a.getKind());
            assertEquals(Boolean.TRUE, a.getIsPreferred());
            assertEquals(1, a.getDiagnostics().size());
        }
        assertEquals(Map.of(uri, List.of(new TextEdit(range(8, 4, 13), "is_enabled"))), all.get(0).getEdit().getChanges());
        assertEquals(Map.of(uri, List.of(new TextEdit(range(9, 26, 31), "amount"))), all.get(1).getEdit().getChanges());
        assertEquals("unknown_field", code(all.get(1).getDiagnostics().get(0)));
        assertEquals(Map.of(uri, List.of(new TextEdit(range(12, 12, 17), "DENY"))), all.get(2).getEdit().getChanges());
        // only the diagnostics under the requested range
        assertEquals(List.of("replace `amout` with `amount`"),
                codeActions(uri, range(9, 28, 28)).stream().map(CodeAction::getTitle).toList());
        assertEquals(List.of(), codeActions(uri, range(1, 0, 1, 3)));

        String other = uri("trigger.yaml");
        lsp.open(other, LIMITS.replace("trigger_action: withdrawal.create\n    effect: DENY\n    is_enable",
                "trigger_action: withdrawl.create\n    effect: DENY\n    is_enable"));
        CodeAction trigger = codeActions(other, range(6, 20, 20)).get(0);
        assertEquals("replace `withdrawl.create` with `withdrawal.create`", trigger.getTitle());
        assertEquals(Map.of(other, List.of(new TextEdit(range(6, 20, 36), "withdrawal.create"))),
                trigger.getEdit().getChanges());
    }

    @Test
    void documentSymbolsArePoliciesAndTheirRules() throws Exception {
        String uri = uri("symbols.yaml");
        lsp.open(uri, LIMITS);
        List<DocumentSymbol> symbols = symbols(uri);
        assertEquals(1, symbols.size());
        DocumentSymbol policy = symbols.get(0);
        assertEquals("Withdrawal limits", policy.getName());
        assertEquals("limits", policy.getDetail());
        assertEquals("Module", policy.getKind().name());
        assertEquals("1:0-13:54", span(policy.getRange()));
        assertEquals("1:4-1:10", span(policy.getSelectionRange()));
        List<String> rules = new ArrayList<>();
        for (DocumentSymbol r : policy.getChildren()) {
            rules.add(r.getName() + " | " + r.getDetail() + " | " + r.getKind() + " | " + r.getRange().getStart().getLine()
                    + ":" + r.getRange().getStart().getCharacter() + "-" + r.getRange().getEnd().getLine() + ":"
                    + r.getRange().getEnd().getCharacter() + " | " + r.getSelectionRange().getStart().getLine() + ":"
                    + r.getSelectionRange().getStart().getCharacter());
        }
        assertEquals(List.of("big | DENY withdrawal.create | Event | 5:4-9:39 | 5:13",
                "mail | DENNY withdrawal.create | Event | 10:4-13:54 | 10:13"), rules);
    }

    @Test
    void aPolicyTestFileHasTheProblemsCustodyTestReports() throws Exception {
        String text = """
                policies:
                  - name: Inline
                    rules:
                      - trigger_action: withdrawal.create
                        effect: DENY
                        condition: withdrawal.
                cases: []
                expectations: 1
                """;
        String uri = uri("limits.test.yaml");
        List<Diagnostic> ds = lsp.open(uri, text).getDiagnostics();
        assertEquals(List.of("test_file", "test_file"), ds.stream().map(LanguageServerTest::code).toList());
        assertEquals("`cases` is empty", ds.get(0).getMessage().getLeft());
        assertEquals("6:7-6:8", span(ds.get(0).getRange()), "the flow sequence's bracket");
        assertEquals("unknown property `expectations`", ds.get(1).getMessage().getLeft());
        assertEquals("7:0-7:12", span(ds.get(1).getRange()));
        assertEquals(8, labels(complete(uri, 5, 31)).size(), "conditions of inline policies complete too");
    }
}

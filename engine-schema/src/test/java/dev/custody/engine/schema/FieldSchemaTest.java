package dev.custody.engine.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FieldSchemaTest {

    @Test
    void jsonFormIsTheDataOfGetPolicySchema() throws Exception {
        JsonNode data = new ObjectMapper().readTree(FieldSchema.toJson());
        assertEquals(List.of("withdrawal.create", "web3.contract_call"), names(data));
        assertEquals(List.of("principal", "withdrawal", "wallet", "workspace", "context"),
                names(data.get("withdrawal.create")));
        assertEquals(List.of("principal", "resource", "context"), names(data.get("web3.contract_call")));
        assertEquals("{\"name\":\"user_email\",\"type\":\"string\"}",
                data.get("withdrawal.create").get("principal").get(0).toString());
        assertEquals("{\"name\":\"role\",\"type\":\"string\",\"enum\":[\"owner\",\"admin\",\"signer\",\"proposer\","
                + "\"viewer\",\"guest\"]}", data.get("withdrawal.create").get("principal").get(1).toString());
        assertEquals("[{\"name\":\"hour\",\"type\":\"integer\"},{\"name\":\"day_of_week\",\"type\":\"string\"}]",
                data.get("web3.contract_call").get("context").toString());
        assertEquals("[{\"name\":\"network_code\",\"type\":\"string\"},{\"name\":\"contract_address\",\"type\":\"string\"},"
                + "{\"name\":\"method_selector\",\"type\":\"string\"},{\"name\":\"method_name\",\"type\":\"string\"},"
                + "{\"name\":\"value_wei\",\"type\":\"string\"},{\"name\":\"gas_limit\",\"type\":\"integer\"},"
                + "{\"name\":\"decoded_args\",\"type\":\"map\"}]", data.get("web3.contract_call").get("resource").toString());
    }

    @Test
    void everyFieldOfTheSpecIsThereWithItsType() {
        List<String> got = new ArrayList<>();
        for (TriggerAction a : TriggerAction.values()) {
            FieldSchema.fields(a).forEach(f -> got.add(a.wireName() + " " + f.path() + ":" + f.type().wireName()));
        }
        assertEquals(List.of(
                "withdrawal.create principal.user_email:string", "withdrawal.create principal.role:string",
                "withdrawal.create withdrawal.amount:number", "withdrawal.create withdrawal.value_usd:number",
                "withdrawal.create withdrawal.asset_symbol:string", "withdrawal.create withdrawal.asset_is_native:boolean",
                "withdrawal.create withdrawal.destination_address:string", "withdrawal.create withdrawal.network_code:string",
                "withdrawal.create withdrawal.is_whitelisted:boolean", "withdrawal.create withdrawal.address_age_sec:number",
                "withdrawal.create wallet.outflow_1h:number", "withdrawal.create wallet.outflow_6h:number",
                "withdrawal.create wallet.outflow_24h:number", "withdrawal.create wallet.withdrawal_count_1h:integer",
                "withdrawal.create workspace.outflow_1h:number", "withdrawal.create workspace.outflow_6h:number",
                "withdrawal.create workspace.outflow_24h:number", "withdrawal.create workspace.withdrawal_count_1h:integer",
                "withdrawal.create workspace.network_outflow_1h:number", "withdrawal.create workspace.network_outflow_6h:number",
                "withdrawal.create workspace.network_outflow_24h:number",
                "withdrawal.create workspace.network_withdrawal_count_1h:integer",
                "withdrawal.create context.hour:integer", "withdrawal.create context.day_of_week:string",
                "web3.contract_call principal.user_email:string", "web3.contract_call principal.role:string",
                "web3.contract_call resource.network_code:string", "web3.contract_call resource.contract_address:string",
                "web3.contract_call resource.method_selector:string", "web3.contract_call resource.method_name:string",
                "web3.contract_call resource.value_wei:string", "web3.contract_call resource.gas_limit:integer",
                "web3.contract_call resource.decoded_args:map",
                "web3.contract_call context.hour:integer", "web3.contract_call context.day_of_week:string"), got);
    }

    @Test
    void lookupsByPathRespectTheAction() {
        assertTrue(FieldSchema.field(TriggerAction.WITHDRAWAL_CREATE, "wallet.outflow_24h").isPresent());
        assertFalse(FieldSchema.field(TriggerAction.WEB3_CONTRACT_CALL, "wallet.outflow_24h").isPresent());
        assertFalse(FieldSchema.field(TriggerAction.WITHDRAWAL_CREATE, "nodot").isPresent());
        assertTrue(FieldSchema.field(TriggerAction.WEB3_CONTRACT_CALL, "resource.method_name").orElseThrow().optional());
        assertTrue(FieldSchema.field(TriggerAction.WITHDRAWAL_CREATE, "principal.user_email").orElseThrow().optional());
        List<String> optional = new ArrayList<>();
        for (Section s : Section.values()) {
            FieldSchema.fields(s).stream().filter(FieldSpec::optional).forEach(f -> optional.add(f.path()));
        }
        assertEquals(List.of("principal.user_email", "resource.method_name"), optional);
    }

    @Test
    void wireNamesAreExactAndCaseSensitive() {
        assertEquals(TriggerAction.WEB3_CONTRACT_CALL, TriggerAction.fromWireName("web3.contract_call").orElseThrow());
        assertFalse(TriggerAction.fromWireName("Withdrawal.Create").isPresent());
        assertFalse(TriggerAction.fromWireName(null).isPresent());
        assertFalse(Effect.fromWireName("allow").isPresent());
        assertEquals(PolicyStatus.ACTIVE, PolicyStatus.fromWireName("active").orElseThrow());
        assertFalse(PolicyStatus.fromWireName("ACTIVE").isPresent());
    }

    @Test
    void limitsAreTheSpecs() {
        assertEquals(List.of(3, 100, 500, 500, 1, 4000, 50, 500, 100_000, 1000),
                List.of(Limits.POLICY_NAME_MIN, Limits.POLICY_NAME_MAX, Limits.POLICY_DESCRIPTION_MAX,
                        Limits.RULE_DESCRIPTION_MAX, Limits.CONDITION_MIN, Limits.CONDITION_MAX,
                        Limits.RULES_PER_POLICY_MAX, Limits.WALLET_IDS_MAX, Limits.ASSETS_OFFSET_MAX,
                        Limits.ASSETS_LIMIT_MAX));
        assertEquals(100, Limits.EVALUATION_TIMEOUT.toMillis());
    }

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }
}

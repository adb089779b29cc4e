package dev.custody.client;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.TypeFactory;
import dev.custody.client.ApiRequest.Shape;
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
import dev.custody.client.model.RuleValidation;
import dev.custody.client.model.RuleValidationRequest;
import dev.custody.client.model.SchemaField;
import dev.custody.client.model.SignMessageRequest;
import dev.custody.client.model.SignSubmission;
import dev.custody.client.model.SignatureStatus;
import dev.custody.client.model.TransactionStatus;
import dev.custody.client.model.WalletAsset;
import dev.custody.client.model.WalletCreationResult;
import dev.custody.client.model.WalletCreationStatus;
import dev.custody.client.model.WalletListItem;
import dev.custody.client.model.WalletQuery;
import dev.custody.client.model.WorkspaceStats;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The custody REST API client: one method per endpoint of the service spec, plus the two paths
 * docs/design.md §6 adds (list wallets, deposit address) and the polling helpers for MPC wallet creation
 * and web3 signing.
 *
 * <p>This class is the endpoint facade: it checks arguments, builds each endpoint's path, query and
 * body, and says how its answer is shaped. Sending, signing, retrying, reading the envelope and
 * mapping failures is the package's transport; waiting for a signing request or a wallet creation
 * is its status poller. What follows is the contract of the whole client.
 *
 * <h2>How a request is made</h2>
 * Authenticated requests carry {@code ACCESS-API-KEY}, {@code ACCESS-TIMESTAMP} (Unix seconds of
 * the injected {@link Clock}) and {@code ACCESS-SIGN} (HMAC-SHA256 as docs/design.md §6 defines it); each
 * attempt is signed afresh. {@code GET /networks} and {@code GET /assets} are public and are sent
 * without any credentials header. Requests with a body send {@code Content-Type: application/json},
 * and the signature covers the exact bytes sent.
 *
 * <h2>Answers and errors</h2>
 * Most endpoints answer with the envelope {@code {success, message, code, data}}; creation status
 * and list wallets answer bare JSON; the signing endpoints accept either (the spec does not show
 * their envelope). A non-2xx status or {@code success: false} raises {@link CustodyApiException}.
 * Unknown JSON fields are ignored. Every failure is a {@link CustodyClientException}.
 *
 * <h2>Retries</h2>
 * Only idempotent requests are retried: GET, PUT, DELETE, and the two signing POSTs, which carry an
 * {@code X-Idempotency-Key} that stays the same on every attempt. They are retried on 429, 5xx and
 * connection failures, at most {@link CustodyClientConfig#maxAttempts()} attempts with exponential
 * backoff. Other POSTs are sent once.
 *
 * <h2>Polling</h2>
 * Status polls back off from 1 s, ×1.5, up to 10 s, and the last poll happens at the deadline, so
 * the existing request is always queried before the caller is told it timed out. A signing helper
 * resubmits (with the same idempotency key) only when that query answers 404, that is when the
 * server does not know the request.
 *
 * <h2>Secrets</h2>
 * The API secret, the API key (beyond its first 4 characters) and the computed signatures never
 * appear in exception messages, in {@code toString()}, in the debug lines or in the answers: every
 * text the client emits or returns goes through the redactor of its exchange, which masks them
 * whole, in fragments of 8 or more characters, and encoded, before any text is cut to a length.
 *
 * <p>Thread-safe once built, provided the injected clock, sleeper and sinks are.
 */
public final class CustodyClient {
    /** First delay between status polls (spec client rules). */
    public static final Duration POLL_INITIAL = StatusPoller.INITIAL_DELAY;
    /** Longest delay between status polls. */
    public static final Duration POLL_MAX = StatusPoller.MAX_DELAY;
    /** Largest {@code offset} the assets endpoint accepts. */
    public static final int ASSETS_MAX_OFFSET = 100_000;
    /** Largest {@code limit} the assets endpoint accepts. */
    public static final int ASSETS_MAX_LIMIT = 1_000;

    private final CustodyClientConfig config;
    private final Supplier<String> idempotencyKeys;
    private final Consumer<String> warnings;
    private final HttpTransport transport;
    private final StatusPoller poller;
    private final ObjectMapper mapper;

    private CustodyClient(Builder b) {
        this.config = b.config;
        this.idempotencyKeys = b.idempotencyKeys;
        this.warnings = b.warnings;
        this.transport = new HttpTransport(config, b.httpClient, b.clock, b.sleeper, b.debug);
        this.poller = new StatusPoller(b.clock, transport::pause, transport::debug);
        this.mapper = transport.mapper();
    }

    /** A builder for a client with {@code config}. */
    public static Builder builder(CustodyClientConfig config) {
        return new Builder(config);
    }

    /** The JSON mapper the client uses: unknown fields ignored, nulls not written. */
    public static ObjectMapper newMapper() {
        return HttpTransport.newMapper();
    }

    /** The configuration (its {@code toString()} is safe to log). */
    public CustodyClientConfig config() {
        return config;
    }

    /** A fresh idempotency key from the configured supplier (random UUIDs by default). */
    public String newIdempotencyKey() {
        return idempotencyKeys.get();
    }

    // ---------------------------------------------------------------- policies and rules

    /** {@code GET /policy/schema}: fields per trigger action, then per section. */
    public ApiResponse<Map<String, Map<String, List<SchemaField>>>> policySchema() {
        TypeFactory tf = mapper.getTypeFactory();
        JavaType fields = tf.constructCollectionType(List.class, SchemaField.class);
        JavaType sections = tf.constructMapType(LinkedHashMap.class, tf.constructType(String.class), fields);
        JavaType type = tf.constructMapType(LinkedHashMap.class, tf.constructType(String.class), sections);
        return call(ApiRequest.get("/policy/schema"), type);
    }

    /** {@code POST /workspaces/{workspace_id}/policies/rules/validate}: compile-check, nothing saved. */
    public ApiResponse<RuleValidation> validateRule(String workspaceId, RuleValidationRequest request) {
        return call(ApiRequest.post(ws(workspaceId) + "/policies/rules/validate", json(request)),
                type(RuleValidation.class));
    }

    /** {@code POST /workspaces/{workspace_id}/policies}: opens an approval request. */
    public ApiResponse<PolicyChange> createPolicy(String workspaceId, PolicyDraft draft) {
        return call(ApiRequest.post(ws(workspaceId) + "/policies", json(draft)).optionalData(),
                type(PolicyChange.class));
    }

    /** {@code GET /workspaces/{workspace_id}/policies} with status, limit, offset when set. */
    public ApiResponse<List<Policy>> listPolicies(String workspaceId, PolicyQuery query) {
        ApiRequest call = ApiRequest.get(ws(workspaceId) + "/policies")
                .query("status", query.status())
                .query("limit", query.limit())
                .query("offset", query.offset());
        return call(call, listOf(Policy.class), CustodyClient::policyArray);
    }

    /** {@code GET /workspaces/{workspace_id}/policies/{policy_id}}. */
    public ApiResponse<Policy> getPolicy(String workspaceId, String policyId) {
        return call(ApiRequest.get(policy(workspaceId, policyId)), type(Policy.class));
    }

    /** {@code PUT /workspaces/{workspace_id}/policies/{policy_id}}: null fields stay unchanged. */
    public ApiResponse<PolicyChange> updatePolicy(String workspaceId, String policyId, PolicyUpdate update) {
        return call(ApiRequest.put(policy(workspaceId, policyId), json(update)).optionalData(),
                type(PolicyChange.class));
    }

    /** {@code DELETE /workspaces/{workspace_id}/policies/{policy_id}}. */
    public ApiResponse<PolicyChange> deletePolicy(String workspaceId, String policyId) {
        return call(ApiRequest.delete(policy(workspaceId, policyId)).optionalData(), type(PolicyChange.class));
    }

    /** {@code GET /workspaces/{workspace_id}/policies/{policy_id}/history}, newest first. */
    public ApiResponse<List<PolicyRevision>> policyHistory(String workspaceId, String policyId) {
        return call(ApiRequest.get(policy(workspaceId, policyId) + "/history"), listOf(PolicyRevision.class));
    }

    /**
     * {@code PUT /workspaces/{workspace_id}/policies/{policy_id}/wallets}: replaces the targeting
     * immediately (an empty list targets every wallet). The answer's shape is not in the spec.
     */
    public ApiResponse<JsonNode> setPolicyWallets(String workspaceId, String policyId, List<String> walletIds) {
        ObjectNode body = mapper.createObjectNode();
        body.putPOJO("wallet_ids", List.copyOf(walletIds));
        return call(ApiRequest.put(policy(workspaceId, policyId) + "/wallets", json(body)), type(JsonNode.class));
    }

    /** {@code POST /workspaces/{workspace_id}/policies/{policy_id}/rules}. */
    public ApiResponse<PolicyChange> createRule(String workspaceId, String policyId, RuleDraft rule) {
        return call(ApiRequest.post(policy(workspaceId, policyId) + "/rules", json(rule)).optionalData(),
                type(PolicyChange.class));
    }

    /** {@code PUT /workspaces/{workspace_id}/policies/rules/{rule_id}}; the answer's shape is not in the spec. */
    public ApiResponse<JsonNode> updateRule(String workspaceId, String ruleId, RuleUpdate update) {
        return call(ApiRequest.put(ws(workspaceId) + "/policies/rules/" + segment(ruleId, "rule id"), json(update)),
                type(JsonNode.class));
    }

    /** {@code DELETE /workspaces/{workspace_id}/policies/rules/{rule_id}}; the answer's shape is not in the spec. */
    public ApiResponse<JsonNode> deleteRule(String workspaceId, String ruleId) {
        return call(ApiRequest.delete(ws(workspaceId) + "/policies/rules/" + segment(ruleId, "rule id")),
                type(JsonNode.class));
    }

    // ---------------------------------------------------------------- workspaces

    /** {@code GET /workspaces/{workspace_id}/stats}. */
    public ApiResponse<WorkspaceStats> workspaceStats(String workspaceId) {
        return call(ApiRequest.get(ws(workspaceId) + "/stats"), type(WorkspaceStats.class));
    }

    /** {@code GET /workspaces/{workspace_id}/balances}, one {@code symbol} query parameter per symbol. */
    public ApiResponse<List<BalanceBySymbol>> balances(String workspaceId, List<String> symbols) {
        ApiRequest call = ApiRequest.get(ws(workspaceId) + "/balances");
        for (String symbol : symbols) {
            call.query("symbol", symbol);
        }
        return call(call, listOf(BalanceBySymbol.class));
    }

    // ---------------------------------------------------------------- networks and assets

    /** {@code GET /networks} (public: no credentials are sent); {@code search} filters by name. */
    public ApiResponse<List<Network>> listNetworks(String search) {
        return call(ApiRequest.get("/networks").publicEndpoint().query("search", search), listOf(Network.class));
    }

    /** {@code POST /networks/rescan-transaction}: re-index a transaction; the answer has no data. */
    public ApiResponse<JsonNode> rescanTransaction(String txHash, String networkId) {
        ObjectNode body = mapper.createObjectNode();
        body.put("tx_hash", required(txHash, "tx hash"));
        body.put("network_id", required(networkId, "network id"));
        return call(ApiRequest.post("/networks/rescan-transaction", json(body)), type(JsonNode.class));
    }

    /**
     * {@code GET /assets} (public: no credentials are sent) with every filter that is set.
     *
     * @throws InvalidRequestException before sending if offset is outside 0..100000 or limit
     *     outside 1..1000
     */
    public ApiResponse<List<Asset>> listAssets(AssetQuery query) {
        if (query.offset() != null && (query.offset() < 0 || query.offset() > ASSETS_MAX_OFFSET)) {
            throw new InvalidRequestException("assets offset `" + query.offset() + "` is out of range: "
                    + "it must be between 0 and " + ASSETS_MAX_OFFSET);
        }
        if (query.limit() != null && (query.limit() < 1 || query.limit() > ASSETS_MAX_LIMIT)) {
            throw new InvalidRequestException("assets limit `" + query.limit() + "` is out of range: "
                    + "it must be between 1 and " + ASSETS_MAX_LIMIT);
        }
        ApiRequest call = ApiRequest.get("/assets").publicEndpoint()
                .query("network_id", query.networkId())
                .query("search", query.search())
                .query("is_native", query.isNative())
                .query("is_whitelisted", query.isWhitelisted())
                .query("offset", query.offset())
                .query("limit", query.limit());
        return call(call, listOf(Asset.class));
    }

    /** {@code PUT /wallets/{wallet_id}/asset/{asset_id}} (no body): returns the existing record if present. */
    public ApiResponse<WalletAsset> addWalletAsset(String walletId, String assetId) {
        return call(ApiRequest.put(walletAsset(walletId, assetId), null), type(WalletAsset.class));
    }

    /** {@code DELETE /wallets/{wallet_id}/asset/{asset_id}}: refused by the server unless the balance is zero. */
    public ApiResponse<JsonNode> removeWalletAsset(String walletId, String assetId) {
        return call(ApiRequest.delete(walletAsset(walletId, assetId)), type(JsonNode.class));
    }

    // ---------------------------------------------------------------- wallets

    /**
     * {@code POST /wallets}. When both {@code sweep_task_params} and {@code sweep_task_id} are set,
     * the request is sent as given and a warning goes to the warning sink: the server uses the id
     * and ignores the parameters.
     */
    public ApiResponse<WalletCreationResult> createWallet(CreateWalletRequest request) {
        required(request.name(), "wallet name");
        required(request.walletType(), "wallet type");
        if (request.sweepTaskParams() != null && request.sweepTaskId() != null) {
            warnings.accept(transport.redact("both sweep task parameters and sweep task id `" + request.sweepTaskId()
                    + "` are given: the server uses the id and ignores the parameters"));
        }
        return call(ApiRequest.post("/wallets", json(request)), type(WalletCreationResult.class));
    }

    /** {@code GET /wallets/creation-status/{wallet_id}} (bare JSON, no envelope). */
    public ApiResponse<WalletCreationStatus> walletCreationStatus(String walletId) {
        return call(ApiRequest.get("/wallets/creation-status/" + segment(walletId, "wallet id")).shape(Shape.BARE),
                type(WalletCreationStatus.class));
    }

    /**
     * Polls the creation status of a wallet (an {@code mpc} key takes about 7 to 15 s) until it is
     * no longer {@code pending}, backing off from 1 s to 10 s.
     *
     * @return the final status ({@code success} or {@code error})
     * @throws CustodyTimeoutException if it is still pending at the deadline
     */
    public WalletCreationStatus awaitWalletCreation(String walletId, Duration timeout) {
        return poller.poll("wallet creation", walletId, () -> walletCreationStatus(walletId).data(),
                s -> !s.isPending(), WalletCreationStatus::status, timeout);
    }

    /** {@code GET /workspaces/{workspace_id}/wallets} (docs/design.md §6; bare JSON array). */
    public ApiResponse<List<WalletListItem>> listWallets(String workspaceId, WalletQuery query) {
        ApiRequest call = ApiRequest.get(ws(workspaceId) + "/wallets").shape(Shape.BARE)
                .query("wallet_type", query.walletType())
                .query("limit", query.limit())
                .query("offset", query.offset());
        return call(call, listOf(WalletListItem.class));
    }

    /**
     * {@code GET /wallets/{wallet_id}/deposit-address?asset_id=…&address_type=evm|sol} (docs/design.md §6).
     *
     * @throws InvalidRequestException before sending if the address type is not {@code evm} or
     *     {@code sol} ({@code tron} is not available yet)
     */
    public ApiResponse<DepositAddress> depositAddress(String walletId, String assetId, String addressType) {
        if ("tron".equals(addressType)) {
            throw new InvalidRequestException("address type `tron` is not available yet for deposit addresses: "
                    + "use `evm` or `sol`");
        }
        if (!"evm".equals(addressType) && !"sol".equals(addressType)) {
            throw new InvalidRequestException("address type `" + addressType + "` is not supported: use `evm` or `sol`");
        }
        ApiRequest call = ApiRequest.get("/wallets/" + segment(walletId, "wallet id") + "/deposit-address")
                .query("asset_id", required(assetId, "asset id"))
                .query("address_type", addressType);
        return call(call, type(DepositAddress.class));
    }

    // ---------------------------------------------------------------- web3 signing

    /**
     * {@code POST /web3/{wallet_id}/sign} with {@code X-Idempotency-Key}: {@code idempotencyKey}, or a
     * new one when {@code null}. Retries reuse the same key, so the server never signs twice.
     */
    public SignSubmission sign(String walletId, SignMessageRequest request, String idempotencyKey) {
        String key = idempotencyKey != null ? idempotencyKey : newIdempotencyKey();
        ApiRequest call = ApiRequest.post("/web3/" + segment(walletId, "wallet id") + "/sign", json(request))
                .idempotencyKey(key).shape(Shape.AUTO);
        return new SignSubmission(transactionId(call(call, type(JsonNode.class))), key);
    }

    /** {@code GET /web3/{wallet_id}/sign/{transaction_id}}. */
    public ApiResponse<SignatureStatus> signatureStatus(String walletId, String transactionId) {
        ApiRequest call = ApiRequest.get("/web3/" + segment(walletId, "wallet id") + "/sign/"
                + segment(transactionId, "transaction id")).shape(Shape.AUTO);
        return call(call, type(SignatureStatus.class));
    }

    /**
     * {@code POST /web3/transaction/{wallet_id}/signRaw} with {@code X-Idempotency-Key}. The body is
     * sent as given (EVM: from, to, nonce, gasLimit, data, value, chainId, …; Solana: data, from,
     * meta.tx_method, chainId). Raw signing is unsafe: only verified payloads should be signed.
     */
    public SignSubmission signRaw(String walletId, JsonNode rawTransaction, String idempotencyKey) {
        if (rawTransaction == null || !rawTransaction.isObject()) {
            throw new InvalidRequestException("raw transaction must be a json object");
        }
        String key = idempotencyKey != null ? idempotencyKey : newIdempotencyKey();
        ApiRequest call = ApiRequest.post("/web3/transaction/" + segment(walletId, "wallet id") + "/signRaw",
                json(rawTransaction))
                .idempotencyKey(key).shape(Shape.AUTO);
        return new SignSubmission(transactionId(call(call, type(JsonNode.class))), key);
    }

    /** {@code GET /web3/transaction/{wallet_id}/{transaction_id}}. */
    public ApiResponse<TransactionStatus> transactionStatus(String walletId, String transactionId) {
        ApiRequest call = ApiRequest.get("/web3/transaction/" + segment(walletId, "wallet id") + "/"
                + segment(transactionId, "transaction id")).shape(Shape.AUTO);
        return call(call, type(TransactionStatus.class));
    }

    /**
     * Polls a message signing request until it is done ({@code confirmed} with a signature) or
     * stopped ({@code failed}, {@code rejected}).
     *
     * @return the terminal status; check {@link SignatureStatus#isDone()}
     * @throws CustodyTimeoutException if not terminal when queried at the deadline
     */
    public SignatureStatus awaitSignature(String walletId, String transactionId, Duration timeout) {
        return poller.poll("signing request", transactionId, () -> signatureStatus(walletId, transactionId).data(),
                SignatureStatus::isTerminal, SignatureStatus::status, timeout);
    }

    /**
     * Polls a raw transaction signing request until it is done ({@code confirmed} or
     * {@code completed} with a hash) or stopped ({@code failed}, {@code rejected}).
     *
     * @return the terminal status; check {@link TransactionStatus#isDone()}
     * @throws CustodyTimeoutException if not terminal when queried at the deadline
     */
    public TransactionStatus awaitTransaction(String walletId, String transactionId, Duration timeout) {
        return poller.poll("transaction", transactionId, () -> transactionStatus(walletId, transactionId).data(),
                TransactionStatus::isTerminal, TransactionStatus::status, timeout);
    }

    /**
     * Submits a message signing request and polls it to a terminal status. If a status query
     * answers 404 (the server does not know the request), it is resubmitted once with the same
     * idempotency key; a time-out never resubmits, since the request still exists.
     */
    public SignatureStatus signAndWait(String walletId, SignMessageRequest request, String idempotencyKey,
            Duration timeout) {
        String key = idempotencyKey != null ? idempotencyKey : newIdempotencyKey();
        return poller.submitAndWait(() -> sign(walletId, request, key),
                txId -> awaitSignature(walletId, txId, timeout));
    }

    /** Like {@link #signAndWait} for {@link #signRaw}. */
    public TransactionStatus signRawAndWait(String walletId, JsonNode rawTransaction, String idempotencyKey,
            Duration timeout) {
        String key = idempotencyKey != null ? idempotencyKey : newIdempotencyKey();
        return poller.submitAndWait(() -> signRaw(walletId, rawTransaction, key),
                txId -> awaitTransaction(walletId, txId, timeout));
    }
    // ---------------------------------------------------------------- to the transport

    private <T> ApiResponse<T> call(ApiRequest request, JavaType type) {
        return transport.call(request, type);
    }

    private <T> ApiResponse<T> call(ApiRequest request, JavaType type, Function<JsonNode, JsonNode> select) {
        return transport.call(request, type, select);
    }

    private String json(Object value) {
        return transport.json(value);
    }

    private JavaType type(Class<?> c) {
        return mapper.getTypeFactory().constructType(c);
    }

    private JavaType listOf(Class<?> c) {
        return mapper.getTypeFactory().constructCollectionType(List.class, c);
    }

    // ---------------------------------------------------------------- answers and paths

    private String transactionId(ApiResponse<JsonNode> response) {
        JsonNode data = response.raw();
        JsonNode id = data.isTextual() ? data : data.path("transaction_id");
        if (!id.isTextual() || id.asText().isEmpty()) {
            throw new CustodyApiException(200, null, "signing response has no `transaction_id`", List.of(), null);
        }
        return id.asText();
    }

    /** The policies of a list answer: the array itself, or the array under {@code policies} or {@code items}. */
    private static JsonNode policyArray(JsonNode data) {
        if (data.isObject()) {
            for (String field : List.of("policies", "items")) {
                if (data.path(field).isArray()) {
                    return data.get(field);
                }
            }
        }
        return data;
    }

    private static String ws(String workspaceId) {
        return "/workspaces/" + segment(workspaceId, "workspace id");
    }

    private static String policy(String workspaceId, String policyId) {
        return ws(workspaceId) + "/policies/" + segment(policyId, "policy id");
    }

    private static String walletAsset(String walletId, String assetId) {
        return "/wallets/" + segment(walletId, "wallet id") + "/asset/" + segment(assetId, "asset id");
    }

    private static String required(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new InvalidRequestException(what + " is required");
        }
        return value;
    }

    /** {@code value}, required, as an encoded path segment. */
    private static String segment(String value, String what) {
        return ApiRequest.encode(required(value, what));
    }

    @Override
    public String toString() {
        return "CustodyClient[" + config + "]";
    }

    /**
     * Assembles a {@link CustodyClient}. Not thread-safe; {@link #build()} validates nothing beyond
     * the config, which validated itself.
     */
    public static final class Builder {
        private final CustodyClientConfig config;
        private HttpClient httpClient;
        private Clock clock = Clock.systemUTC();
        private Sleeper sleeper = Sleeper.SYSTEM;
        private Supplier<String> idempotencyKeys = () -> UUID.randomUUID().toString();
        private Consumer<String> warnings = w -> { };
        private Consumer<String> debug = d -> { };

        private Builder(CustodyClientConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** A preconfigured HTTP client; by default one is built with the config's connect time-out. */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = Objects.requireNonNull(httpClient);
            return this;
        }

        /** The clock of {@code ACCESS-TIMESTAMP} and of poll deadlines. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** What waits between retries and polls. */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper);
            return this;
        }

        /** Where idempotency keys come from when the caller gives none. */
        public Builder idempotencyKeys(Supplier<String> idempotencyKeys) {
            this.idempotencyKeys = Objects.requireNonNull(idempotencyKeys);
            return this;
        }

        /** Receives warnings (one redacted line each), such as a sweep task id overriding parameters. */
        public Builder warnings(Consumer<String> warnings) {
            this.warnings = Objects.requireNonNull(warnings);
            return this;
        }

        /** Receives debug lines (requests, statuses, retries), redacted: no secret, no signature. */
        public Builder debug(Consumer<String> debug) {
            this.debug = Objects.requireNonNull(debug);
            return this;
        }

        /** A client with these settings; the builder may be reused. */
        public CustodyClient build() {
            return new CustodyClient(this);
        }
    }
}

package dev.custody.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.TypeFactory;
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
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The custody REST API client: one method per endpoint of the service spec, plus the two paths
 * DESIGN §6 adds (list wallets, deposit address) and the polling helpers for MPC wallet creation
 * and web3 signing.
 *
 * <h2>How a request is made</h2>
 * Authenticated requests carry {@code ACCESS-API-KEY}, {@code ACCESS-TIMESTAMP} (Unix seconds of
 * the injected {@link Clock}) and {@code ACCESS-SIGN} ({@link RequestSigner}); each attempt is
 * signed afresh. {@code GET /networks} and {@code GET /assets} are public and are sent without any
 * credentials header. Requests with a body send {@code Content-Type: application/json}, and the
 * signature covers the exact bytes sent.
 *
 * <h2>Answers and errors</h2>
 * Most endpoints answer with the envelope {@code {success, message, code, data}}; creation status
 * and list wallets answer bare JSON; the signing endpoints accept either (the spec does not show
 * their envelope). A non-2xx status or {@code success: false} raises {@link CustodyApiException}.
 * Unknown JSON fields are ignored.
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
 * The API secret and the computed signatures never appear in exception messages, in
 * {@code toString()}, or in the debug lines: everything the client emits goes through a redactor.
 *
 * <p>Thread-safe once built, provided the injected clock, sleeper and sinks are.
 */
public final class CustodyClient {
    /** First delay between status polls (spec client rules). */
    public static final Duration POLL_INITIAL = Duration.ofSeconds(1);
    /** Longest delay between status polls. */
    public static final Duration POLL_MAX = Duration.ofSeconds(10);
    /** Largest {@code offset} the assets endpoint accepts. */
    public static final int ASSETS_MAX_OFFSET = 100_000;
    /** Largest {@code limit} the assets endpoint accepts. */
    public static final int ASSETS_MAX_LIMIT = 1_000;

    private static final int MAX_LOGGED_BODY = 2_000;

    private final CustodyClientConfig config;
    private final HttpClient http;
    private final Clock clock;
    private final Sleeper sleeper;
    private final Supplier<String> idempotencyKeys;
    private final Consumer<String> warnings;
    private final Consumer<String> debug;
    private final RequestSigner signer;
    private final Redactor redactor;
    private final ObjectMapper mapper;

    private CustodyClient(Builder b) {
        this.config = b.config;
        this.http = b.httpClient != null ? b.httpClient : HttpClient.newBuilder()
                .connectTimeout(config.connectTimeout())
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.clock = b.clock;
        this.sleeper = b.sleeper;
        this.idempotencyKeys = b.idempotencyKeys;
        this.warnings = b.warnings;
        this.debug = b.debug;
        this.signer = config.hasCredentials() ? new RequestSigner(config.apiSecret()) : null;
        this.redactor = new Redactor(config.apiSecret());
        this.mapper = newMapper();
    }

    /** A builder for a client with {@code config}. */
    public static Builder builder(CustodyClientConfig config) {
        return new Builder(config);
    }

    /** The JSON mapper the client uses: unknown fields ignored, nulls not written. */
    public static ObjectMapper newMapper() {
        return new ObjectMapper()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                .setSerializationInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);
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
        return call(Call.get("/policy/schema"), type);
    }

    /** {@code POST /workspaces/{workspace_id}/policies/rules/validate}: compile-check, nothing saved. */
    public ApiResponse<RuleValidation> validateRule(String workspaceId, RuleValidationRequest request) {
        return call(Call.post(ws(workspaceId) + "/policies/rules/validate", json(request)), type(RuleValidation.class));
    }

    /** {@code POST /workspaces/{workspace_id}/policies}: opens an approval request. */
    public ApiResponse<PolicyChange> createPolicy(String workspaceId, PolicyDraft draft) {
        return call(Call.post(ws(workspaceId) + "/policies", json(draft)).optionalData(), type(PolicyChange.class));
    }

    /** {@code GET /workspaces/{workspace_id}/policies} with status, limit, offset when set. */
    public ApiResponse<List<Policy>> listPolicies(String workspaceId, PolicyQuery query) {
        Call call = Call.get(ws(workspaceId) + "/policies")
                .query("status", query.status())
                .query("limit", query.limit())
                .query("offset", query.offset());
        return call(call, listOf(Policy.class), CustodyClient::policyArray);
    }

    /** {@code GET /workspaces/{workspace_id}/policies/{policy_id}}. */
    public ApiResponse<Policy> getPolicy(String workspaceId, String policyId) {
        return call(Call.get(policy(workspaceId, policyId)), type(Policy.class));
    }

    /** {@code PUT /workspaces/{workspace_id}/policies/{policy_id}}: null fields stay unchanged. */
    public ApiResponse<PolicyChange> updatePolicy(String workspaceId, String policyId, PolicyUpdate update) {
        return call(Call.put(policy(workspaceId, policyId), json(update)).optionalData(), type(PolicyChange.class));
    }

    /** {@code DELETE /workspaces/{workspace_id}/policies/{policy_id}}. */
    public ApiResponse<PolicyChange> deletePolicy(String workspaceId, String policyId) {
        return call(Call.delete(policy(workspaceId, policyId)).optionalData(), type(PolicyChange.class));
    }

    /** {@code GET /workspaces/{workspace_id}/policies/{policy_id}/history}, newest first. */
    public ApiResponse<List<PolicyRevision>> policyHistory(String workspaceId, String policyId) {
        return call(Call.get(policy(workspaceId, policyId) + "/history"), listOf(PolicyRevision.class));
    }

    /**
     * {@code PUT /workspaces/{workspace_id}/policies/{policy_id}/wallets}: replaces the targeting
     * immediately (an empty list targets every wallet). The answer's shape is not in the spec.
     */
    public ApiResponse<JsonNode> setPolicyWallets(String workspaceId, String policyId, List<String> walletIds) {
        ObjectNode body = mapper.createObjectNode();
        body.putPOJO("wallet_ids", List.copyOf(walletIds));
        return call(Call.put(policy(workspaceId, policyId) + "/wallets", json(body)), type(JsonNode.class));
    }

    /** {@code POST /workspaces/{workspace_id}/policies/{policy_id}/rules}. */
    public ApiResponse<PolicyChange> createRule(String workspaceId, String policyId, RuleDraft rule) {
        return call(Call.post(policy(workspaceId, policyId) + "/rules", json(rule)).optionalData(),
                type(PolicyChange.class));
    }

    /** {@code PUT /workspaces/{workspace_id}/policies/rules/{rule_id}}; the answer's shape is not in the spec. */
    public ApiResponse<JsonNode> updateRule(String workspaceId, String ruleId, RuleUpdate update) {
        return call(Call.put(ws(workspaceId) + "/policies/rules/" + segment(ruleId, "rule id"), json(update)),
                type(JsonNode.class));
    }

    /** {@code DELETE /workspaces/{workspace_id}/policies/rules/{rule_id}}; the answer's shape is not in the spec. */
    public ApiResponse<JsonNode> deleteRule(String workspaceId, String ruleId) {
        return call(Call.delete(ws(workspaceId) + "/policies/rules/" + segment(ruleId, "rule id")),
                type(JsonNode.class));
    }

    // ---------------------------------------------------------------- workspaces

    /** {@code GET /workspaces/{workspace_id}/stats}. */
    public ApiResponse<WorkspaceStats> workspaceStats(String workspaceId) {
        return call(Call.get(ws(workspaceId) + "/stats"), type(WorkspaceStats.class));
    }

    /** {@code GET /workspaces/{workspace_id}/balances}, one {@code symbol} query parameter per symbol. */
    public ApiResponse<List<BalanceBySymbol>> balances(String workspaceId, List<String> symbols) {
        Call call = Call.get(ws(workspaceId) + "/balances");
        for (String symbol : symbols) {
            call.query("symbol", symbol);
        }
        return call(call, listOf(BalanceBySymbol.class));
    }

    // ---------------------------------------------------------------- networks and assets

    /** {@code GET /networks} (public: no credentials are sent); {@code search} filters by name. */
    public ApiResponse<List<Network>> listNetworks(String search) {
        return call(Call.get("/networks").publicEndpoint().query("search", search), listOf(Network.class));
    }

    /** {@code POST /networks/rescan-transaction}: re-index a transaction; the answer has no data. */
    public ApiResponse<JsonNode> rescanTransaction(String txHash, String networkId) {
        ObjectNode body = mapper.createObjectNode();
        body.put("tx_hash", required(txHash, "tx hash"));
        body.put("network_id", required(networkId, "network id"));
        return call(Call.post("/networks/rescan-transaction", json(body)), type(JsonNode.class));
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
        Call call = Call.get("/assets").publicEndpoint()
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
        return call(Call.put(walletAsset(walletId, assetId), null), type(WalletAsset.class));
    }

    /** {@code DELETE /wallets/{wallet_id}/asset/{asset_id}}: refused by the server unless the balance is zero. */
    public ApiResponse<JsonNode> removeWalletAsset(String walletId, String assetId) {
        return call(Call.delete(walletAsset(walletId, assetId)), type(JsonNode.class));
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
            warnings.accept(redactor.redact("both sweep task parameters and sweep task id `" + request.sweepTaskId()
                    + "` are given: the server uses the id and ignores the parameters"));
        }
        return call(Call.post("/wallets", json(request)), type(WalletCreationResult.class));
    }

    /** {@code GET /wallets/creation-status/{wallet_id}} (bare JSON, no envelope). */
    public ApiResponse<WalletCreationStatus> walletCreationStatus(String walletId) {
        return call(Call.get("/wallets/creation-status/" + segment(walletId, "wallet id")).shape(Shape.BARE),
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
        return poll("wallet creation", walletId, () -> walletCreationStatus(walletId).data(),
                s -> !s.isPending(), WalletCreationStatus::status, timeout);
    }

    /** {@code GET /workspaces/{workspace_id}/wallets} (DESIGN §6; bare JSON array). */
    public ApiResponse<List<WalletListItem>> listWallets(String workspaceId, WalletQuery query) {
        Call call = Call.get(ws(workspaceId) + "/wallets").shape(Shape.BARE)
                .query("wallet_type", query.walletType())
                .query("limit", query.limit())
                .query("offset", query.offset());
        return call(call, listOf(WalletListItem.class));
    }

    /**
     * {@code GET /wallets/{wallet_id}/deposit-address?asset_id=…&address_type=evm|sol} (DESIGN §6).
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
        Call call = Call.get("/wallets/" + segment(walletId, "wallet id") + "/deposit-address")
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
        Call call = Call.post("/web3/" + segment(walletId, "wallet id") + "/sign", json(request))
                .idempotencyKey(key).shape(Shape.AUTO);
        return new SignSubmission(transactionId(call(call, type(JsonNode.class))), key);
    }

    /** {@code GET /web3/{wallet_id}/sign/{transaction_id}}. */
    public ApiResponse<SignatureStatus> signatureStatus(String walletId, String transactionId) {
        Call call = Call.get("/web3/" + segment(walletId, "wallet id") + "/sign/"
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
        Call call = Call.post("/web3/transaction/" + segment(walletId, "wallet id") + "/signRaw", json(rawTransaction))
                .idempotencyKey(key).shape(Shape.AUTO);
        return new SignSubmission(transactionId(call(call, type(JsonNode.class))), key);
    }

    /** {@code GET /web3/transaction/{wallet_id}/{transaction_id}}. */
    public ApiResponse<TransactionStatus> transactionStatus(String walletId, String transactionId) {
        Call call = Call.get("/web3/transaction/" + segment(walletId, "wallet id") + "/"
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
        return poll("signing request", transactionId, () -> signatureStatus(walletId, transactionId).data(),
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
        return poll("transaction", transactionId, () -> transactionStatus(walletId, transactionId).data(),
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
        return submitAndWait(() -> sign(walletId, request, key),
                txId -> awaitSignature(walletId, txId, timeout));
    }

    /** Like {@link #signAndWait} for {@link #signRaw}. */
    public TransactionStatus signRawAndWait(String walletId, JsonNode rawTransaction, String idempotencyKey,
            Duration timeout) {
        String key = idempotencyKey != null ? idempotencyKey : newIdempotencyKey();
        return submitAndWait(() -> signRaw(walletId, rawTransaction, key),
                txId -> awaitTransaction(walletId, txId, timeout));
    }

    private <S> S submitAndWait(Supplier<SignSubmission> submit, Function<String, S> await) {
        SignSubmission first = submit.get();
        try {
            return await.apply(first.transactionId());
        } catch (CustodyApiException e) {
            if (e.httpStatus() != 404) {
                throw e;
            }
            debugLine("* signing request `" + first.transactionId() + "` is unknown to the server: "
                    + "resubmitting with the same idempotency key");
            return await.apply(submit.get().transactionId());
        }
    }

    private <S> S poll(String what, String id, Supplier<S> query, Predicate<S> terminal,
            Function<S, String> statusOf, Duration timeout) {
        Instant deadline = clock.instant().plus(timeout);
        Duration delay = POLL_INITIAL;
        S last = query.get();
        while (!terminal.test(last)) {
            Duration remaining = Duration.between(clock.instant(), deadline);
            if (remaining.isNegative() || remaining.isZero()) {
                String status = statusOf.apply(last);
                throw new CustodyTimeoutException(what + " `" + id + "` is still `" + status + "` after "
                        + timeout.toSeconds() + " s; it was not resubmitted: poll it again later", id, status);
            }
            pause(remaining.compareTo(delay) < 0 ? remaining : delay);
            delay = nextPollDelay(delay);
            last = query.get();
        }
        return last;
    }

    /** The poll delay after {@code delay}: ×1.5, at most 10 s. */
    static Duration nextPollDelay(Duration delay) {
        Duration next = Duration.ofNanos(delay.toNanos() * 3 / 2);
        return next.compareTo(POLL_MAX) > 0 ? POLL_MAX : next;
    }

    // ---------------------------------------------------------------- transport

    private <T> ApiResponse<T> call(Call call, JavaType type) {
        return call(call, type, Function.identity());
    }

    private <T> ApiResponse<T> call(Call call, JavaType type, Function<JsonNode, JsonNode> select) {
        if (call.authenticated && signer == null) {
            throw new InvalidRequestException("missing api credentials for `" + call.method + " " + call.path
                    + "`: set `CUSTODY_API_KEY` and `CUSTODY_API_SECRET`");
        }
        URI uri = URI.create(config.baseUrl() + call.path + call.queryString());
        String signedPath = uri.getRawPath();
        boolean retryable = !"POST".equals(call.method) || call.idempotencyKey != null;
        int attempts = retryable ? config.maxAttempts() : 1;
        Duration backoff = config.initialBackoff();
        for (int attempt = 1; ; attempt++) {
            HttpRequest request = build(call, uri, signedPath);
            HttpResponse<String> response;
            try {
                long started = System.nanoTime();
                response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                debugLine("< " + response.statusCode() + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
                debugLine("< body: " + truncate(response.body()));
            } catch (IOException e) {
                String reason = describe(e);
                debugLine("! attempt " + attempt + "/" + attempts + " failed: " + reason);
                if (attempt >= attempts) {
                    throw new CustodyTransportException("cannot reach `" + config.baseUrl() + "`: " + reason
                            + (attempts > 1 ? " (after " + attempts + " attempts)" : ""), attempt, e);
                }
                backoff = waitBeforeRetry(backoff);
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CustodyTransportException("interrupted while calling `" + call.method + " " + signedPath + "`",
                        attempt, e);
            }
            int status = response.statusCode();
            if ((status == 429 || status >= 500) && attempt < attempts) {
                debugLine("! attempt " + attempt + "/" + attempts + " answered " + status + ": retrying");
                backoff = waitBeforeRetry(backoff);
                continue;
            }
            return interpret(call, status, response.body(), type, select);
        }
    }

    private HttpRequest build(Call call, URI uri, String signedPath) {
        HttpRequest.Builder rb = HttpRequest.newBuilder(uri)
                .timeout(config.requestTimeout())
                .header("Accept", "application/json");
        String body = call.body == null ? "" : call.body;
        debugLine("> " + call.method + " " + uri);
        if (call.body != null) {
            rb.header("Content-Type", "application/json");
            rb.method(call.method, HttpRequest.BodyPublishers.ofString(call.body, StandardCharsets.UTF_8));
            debugLine("> body: " + truncate(call.body));
        } else {
            rb.method(call.method, HttpRequest.BodyPublishers.noBody());
        }
        if (call.idempotencyKey != null) {
            rb.header("X-Idempotency-Key", call.idempotencyKey);
            debugLine("> X-Idempotency-Key: " + call.idempotencyKey);
        }
        if (call.authenticated) {
            long timestamp = clock.instant().getEpochSecond();
            String hex = signer.hexDigest(call.method, signedPath, timestamp, body);
            String signature = java.util.Base64.getEncoder().encodeToString(hex.getBytes(StandardCharsets.US_ASCII));
            redactor.rememberSignature(hex);
            redactor.rememberSignature(signature);
            rb.header("ACCESS-API-KEY", config.apiKey());
            rb.header("ACCESS-TIMESTAMP", Long.toString(timestamp));
            rb.header("ACCESS-SIGN", signature);
            debugLine("> ACCESS-API-KEY: " + CustodyClientConfig.maskKey(config.apiKey()));
            debugLine("> ACCESS-TIMESTAMP: " + timestamp);
            debugLine("> ACCESS-SIGN: " + Redactor.MASK);
        }
        return rb.build();
    }

    private <T> ApiResponse<T> interpret(Call call, int status, String body, JavaType type,
            Function<JsonNode, JsonNode> select) {
        JsonNode root = parse(body);
        if (status < 200 || status > 299) {
            throw failure(status, root, body);
        }
        if (root == null && !body.isBlank()) {
            throw new CustodyApiException(status, null, "response is not json: " + snippet(body), List.of(), null);
        }
        if (root == null) {
            // an empty 2xx answer (204 No Content) carries no data, whatever the shape
            return value(call, status, NullNode.getInstance(), null, type, select);
        }
        boolean enveloped = switch (call.shape) {
            case ENVELOPE -> true;
            case BARE -> false;
            case AUTO -> root != null && root.isObject() && root.path("success").isBoolean();
        };
        JsonNode data;
        String message = null;
        if (enveloped) {
            if (root == null || !root.isObject() || !root.path("success").isBoolean()) {
                throw new CustodyApiException(status, null, "response is not an api envelope: " + snippet(body),
                        List.of(), null);
            }
            if (!root.get("success").booleanValue()) {
                throw failure(status, root, body);
            }
            message = root.hasNonNull("message") ? redactor.redact(root.get("message").asText()) : null;
            data = root.path("data");
        } else {
            data = root;
        }
        return value(call, status, data.isMissingNode() ? NullNode.getInstance() : data, message, type, select);
    }

    /**
     * Converts {@code data} to {@code type}. Absent data reads as an empty list for list types, as
     * {@code null} where the call allows it, and is a {@link CustodyApiException} otherwise.
     */
    private <T> ApiResponse<T> value(Call call, int status, JsonNode data, String message, JavaType type,
            Function<JsonNode, JsonNode> select) {
        JsonNode selected = select.apply(data);
        if (selected.isNull() && !type.hasRawClass(JsonNode.class)) {
            if (type.isCollectionLikeType()) {
                @SuppressWarnings("unchecked")
                T empty = (T) List.of();
                return new ApiResponse<>(empty, data, message);
            }
            if (!call.optionalData) {
                throw new CustodyApiException(status, null, "response to `" + call.method + " " + call.path
                        + "` has no data", List.of(), null);
            }
            return new ApiResponse<>(null, data, message);
        }
        try {
            T value = mapper.convertValue(selected, type);
            return new ApiResponse<>(value, data, message);
        } catch (IllegalArgumentException e) {
            // the cause is dropped on purpose: its message may quote response content, unredacted
            throw new CustodyApiException(status, null, "unexpected response shape for `" + call.method + " "
                    + call.path + "`: " + redactor.redact(firstLine(e.getMessage())), List.of(), null);
        }
    }

    private CustodyApiException failure(int status, JsonNode root, String body) {
        Integer code = null;
        String message = null;
        List<String> errors = new ArrayList<>();
        if (root != null && root.isObject()) {
            JsonNode c = root.path("code");
            if (c.canConvertToInt()) {
                code = c.intValue();
            } else if (c.isTextual() && c.asText().matches("-?\\d{1,9}")) {
                code = Integer.parseInt(c.asText());
            }
            JsonNode m = root.path("message");
            message = m.isValueNode() && !m.isNull() ? m.asText() : null;
            JsonNode e = root.path("errors");
            if (e.isArray()) {
                for (JsonNode item : e) {
                    errors.add(redactor.redact(oneLine(item.isTextual() ? item.asText() : item.toString())));
                }
            } else if (e.isTextual() || e.isObject()) {
                errors.add(redactor.redact(oneLine(e.isTextual() ? e.asText() : e.toString())));
            }
        } else if (body != null && !body.isBlank()) {
            message = snippet(body);
        }
        if (message == null && status >= 300) {
            message = "http status " + status;
        }
        return new CustodyApiException(status, code, message == null ? null : redactor.redact(oneLine(message)),
                errors, null);
    }

    private Duration waitBeforeRetry(Duration backoff) {
        pause(backoff);
        Duration next = backoff.multipliedBy(2);
        return next.compareTo(config.maxBackoff()) > 0 ? config.maxBackoff() : next;
    }

    private void pause(Duration duration) {
        try {
            sleeper.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CustodyTransportException("interrupted while waiting", 0, e);
        }
    }

    private JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return mapper.readTree(body);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private String json(Object value) {
        try {
            return mapper.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException("cannot write the request body: " + firstLine(e.getOriginalMessage()));
        }
    }

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

    private void debugLine(String line) {
        debug.accept(redactor.redact(line));
    }

    private String truncate(String s) {
        String one = oneLine(s);
        return one.length() > MAX_LOGGED_BODY ? one.substring(0, MAX_LOGGED_BODY) + "…" : one;
    }

    private String snippet(String body) {
        String one = oneLine(body.strip());
        return redactor.redact(one.length() > 200 ? one.substring(0, 200) + "…" : one);
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String describe(IOException e) {
        if (e instanceof HttpConnectTimeoutException) {
            return "connect timed out";
        }
        if (e instanceof HttpTimeoutException) {
            return "request timed out";
        }
        if (e instanceof ConnectException) {
            return "connection refused";
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) : oneLine(m);
    }

    private JavaType type(Class<?> c) {
        return mapper.getTypeFactory().constructType(c);
    }

    private JavaType listOf(Class<?> c) {
        return mapper.getTypeFactory().constructCollectionType(List.class, c);
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

    static String segment(String value, String what) {
        return encode(required(value, what));
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Override
    public String toString() {
        return "CustodyClient[" + config + "]";
    }

    /** Whether the body of an answer is the envelope, bare JSON, or either (decided by its {@code success}). */
    private enum Shape { ENVELOPE, BARE, AUTO }

    /** One request to make; mutable while it is assembled, then only read. */
    private static final class Call {
        final String method;
        final String path;
        final String body;
        final List<String[]> query = new ArrayList<>();
        boolean authenticated = true;
        boolean optionalData;
        String idempotencyKey;
        Shape shape = Shape.ENVELOPE;

        private Call(String method, String path, String body) {
            this.method = method;
            this.path = path;
            this.body = body;
        }

        static Call get(String path) {
            return new Call("GET", path, null);
        }

        static Call post(String path, String body) {
            return new Call("POST", path, body);
        }

        static Call put(String path, String body) {
            return new Call("PUT", path, body);
        }

        static Call delete(String path) {
            return new Call("DELETE", path, null);
        }

        Call publicEndpoint() {
            this.authenticated = false;
            return this;
        }

        /** The answer may carry no data (a gated change may answer with the envelope alone). */
        Call optionalData() {
            this.optionalData = true;
            return this;
        }

        Call shape(Shape s) {
            this.shape = s;
            return this;
        }

        Call idempotencyKey(String key) {
            this.idempotencyKey = key;
            return this;
        }

        Call query(String name, Object value) {
            if (value != null) {
                query.add(new String[] {name, value.toString()});
            }
            return this;
        }

        String queryString() {
            if (query.isEmpty()) {
                return "";
            }
            StringBuilder sb = new StringBuilder();
            for (String[] p : query) {
                sb.append(sb.length() == 0 ? '?' : '&').append(encode(p[0])).append('=').append(encode(p[1]));
            }
            return sb.toString();
        }
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

        public CustodyClient build() {
            return new CustodyClient(this);
        }
    }
}

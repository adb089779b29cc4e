package dev.custody.examples;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Writes the example action stream ({@code examples/actions/stream.jsonl}): a week of activity in two
 * workspaces of the example policy repository, one JSON action per line (docs/design.md §4), with
 * {@code withdrawal.settled} records in between.
 *
 * <p>Deterministic: the same seed and count always give the same bytes (no clock, no hash iteration order), so
 * the committed file can be regenerated and compared. The velocity sections ({@code wallet.*},
 * {@code workspace.*}) are computed from the settlement records the generator itself emits: outflow counts
 * executed and successful settlements of the last 1, 6 and 24 hours, {@code *_withdrawal_count_1h} counts
 * attempts.
 *
 * <pre>
 * ./mvnw -B -q -pl examples -am package -DskipTests
 * java -cp examples/target/classes dev.custody.examples.ActionStreamGenerator \
 *     --count 1200 --out examples/actions/stream.jsonl          # the committed fixture
 * java -cp examples/target/classes dev.custody.examples.ActionStreamGenerator \
 *     --count 200000 --out /tmp/stream-200k.jsonl               # a larger stream for benchmarks
 * </pre>
 */
public final class ActionStreamGenerator {
    /** The committed fixture's size and seed. */
    public static final int DEFAULT_COUNT = 1200;
    public static final long DEFAULT_SEED = 20261102L;
    static final Instant START = Instant.parse("2026-11-02T00:00:00Z");

    static final String MAIN_WORKSPACE = "00cd4ae6-310e-4566-99ae-1270f1ed5570";
    static final String LAB_WORKSPACE = "2fde5aa1-e6c3-4cc3-9d89-438da3572c71";
    static final String TREASURY_HOT = "cea35e29-55d0-434c-9037-3c44148d4eca";
    static final String TREASURY_WARM = "f01e2e69-5683-4d4d-b304-197dc9ebcfcc";
    static final String OPS_PAYOUTS = "92e0490b-f666-47c5-8c1a-dd0688c6fc87";
    static final String MARKET_MAKING = "895b1bdd-5eab-441c-ba7a-0bf66bbbd03b";
    static final String DEFI_OPS = "aa0fe024-832e-4282-a4e2-c85e2b7ae138";
    static final String LAB_WALLET = "07830681-a4f5-4363-98c6-e9a733789957";
    static final String TREASURY_HOT_ADDRESS = "0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c";

    private static final String[] WITHDRAWAL_WALLETS = {TREASURY_HOT, TREASURY_WARM, OPS_PAYOUTS, OPS_PAYOUTS,
        OPS_PAYOUTS, MARKET_MAKING};
    private static final String[] CALL_WALLETS = {DEFI_OPS, DEFI_OPS, MARKET_MAKING};
    private static final String[] ROLES = {"owner", "admin", "signer", "proposer", "viewer", "guest"};
    private static final int[] ROLE_WEIGHTS = {5, 12, 55, 22, 3, 3};
    private static final String[] PEOPLE = {"ana", "bruno", "chen", "dara", "emeka", "farah", "goran", "hana"};

    /** An asset: symbol, network, USD price, whether native. */
    record Asset(String symbol, String network, double price, boolean nativeAsset) {}

    private static final Asset[] ASSETS = {
        new Asset("USDC", "ETHEREUM_MAINNET", 1.0, false),
        new Asset("USDT", "ETHEREUM_MAINNET", 1.0, false),
        new Asset("ETH", "ETHEREUM_MAINNET", 3100.0, true),
        new Asset("USDC", "BASE_MAINNET", 1.0, false),
        new Asset("ETH", "BASE_MAINNET", 3100.0, true),
        new Asset("BTC", "BTC_MAINNET", 68000.0, true),
        new Asset("SOL", "SOL_MAINNET", 150.0, true),
        new Asset("USDT", "TRON_MAINNET", 1.0, false),
    };

    private static final String[] TOKENS = {
        "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", // USDC
        "0xdac17f958d2ee523a2206206994597c13d831ec7", // USDT
        "0x6b175474e89094c44da98b954eedeac495271d0f", // DAI
    };
    private static final String UNLIMITED = "115792089237316195423570985008687907853269984665640564039457584007913129639935";

    private final SplittableRandom random;
    private final List<String[]> addressBook = new ArrayList<>();
    private final Map<String, Deque<long[]>> walletOutflow = new HashMap<>();
    private final Map<String, Deque<Long>> walletAttempts = new HashMap<>();
    private final Map<String, Deque<long[]>> workspaceOutflow = new HashMap<>();
    private final Map<String, Deque<Long>> workspaceAttempts = new HashMap<>();
    private final PriorityQueue<Settlement> pending = new PriorityQueue<>((a, b) -> {
        int c = Long.compare(a.at, b.at);
        return c != 0 ? c : Long.compare(a.sequence, b.sequence);
    });
    private long sequence;

    /** A settlement to emit once the clock passes it. */
    record Settlement(long at, long sequence, String wallet, String workspace, String network, double usd, String status) {}

    ActionStreamGenerator(long seed) {
        this.random = new SplittableRandom(seed);
        for (int i = 0; i < 40; i++) {
            // address-book entries: an address and its age in seconds at the start of the week
            long age = i < 6 ? random.nextLong(600, 80_000) : random.nextLong(2 * 86_400, 400L * 86_400);
            addressBook.add(new String[] {address(), Long.toString(age)});
        }
    }

    public static void main(String[] args) throws IOException {
        int count = DEFAULT_COUNT;
        long seed = DEFAULT_SEED;
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--count" -> count = Integer.parseInt(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: ActionStreamGenerator [--count N] [--seed S] [--out FILE]");
                    System.exit(2);
                }
            }
        }
        Writer w = out == null ? new OutputStreamWriter(System.out, StandardCharsets.UTF_8)
                : Files.newBufferedWriter(out, StandardCharsets.UTF_8);
        try (PrintWriter p = new PrintWriter(new BufferedWriter(w, 1 << 16))) {
            new ActionStreamGenerator(seed).write(count, p);
        }
    }

    /** Writes {@code count} actions (and the settlements that fall between them). */
    void write(int count, PrintWriter out) {
        long clock = START.getEpochSecond();
        for (int n = 1; n <= count; n++) {
            clock += random.nextLong(60, 1000);
            while (!pending.isEmpty() && pending.peek().at <= clock) {
                Settlement s = pending.poll();
                out.print(settlement(s));
                out.print('\n');
            }
            String line = random.nextInt(100) < 82 ? withdrawal(n, clock) : contractCall(n, clock);
            out.print(line);
            out.print('\n');
        }
    }

    private String withdrawal(int n, long at) {
        boolean lab = random.nextInt(100) < 8;
        String wallet = lab ? LAB_WALLET : WITHDRAWAL_WALLETS[random.nextInt(WITHDRAWAL_WALLETS.length)];
        String workspace = lab ? LAB_WORKSPACE : MAIN_WORKSPACE;
        Asset asset = ASSETS[random.nextInt(ASSETS.length)];
        double usd = usd(wallet);
        boolean listed = random.nextInt(100) < 75;
        String destination;
        long age;
        if (listed) {
            String[] entry = addressBook.get(random.nextInt(addressBook.size()));
            destination = entry[0];
            age = Long.parseLong(entry[1]) + (at - START.getEpochSecond());
        } else {
            destination = address();
            age = 0;
        }
        Json j = new Json();
        j.string("id", String.format(Locale.ROOT, "a-%06d", n));
        j.string("action", "withdrawal.create");
        j.string("wallet_id", wallet);
        j.string("workspace_id", workspace);
        j.string("at", Instant.ofEpochSecond(at).toString());
        j.open("principal");
        principal(j, false);
        j.close();
        j.open("withdrawal");
        j.number("amount", String.format(Locale.ROOT, "%.6f", usd / asset.price()));
        j.number("value_usd", String.format(Locale.ROOT, "%.2f", usd));
        j.string("asset_symbol", asset.symbol());
        j.bool("asset_is_native", asset.nativeAsset());
        j.string("destination_address", destination);
        j.string("network_code", asset.network());
        j.bool("is_whitelisted", listed);
        j.number("address_age_sec", Long.toString(age));
        j.close();
        velocity(j, wallet, workspace, asset.network(), at);
        if (random.nextInt(100) < 45) {
            String status = random.nextInt(100) < 90 ? (random.nextBoolean() ? "executed" : "success") : "failed";
            pending.add(new Settlement(at + random.nextLong(120, 3600), sequence++, wallet, workspace, asset.network(),
                    usd, status));
        }
        walletAttempts.computeIfAbsent(wallet, k -> new ArrayDeque<>()).add(at);
        workspaceAttempts.computeIfAbsent(workspace + "|", k -> new ArrayDeque<>()).add(at);
        workspaceAttempts.computeIfAbsent(workspace + "|" + asset.network(), k -> new ArrayDeque<>()).add(at);
        return j.end();
    }

    /** Mostly routine amounts, a long tail of large treasury movements. */
    private double usd(String wallet) {
        int bucket = random.nextInt(100);
        double max = bucket < 55 ? 2_000 : bucket < 85 ? 30_000 : bucket < 96 ? 150_000 : 400_000;
        if (wallet.equals(TREASURY_HOT) || wallet.equals(TREASURY_WARM)) {
            max *= 1.5;
        }
        double min = bucket < 55 ? 20 : max / 20;
        return Math.round((min + random.nextDouble() * (max - min)) * 100) / 100.0;
    }

    private void principal(Json j, boolean contractCall) {
        int r = weighted();
        String role = ROLES[r];
        if (random.nextInt(100) < 92) {
            String person = PEOPLE[random.nextInt(PEOPLE.length)];
            String domain = random.nextInt(100) < 96 ? "example.com" : "contractor.example.net";
            j.string("user_email", person + "@" + domain);
        }
        j.string("role", contractCall && r >= 3 && random.nextBoolean() ? "signer" : role);
    }

    private int weighted() {
        int total = 0;
        for (int w : ROLE_WEIGHTS) {
            total += w;
        }
        int x = random.nextInt(total);
        for (int i = 0; i < ROLE_WEIGHTS.length; i++) {
            x -= ROLE_WEIGHTS[i];
            if (x < 0) {
                return i;
            }
        }
        return 0;
    }

    private void velocity(Json j, String wallet, String workspace, String network, long at) {
        j.open("wallet");
        Deque<long[]> wo = walletOutflow.computeIfAbsent(wallet, k -> new ArrayDeque<>());
        j.number("outflow_1h", money(sum(wo, at, 3600)));
        j.number("outflow_6h", money(sum(wo, at, 6 * 3600)));
        j.number("outflow_24h", money(sum(wo, at, 86_400)));
        j.number("withdrawal_count_1h", Long.toString(count(walletAttempts.get(wallet), at)));
        j.close();
        j.open("workspace");
        Deque<long[]> all = workspaceOutflow.computeIfAbsent(workspace + "|", k -> new ArrayDeque<>());
        Deque<long[]> net = workspaceOutflow.computeIfAbsent(workspace + "|" + network, k -> new ArrayDeque<>());
        j.number("outflow_1h", money(sum(all, at, 3600)));
        j.number("outflow_6h", money(sum(all, at, 6 * 3600)));
        j.number("outflow_24h", money(sum(all, at, 86_400)));
        j.number("withdrawal_count_1h", Long.toString(count(workspaceAttempts.get(workspace + "|"), at)));
        j.number("network_outflow_1h", money(sum(net, at, 3600)));
        j.number("network_outflow_6h", money(sum(net, at, 6 * 3600)));
        j.number("network_outflow_24h", money(sum(net, at, 86_400)));
        j.number("network_withdrawal_count_1h", Long.toString(count(workspaceAttempts.get(workspace + "|" + network), at)));
        j.close();
    }

    private String settlement(Settlement s) {
        if (!s.status().equals("failed")) {
            long cents = Math.round(s.usd() * 100);
            walletOutflow.computeIfAbsent(s.wallet(), k -> new ArrayDeque<>()).add(new long[] {s.at(), cents});
            workspaceOutflow.computeIfAbsent(s.workspace() + "|", k -> new ArrayDeque<>()).add(new long[] {s.at(), cents});
            workspaceOutflow.computeIfAbsent(s.workspace() + "|" + s.network(), k -> new ArrayDeque<>())
                    .add(new long[] {s.at(), cents});
        }
        Json j = new Json();
        j.string("event", "withdrawal.settled");
        j.string("wallet_id", s.wallet());
        j.string("workspace_id", s.workspace());
        j.string("network_code", s.network());
        j.number("value_usd", String.format(Locale.ROOT, "%.2f", s.usd()));
        j.string("status", s.status());
        j.string("at", Instant.ofEpochSecond(s.at()).toString());
        return j.end();
    }

    private String contractCall(int n, long at) {
        String wallet = CALL_WALLETS[random.nextInt(CALL_WALLETS.length)];
        int kind = random.nextInt(100);
        String contract = random.nextInt(100) < 85 ? TOKENS[random.nextInt(TOKENS.length)] : address();
        Json j = new Json();
        j.string("id", String.format(Locale.ROOT, "a-%06d", n));
        j.string("action", "web3.contract_call");
        j.string("wallet_id", wallet);
        j.string("workspace_id", MAIN_WORKSPACE);
        j.string("at", Instant.ofEpochSecond(at).toString());
        j.open("principal");
        principal(j, true);
        j.close();
        j.open("resource");
        j.string("network_code", random.nextInt(100) < 80 ? "ETHEREUM_MAINNET" : "BASE_MAINNET");
        j.string("contract_address", contract);
        String value = Long.toString(random.nextLong(1, 50_000) * 1_000_000L);
        if (kind < 60) {
            j.string("method_selector", "0xa9059cbb");
            if (random.nextInt(100) < 70) {
                j.string("method_name", "transfer");
            }
            j.string("value_wei", random.nextInt(100) < 97 ? "0" : "10000000000000000");
            j.number("gas_limit", Long.toString(random.nextLong(50_000, 90_000)));
            j.open("decoded_args");
            j.string("to", random.nextInt(100) < 30 ? TREASURY_HOT_ADDRESS : address());
            j.string("value", value);
            j.close();
        } else if (kind < 90) {
            j.string("method_selector", "0x095ea7b3");
            if (random.nextInt(100) < 70) {
                j.string("method_name", "approve");
            }
            j.string("value_wei", "0");
            j.number("gas_limit", Long.toString(random.nextLong(45_000, 70_000)));
            j.open("decoded_args");
            j.string("spender", address());
            j.string("value", random.nextInt(100) < 15 ? UNLIMITED : value);
            j.close();
        } else {
            j.string("method_selector", "0xd0e30db0");
            j.string("value_wei", Long.toString(random.nextLong(1, 100) * 10_000_000_000_000_000L));
            j.number("gas_limit", Long.toString(random.nextLong(30_000, 60_000)));
            j.open("decoded_args");
            j.close();
        }
        j.close();
        return j.end();
    }

    private static long sum(Deque<long[]> events, long at, long window) {
        long total = 0;
        for (long[] e : events) {
            if (e[0] > at - window && e[0] <= at) {
                total += e[1];
            }
        }
        while (!events.isEmpty() && events.peekFirst()[0] <= at - 86_400) {
            events.pollFirst();
        }
        return total;
    }

    private static long count(Deque<Long> attempts, long at) {
        if (attempts == null) {
            return 0;
        }
        while (!attempts.isEmpty() && attempts.peekFirst() <= at - 3600) {
            attempts.pollFirst();
        }
        return attempts.size();
    }

    private static String money(long cents) {
        return String.format(Locale.ROOT, "%d.%02d", cents / 100, cents % 100);
    }

    private String address() {
        StringBuilder s = new StringBuilder("0x");
        for (int i = 0; i < 40; i++) {
            s.append(Character.forDigit(random.nextInt(16), 16));
        }
        return s.toString();
    }

    /** A tiny JSON object writer for the values this generator emits (no escaping needed: ids, codes, numbers). */
    private static final class Json {
        private final StringBuilder s = new StringBuilder(512).append('{');
        private boolean first = true;

        private void key(String k) {
            if (!first) {
                s.append(", ");
            }
            first = false;
            s.append('"').append(k).append("\": ");
        }

        void string(String k, String v) {
            key(k);
            s.append('"').append(v).append('"');
        }

        void number(String k, String v) {
            key(k);
            s.append(v);
        }

        void bool(String k, boolean v) {
            key(k);
            s.append(v);
        }

        void open(String k) {
            key(k);
            s.append('{');
            first = true;
        }

        void close() {
            s.append('}');
            first = false;
        }

        String end() {
            return s.append('}').toString();
        }
    }
}

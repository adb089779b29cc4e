package dev.custody.spark;

import dev.custody.engine.files.FilePolicySource;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.files.PolicyDocument;
import dev.custody.engine.files.PolicyFiles;
import dev.custody.engine.files.PolicyReader;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Policy documents as their files' bytes, with the instant and time budget of a replay: what a Spark job
 * broadcasts to its executors. cel-java's compiled programs are not serializable, so the bytes travel and each
 * executor JVM reads and compiles them once ({@link #engine()} caches one {@link PolicyEngine} per distinct set
 * in the JVM), through the same {@link PolicyReader} and {@link PolicyEngine} as {@code custody replay}.
 *
 * <p>Immutable, serializable and thread-safe.
 */
public final class PolicySet implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Map<String, PolicyEngine> ENGINES = new ConcurrentHashMap<>();

    private final List<String> names;
    private final List<byte[]> contents;
    private final Instant now;
    private final Duration timeBudget;
    private final long costLimit;
    private final String key;

    private PolicySet(List<String> names, List<byte[]> contents, Instant now, Duration timeBudget) {
        this(names, contents, now, timeBudget, dev.custody.engine.compile.CostMeter.DEFAULT_LIMIT);
    }

    private PolicySet(List<String> names, List<byte[]> contents, Instant now, Duration timeBudget, long costLimit) {
        this.names = List.copyOf(names);
        this.contents = contents.stream().map(byte[]::clone).toList();
        this.now = Objects.requireNonNull(now, "now");
        this.timeBudget = Objects.requireNonNull(timeBudget, "timeBudget");
        this.costLimit = dev.custody.engine.compile.CostMeter.checkLimit(costLimit);
        this.key = fingerprint();
    }

    /**
     * These policies with another cost limit of one evaluation ({@code custody replay --cost-limit}; the default
     * is the engine's).
     *
     * @throws IllegalArgumentException when the limit is not positive
     */
    public PolicySet withCostLimit(long limit) {
        return new PolicySet(names, contents, now, timeBudget, limit);
    }

    /** The cost limit of one evaluation. */
    public long costLimit() {
        return costLimit;
    }

    /**
     * Reads the policy files under these files and directories (as {@code custody replay --policies} does).
     *
     * @param now the instant of actions without {@code at} (one instant for the whole job, so every executor
     *     agrees)
     * @param timeBudget the time budget of one evaluation
     * @throws java.nio.file.NoSuchFileException when a path does not exist
     * @throws IOException when a file cannot be read
     */
    public static PolicySet read(List<Path> paths, Instant now, Duration timeBudget) throws IOException {
        List<String> names = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        for (Path p : PolicyFiles.discover(paths)) {
            names.add(p.toString());
            contents.add(Files.readAllBytes(p));
        }
        return new PolicySet(names, contents, now, timeBudget);
    }

    /** Policy documents given as text, keyed by file name (the name gives the format and derived rule ids). */
    public static PolicySet of(Map<String, String> textByName, Instant now, Duration timeBudget) {
        List<String> names = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        textByName.forEach((n, t) -> {
            names.add(n);
            contents.add(t.getBytes(StandardCharsets.UTF_8));
        });
        return new PolicySet(names, contents, now, timeBudget);
    }

    /** The instant of actions without {@code at}. */
    public Instant now() {
        return now;
    }

    /** The policy documents, read from the bytes (cheap; not compiled). */
    public List<PolicyDocument> documents() {
        List<PolicyDocument> docs = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            docs.add(PolicyReader.parse(contents.get(i), names.get(i)));
        }
        return docs;
    }

    /**
     * The engine over these policies in this JVM: built (policies read, bundles compiled on first use) once per
     * distinct policy set and reused by every task of the executor.
     */
    public PolicyEngine engine() {
        return ENGINES.computeIfAbsent(key, k -> newEngine());
    }

    /** A new engine over these policies (the driver uses one to report load and compile errors up front). */
    public PolicyEngine newEngine() {
        return PolicyEngine.builder(FilePolicySource.of(documents())::policies)
                .clock(Clock.fixed(now, ZoneOffset.UTC))
                .timeBudget(timeBudget)
                .costLimit(costLimit)
                .build();
    }

    private String fingerprint() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (int i = 0; i < names.size(); i++) {
                byte[] n = names.get(i).getBytes(StandardCharsets.UTF_8);
                md.update(Integer.toString(n.length).getBytes(StandardCharsets.US_ASCII));
                md.update(n);
                md.update(Integer.toString(contents.get(i).length).getBytes(StandardCharsets.US_ASCII));
                md.update(contents.get(i));
            }
            md.update((now + "|" + timeBudget + "|" + costLimit).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

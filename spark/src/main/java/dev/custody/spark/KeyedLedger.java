package dev.custody.spark;

import dev.custody.engine.Decision;
import dev.custody.engine.PolicyEngine;
import dev.custody.engine.payload.Action;
import dev.custody.engine.check.ActionReader;
import dev.custody.engine.replay.ActionStream;
import dev.custody.engine.velocity.SettlementStatus;
import dev.custody.engine.velocity.Velocity;
import dev.custody.engine.velocity.VelocityLedger;
import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.io.Reader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.util.CollectionAccumulator;
import scala.Tuple2;

/**
 * The velocity figures of a stream's withdrawals from the replay's own in-memory {@link VelocityLedger}, run per
 * group of keys (issue 28): what {@link JsonlReplay} uses for {@code --velocity derive} and
 * {@code --assume-settled}, instead of {@link VelocityWindows}' window functions.
 *
 * <p>Why it gives {@code custody replay}'s figures. The ledger's keys are a wallet, a workspace, and a workspace
 * and network; a withdrawal or settlement touches the three of its own, so records of different workspaces never
 * meet in one key, unless one wallet id appears under several workspaces: such workspaces are one <em>group</em>.
 * Each group's ledger operations go to one task (partitioned by the group), sorted there by stream position and
 * fed in that order to a {@link VelocityLedger} with the replay's lateness, as the replay feeds its one ledger.
 * The one thing that crosses groups is the ledger's watermark (the latest instant of any earlier record or query,
 * all keys together), which decides whether a query is refused: each operation carries the watermark of the
 * operations before it in its split, and each split sends every task its maximum, so a task knows the stream's
 * watermark before every operation it holds and refuses what the replay refuses, with the replay's words. Any
 * query it does not refuse its own ledger answers exactly: that ledger has seen a subset of the instants, so its
 * watermark is at most the stream's, and the ledger answers every query at or after its watermark minus the
 * lateness exactly (and drops only records no such query can see).
 *
 * <p>With {@code --assume-settled} a withdrawal that is not denied also realizes its value, so its decision is
 * taken where the ledger is: a withdrawal that gives both its sections is decided in its split (its decision does
 * not depend on the ledger) and its operation carries whether it realizes; one whose sections are derived carries
 * its line's bytes and is decided in its group's task with the figures its ledger gives, which are then its
 * line's figures.
 *
 * <p>Groups: each split also sends, per distinct (wallet, workspace) it holds, a pair to the task of the wallet,
 * which reports wallets whose workspaces were routed to different groups ({@link #conflicts}); the driver then
 * joins those workspaces into one group and runs the job again (a stream whose wallets each stay in one
 * workspace, the custody service's, runs once).
 *
 * <p>Package-private; the iterators are single-threaded, as Spark's task iterators are.
 */
final class KeyedLedger {
    /** A split's maximum instant, sent to every task. */
    static final byte MARK = 0;
    /** A (wallet, workspace) pair of a split, sent to the wallet's task. */
    static final byte PAIR = 1;
    /** A settlement the ledger takes. */
    static final byte SETTLEMENT = 2;
    /** A withdrawal with ledger keys and its instant in range: an attempt, and a query when it lacks a section. */
    static final byte WITHDRAWAL = 3;

    private KeyedLedger() {}

    /** One ledger operation of a line (or a split's mark or pair): what the group's task needs. */
    static final class Op implements Externalizable {
        private static final long serialVersionUID = 1L;
        byte kind;
        int split;
        long pos;
        /** Epoch nanoseconds; for a {@link #MARK}, the split's maximum ({@code Long.MIN_VALUE} for none). */
        long t;
        /** The latest instant before this operation in its split ({@code Long.MIN_VALUE} for none). */
        long m;
        String wallet;
        String workspace;
        String network;
        /** For a {@link #PAIR}: the workspace's group. */
        String group;
        boolean query;
        /** A settlement whose status realizes; a withdrawal decided in its split that was not denied. */
        boolean realize;
        /** The settlement's value; the withdrawal's {@code value_usd} (null when it has none the ledger reads). */
        BigDecimal usd;
        /** With {@code --assume-settled}: the line of a withdrawal whose sections are derived. */
        byte[] line;

        public Op() {}

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeByte(kind);
            out.writeInt(split);
            out.writeLong(pos);
            out.writeLong(t);
            out.writeLong(m);
            writeString(out, wallet);
            writeString(out, workspace);
            writeString(out, network);
            writeString(out, group);
            out.writeByte((query ? 1 : 0) | (realize ? 2 : 0));
            writeDecimal(out, usd);
            out.writeInt(line == null ? -1 : line.length);
            if (line != null) {
                out.write(line);
            }
        }

        @Override
        public void readExternal(ObjectInput in) throws IOException {
            kind = in.readByte();
            split = in.readInt();
            pos = in.readLong();
            t = in.readLong();
            m = in.readLong();
            wallet = readString(in);
            workspace = readString(in);
            network = readString(in);
            group = readString(in);
            int flags = in.readByte();
            query = (flags & 1) != 0;
            realize = (flags & 2) != 0;
            usd = readDecimal(in);
            int n = in.readInt();
            if (n >= 0) {
                line = new byte[n];
                in.readFully(line);
            }
        }
    }

    /**
     * The ledger operations of one split, keyed for the group tasks ({@link JsonlReplay.SplitPos} with the task's
     * number as its split): one per withdrawal with keys and settlement the ledger takes, one pair per distinct
     * (wallet, workspace), and at the end one mark per task.
     */
    static final class SplitOps implements Iterator<Tuple2<JsonlReplay.SplitPos, Op>> {
        private final JsonlReplay.SplitLines in;
        private final int tasks;
        private final Map<String, String> groups;
        private final Instant now;
        private final PolicyEngine engine;
        private final ArrayDeque<Tuple2<JsonlReplay.SplitPos, Op>> queue = new ArrayDeque<>();
        private final Set<String> pairs = new HashSet<>();
        private long running = Long.MIN_VALUE;
        private boolean marked;

        /**
         * @param engine the engine that decides withdrawals giving both sections, with {@code --assume-settled};
         *     null without it
         */
        SplitOps(JsonlReplay.SplitLines in, int tasks, Map<String, String> groups, Instant now, PolicyEngine engine) {
            this.in = in;
            this.tasks = tasks;
            this.groups = groups;
            this.now = now;
            this.engine = engine;
        }

        @Override
        public boolean hasNext() {
            while (queue.isEmpty() && !marked) {
                if (!in.advance()) {
                    marked = true;
                    for (int p = 0; p < tasks; p++) {
                        Op mark = new Op();
                        mark.kind = MARK;
                        mark.split = in.split;
                        mark.pos = Long.MIN_VALUE + in.split;
                        mark.t = running;
                        queue.add(new Tuple2<>(new JsonlReplay.SplitPos(p, mark.pos), mark));
                    }
                } else {
                    read(in.parse());
                }
            }
            return !queue.isEmpty();
        }

        @Override
        public Tuple2<JsonlReplay.SplitPos, Op> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return queue.poll();
        }

        private void read(ActionStream.Line line) {
            Op op;
            if (line instanceof ActionStream.ActionLine a) {
                Action action = StreamLines.withInstant(a.action(), now);
                String[] k = StreamLines.keys(action);
                if (k == null || !StreamLines.inRange(action.at())) {
                    return;
                }
                op = new Op();
                op.kind = WITHDRAWAL;
                op.t = StreamLines.nanos(action.at());
                op.wallet = k[0];
                op.workspace = k[1];
                op.network = k[2];
                op.query = StreamLines.needsVelocity(action);
                if (engine != null) {
                    if (op.query) {
                        op.line = java.util.Arrays.copyOfRange(in.bytes, in.offset, in.offset + in.length);
                    } else {
                        op.realize = !engine.evaluate(action, false).denied();
                        op.usd = usd(action);
                    }
                }
            } else if (line instanceof ActionStream.SettlementLine s && StreamLines.settlementRejected(s) == null) {
                var st = s.settlement();
                op = new Op();
                op.kind = SETTLEMENT;
                op.t = StreamLines.nanos(st.at());
                op.wallet = st.walletId().toLowerCase(java.util.Locale.ROOT);
                op.workspace = st.workspaceId().toLowerCase(java.util.Locale.ROOT);
                op.network = st.networkCode();
                op.realize = st.status().realized();
                op.usd = st.valueUsd();
            } else {
                return;
            }
            op.split = in.split;
            op.pos = in.pos;
            op.m = running;
            running = Math.max(running, op.t);
            String group = groups.getOrDefault(op.workspace, op.workspace);
            queue.add(new Tuple2<>(new JsonlReplay.SplitPos(task(group, tasks), op.pos), op));
            if (pairs.add(op.wallet + '\u0000' + op.workspace)) {
                Op pair = new Op();
                pair.kind = PAIR;
                pair.split = in.split;
                pair.pos = -1;
                pair.wallet = op.wallet;
                pair.workspace = op.workspace;
                pair.group = group;
                queue.add(new Tuple2<>(new JsonlReplay.SplitPos(task(op.wallet, tasks), pair.pos), pair));
            }
        }
    }

    /** The task of a group (or of a wallet, for its pairs). */
    static int task(String key, int tasks) {
        return Math.floorMod(key.hashCode(), tasks);
    }

    /**
     * The {@code value_usd} the replay's ledger realizes for a withdrawal that was not denied, or null when it
     * realizes nothing (absent, or not a number the ledger reads: {@code StreamLedger.record} notes it and goes on).
     */
    static BigDecimal usd(Action action) {
        Map<String, Object> w = action.sections().get("withdrawal");
        Object value = w == null ? null : w.get("value_usd");
        if (value == null) {
            return null;
        }
        try {
            return ActionReader.usd(value);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * A group task: its operations in stream order through one ledger; the figures of every query (answered or
     * refused), each with its line's split and position.
     */
    static final class Figuring implements Iterator<JsonlReplay.Figures> {
        private final Iterator<Tuple2<JsonlReplay.SplitPos, Op>> ops;
        private final long[] splitMax;
        private long[] before;
        private final VelocityLedger ledger;
        private final long lateness;
        private final PolicyEngine engine;
        private final Instant now;
        private final CollectionAccumulator<List<String>> conflicts;
        private final Map<String, Set<String>> groupsOf = new HashMap<>();
        private final Map<String, Set<String>> workspacesOf = new HashMap<>();
        private final ActionStream reader = new ActionStream(Reader.nullReader(), Integer.MAX_VALUE);
        private JsonlReplay.Figures next;
        private boolean done;

        /**
         * @param splits the number of input splits
         * @param engine the engine that decides derived withdrawals with {@code --assume-settled}; null without it
         */
        Figuring(Iterator<Tuple2<JsonlReplay.SplitPos, Op>> ops, int splits, Duration lateness, PolicyEngine engine,
                Instant now, CollectionAccumulator<List<String>> conflicts) {
            this.ops = ops;
            this.splitMax = new long[splits];
            java.util.Arrays.fill(splitMax, Long.MIN_VALUE);
            this.ledger = VelocityLedger.builder().lateness(lateness).build();
            this.lateness = lateness.toNanos();
            this.engine = engine;
            this.now = now;
            this.conflicts = conflicts;
        }

        @Override
        public boolean hasNext() {
            while (next == null && !done) {
                if (!ops.hasNext()) {
                    done = true;
                    report();
                    break;
                }
                apply(ops.next()._2());
            }
            return next != null;
        }

        @Override
        public JsonlReplay.Figures next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            JsonlReplay.Figures f = next;
            next = null;
            return f;
        }

        private void apply(Op op) {
            switch (op.kind) {
                case MARK -> splitMax[op.split] = Math.max(splitMax[op.split], op.t);
                case PAIR -> {
                    groupsOf.computeIfAbsent(op.wallet, w -> new TreeSet<>()).add(op.group);
                    workspacesOf.computeIfAbsent(op.wallet, w -> new TreeSet<>()).add(op.workspace);
                }
                case SETTLEMENT -> {
                    try {
                        ledger.recordSettlement(op.workspace, op.wallet, op.network, op.usd,
                                op.realize ? SettlementStatus.EXECUTED : SettlementStatus.FAILED, instant(op.t));
                    } catch (IllegalArgumentException e) {
                        // not reached: the split kept only settlements a ledger takes
                    }
                }
                default -> withdrawal(op);
            }
        }

        private void withdrawal(Op op) {
            if (before == null) {
                // marks come first (their positions are the lowest): the stream's watermark before each split
                before = new long[splitMax.length];
                long running = Long.MIN_VALUE;
                for (int s = 0; s < splitMax.length; s++) {
                    before[s] = running;
                    running = Math.max(running, splitMax[s]);
                }
            }
            long watermark = Math.max(before[op.split], op.m);
            Instant at = instant(op.t);
            boolean realize = op.realize;
            BigDecimal usd = op.usd;
            if (op.query) {
                if (watermark != Long.MIN_VALUE && op.t < watermark - lateness) {
                    next = JsonlReplay.Figures.refused(op.split, op.pos, watermark);
                    realize = false;
                } else {
                    Velocity v = ledger.velocity(op.workspace, op.wallet, op.network, at);
                    next = JsonlReplay.Figures.of(op.split, op.pos, v);
                    if (engine != null) {
                        ActionStream.Line line = reader.parse(new ActionStream.RawLine(0, op.line, 0, op.line.length,
                                op.line.length));
                        ActionStream.ActionLine a = (ActionStream.ActionLine) line;
                        Decision d = CustodySpark.derivedDecision(a, next, engine, now, false);
                        realize = !d.denied();
                        usd = usd(StreamLines.withInstant(a.action(), now));
                    }
                }
            }
            ledger.recordAttempt(op.workspace, op.wallet, op.network, at);
            if (engine != null && realize && usd != null) {
                try {
                    ledger.recordSettlement(op.workspace, op.wallet, op.network, usd, SettlementStatus.EXECUTED, at);
                } catch (IllegalArgumentException e) {
                    // as StreamLedger.record: a value the ledger refuses realizes nothing
                }
            }
        }

        /** Wallets whose workspaces this run routed to different groups. */
        private void report() {
            for (Map.Entry<String, Set<String>> e : groupsOf.entrySet()) {
                if (e.getValue().size() > 1) {
                    List<String> c = new ArrayList<>();
                    c.add(e.getKey());
                    c.addAll(workspacesOf.get(e.getKey()));
                    conflicts.add(c);
                }
            }
        }
    }

    /**
     * The groups after a run that reported conflicts: the workspaces of each conflicting wallet joined (with the
     * groups before), each group named by its least workspace.
     */
    static Map<String, String> join(Map<String, String> groups, List<List<String>> conflicts) {
        Map<String, String> parent = new HashMap<>();
        for (Map.Entry<String, String> e : groups.entrySet()) {
            union(parent, e.getKey(), e.getValue());
        }
        for (List<String> c : conflicts) {
            for (int i = 2; i < c.size(); i++) {
                union(parent, c.get(1), c.get(i));
            }
        }
        Map<String, TreeSet<String>> members = new TreeMap<>();
        for (String w : parent.keySet()) {
            members.computeIfAbsent(find(parent, w), r -> new TreeSet<>()).add(w);
        }
        Map<String, String> out = new HashMap<>();
        for (TreeSet<String> m : members.values()) {
            for (String w : m) {
                out.put(w, m.first());
            }
        }
        return out;
    }

    private static String find(Map<String, String> parent, String w) {
        String p = parent.getOrDefault(w, w);
        while (!p.equals(parent.getOrDefault(p, p))) {
            p = parent.getOrDefault(p, p);
        }
        parent.putIfAbsent(w, w);
        return p;
    }

    private static void union(Map<String, String> parent, String a, String b) {
        String ra = find(parent, a);
        String rb = find(parent, b);
        if (!ra.equals(rb)) {
            parent.put(ra.compareTo(rb) < 0 ? rb : ra, ra.compareTo(rb) < 0 ? ra : rb);
        }
    }

    static Instant instant(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    static void writeString(ObjectOutput out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            out.writeUTF(s);
        }
    }

    static String readString(ObjectInput in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }

    /** A decimal as its scale and unscaled value (a long when it fits). */
    static void writeDecimal(ObjectOutput out, BigDecimal d) throws IOException {
        if (d == null) {
            out.writeByte(0);
            return;
        }
        BigInteger u = d.unscaledValue();
        if (u.bitLength() < 64) {
            out.writeByte(1);
            out.writeInt(d.scale());
            out.writeLong(u.longValue());
        } else {
            out.writeByte(2);
            out.writeInt(d.scale());
            byte[] b = u.toByteArray();
            out.writeInt(b.length);
            out.write(b);
        }
    }

    static BigDecimal readDecimal(ObjectInput in) throws IOException {
        int tag = in.readByte();
        if (tag == 0) {
            return null;
        }
        int scale = in.readInt();
        if (tag == 1) {
            return BigDecimal.valueOf(in.readLong(), scale);
        }
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new BigDecimal(new BigInteger(b), scale);
    }
}

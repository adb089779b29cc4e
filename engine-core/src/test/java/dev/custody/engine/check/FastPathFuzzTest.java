package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.Section;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The one-pass reader against the general path, by differential fuzzing: {@code ActionReader.read} on the bytes
 * (which tries {@code JsonLine.action} and {@code JsonLine.settlement} first) against the same on the decoded text
 * (Jackson, then {@code PayloadValidator}), on the example stream's lines mutated (values swapped for boundary
 * values of every type, members deleted, duplicated, renamed to known names and near misses, sections moved,
 * {@code decoded_args} at its limits, whitespace styles), and on every boundary value in every place of three
 * lines. For each text: the same result class, equal results, the same sections class by class (doubles bit for
 * bit), the same checked payload (slots, section mask, wallet id, instant) at two instants, also for a copy of the
 * action checked afresh, and the same result for the line read at an offset inside a larger buffer. Any difference
 * is a bug of the one-pass path: the fail-closed contract is that it reads what the general path reads, or gives
 * up. {@code -Dfuzz.cases=N -Dfuzz.seed=S} runs more (a review ran 751,000 cases, with no difference).
 */
class FastPathFuzzTest {

    // ---------- a tiny JSON tree that keeps raw token text and allows duplicate keys ----------
    sealed interface Node permits Raw, Obj, Arr {}

    record Raw(String text) implements Node {}

    record Member(String key, Node value) {}

    static final class Obj implements Node {
        final List<Member> members = new ArrayList<>();
    }

    static final class Arr implements Node {
        final List<Node> items = new ArrayList<>();
    }

    static final class Parser {
        final String s;
        int i;

        Parser(String s) {
            this.s = s;
        }

        void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        String str() {
            int start = i;
            i++;
            while (s.charAt(i) != '"') {
                if (s.charAt(i) == '\\') {
                    i++;
                }
                i++;
            }
            i++;
            return s.substring(start, i);
        }

        Node value() {
            ws();
            char c = s.charAt(i);
            if (c == '{') {
                i++;
                Obj o = new Obj();
                ws();
                if (s.charAt(i) == '}') {
                    i++;
                    return o;
                }
                while (true) {
                    ws();
                    String k = str();
                    ws();
                    i++; // :
                    Node v = value();
                    o.members.add(new Member(k.substring(1, k.length() - 1), v));
                    ws();
                    if (s.charAt(i++) == '}') {
                        return o;
                    }
                }
            }
            if (c == '[') {
                i++;
                Arr a = new Arr();
                ws();
                if (s.charAt(i) == ']') {
                    i++;
                    return a;
                }
                while (true) {
                    a.items.add(value());
                    ws();
                    if (s.charAt(i++) == ']') {
                        return a;
                    }
                }
            }
            if (c == '"') {
                return new Raw(str());
            }
            int start = i;
            while (i < s.length() && ",}] \t\r\n".indexOf(s.charAt(i)) < 0) {
                i++;
            }
            return new Raw(s.substring(start, i));
        }
    }

    static Node copy(Node n) {
        if (n instanceof Obj o) {
            Obj c = new Obj();
            for (Member m : o.members) {
                c.members.add(new Member(m.key(), copy(m.value())));
            }
            return c;
        }
        if (n instanceof Arr a) {
            Arr c = new Arr();
            for (Node x : a.items) {
                c.items.add(copy(x));
            }
            return c;
        }
        return n;
    }

    static void write(Node n, StringBuilder b, int style, Random r) {
        if (n instanceof Raw raw) {
            b.append(raw.text());
        } else if (n instanceof Obj o) {
            b.append('{');
            for (int k = 0; k < o.members.size(); k++) {
                if (k > 0) {
                    b.append(',').append(sep(style, r));
                }
                Member m = o.members.get(k);
                b.append('"').append(m.key()).append('"').append(colon(style, r));
                write(m.value(), b, style, r);
            }
            b.append('}');
        } else {
            Arr a = (Arr) n;
            b.append('[');
            for (int k = 0; k < a.items.size(); k++) {
                if (k > 0) {
                    b.append(',').append(sep(style, r));
                }
                write(a.items.get(k), b, style, r);
            }
            b.append(']');
        }
    }

    static final String[] SPACES = {"", " ", "\t", "\n", "\r\n", "  ", " \t "};

    static String sep(int style, Random r) {
        return style == 0 ? " " : style == 1 ? "" : SPACES[r.nextInt(SPACES.length)];
    }

    static String colon(int style, Random r) {
        return style == 0 ? ": " : style == 1 ? ":" : SPACES[r.nextInt(SPACES.length)] + ":" + SPACES[r.nextInt(SPACES.length)];
    }

    // ---------- value pools ----------
    static final String[] NUMBERS = {"0", "-0", "0.0", "-0.0", "0.00", "-0.00", "0e0", "-0e0", "-0E-0", "0.0e5", "1", "-1",
        "1.0", "-1.0", "1.5", "-1.5", "1e3", "1E3", "1e+3", "1e-3", "1e03", "1.5e300", "1e308", "1.7976931348623157e308",
        "1.7976931348623158e308", "1.7976931348623159e308", "1e309", "-1e309", "4.9e-324", "2e-324", "3e-324", "1e-400",
        "-1e-400", "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740993.0",
        "9007199254740993.5", "900719925474099.3", "90071992547409.93", "123456789012345678", "-123456789012345678",
        "999999999999999999", "-999999999999999999", "1000000000000000000", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "9.223372036854775807e18", "9.223372036854775808E18",
        "9223372036854775807.0", "9223372036854774784.0", "9223372036854775808.0", "-9223372036854775808.0",
        "-9223372036854775809.0", "1e18", "1e19", "-1e18", "-1e19", "0.1", "0.3", "123.456", "1408.41", "355427.90",
        "0.454326", "27187791", "27187791.0", "27187791.5", "3.0", "3.00000000000000000001", "2.9999999999999999999",
        "0.0000000000000000000001", "0.00000000000000000000001", "1234567.1234567891", "1234567.123456789",
        "100000000000000000000", "1e22", "1e23", "1.e1", "01", "-01", "00", ".5", "+1", "-", "NaN", "Infinity",
        "-Infinity", "1_0", "0x10", "1.5.5", "2-1", "1e", "1e+", "4503599627370496.5", "4503599627370497.5",
        "0.30000000000000004", "2.2250738585072011e-308", "2.2250738585072012e-308", "1.00000000000000011102230246251565",
        "999999999999999999.0", "99999999999999999.9", "9999999999999999.99", "12345678901234567.8",
        "1234567890123456.78", "0.123456789012345678", "0.1234567890123456789", "1" + "0".repeat(62) + ".5",
        "4611686018427387904.0", "4.611686018427387904e18", "-4611686018427387904.0", "4611686018427387904.5",
        "9007199254740993.0e0", "-0.0e-5",
        "1" + "0".repeat(63), "1" + "0".repeat(64), "0." + "0".repeat(61) + "1", "0." + "0".repeat(62) + "1",
        "0." + "0".repeat(63) + "1", "-1" + "0".repeat(62), "-1" + "0".repeat(63), "1e" + "0".repeat(61) + "1",
        "23", "24", "-23", "6", "7"};

    static final String UUID_LOWER = "92e0490b-f666-47c5-8c1a-dd0688c6fc87";
    static final String[] STRINGS = {"", "x", "signer", "owner", "admin", "proposer", "viewer", "guest", "Signer", "SIGNER",
        " signer", "signer ", "pilot", "role", UUID_LOWER, UUID_LOWER.toUpperCase(), "92E0490b-F666-47c5-8c1a-DD0688c6fc87",
        "{" + UUID_LOWER + "}", UUID_LOWER.replace("-", ""), UUID_LOWER.substring(1), UUID_LOWER + "0",
        UUID_LOWER.replace('e', 'g'), "urn:uuid:" + UUID_LOWER, "92e0490b-f666-47c5-8c1a+dd0688c6fc87",
        "92e0490b_f666-47c5-8c1a-dd0688c6fc87", "00000000-0000-0000-0000-000000000000",
        "2026-11-02T00:09:04Z", "2026-11-02T00:09:04.5Z", "2026-11-02T00:09:04.123456789Z",
        "2026-11-02T00:09:04.1234567891Z", "2026-11-02T00:09:04+01:00", "2026-11-02T00:09:04-00:00",
        "2026-11-02T00:09:04+00:00", "2026-11-02T24:00:00Z", "2026-12-31T23:59:60Z", "2026-11-02T23:59:60Z",
        "2026-11-02T12:30:60Z", "2026-11-02t00:09:04z", "2026-11-02 00:09:04Z", "2026-02-29T00:00:00Z",
        "2024-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "0000-01-01T00:00:00Z",
        "0000-02-29T00:00:00Z", "9999-12-31T23:59:59Z", "+10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z",
        "-1000000000-01-01T00:00:00Z", "+1000000000-12-31T23:59:59Z", "-999999999-01-01T00:00:00Z",
        "+999999999-12-31T23:59:59Z", "+999999999-12-31T23:59:59.999999999Z", "-999999999-01-01T00:00:00.000000001Z",
        "+999999999-12-31T23:59:59+01:00", "-999999999-01-01T00:00:00-01:00", "2026-11-02T00:09Z", "2026-11-02",
        "2026-11-02T00:09:04", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2026-11-02T00:09:04+18:00",
        "2026-11-02T00:09:04+19:00", "2026-11-02T00:09:04+01", "2026-11-02T00:09:04+0100", "2026-13-02T00:09:04Z",
        "2026-11-31T00:09:04Z", "2026-11-00T00:09:04Z", "2026-11-02T00:60:04Z", "2026-1a-02T00:09:04Z",
        "20261-11-02T00:09:04Z", "2026-11-02T00:09:04.Z", "2026-11-02T00:09:04,5Z",
        "withdrawal.create", "web3.contract_call", "withdrawal.settled", "Withdrawal.Create", "executed", "success",
        "failed", "FAILED", "ETHEREUM_MAINNET", "0x9474bfd290aa63e670a8ad0f0ad082b5114b5ea0",
        "0x9474BFD290AA63E670A8AD0F0AD082B5114B5EA0", "0xa9059cbb", "6900000000", "-1", "1e3", "true", "null", "a\\u0030",
        "\\n", "tab\there", "del\u007fx", "\u00e9", "a\\\"b", "Monday", "context", "hour"};

    static final String[] LITERALS = {"true", "false", "null", "True", "nul", "truex"};

    /** Every name the schema and the readers know, and near misses. */
    static final List<String> NAMES = new ArrayList<>();

    static {
        NAMES.addAll(List.of("id", "action", "wallet_id", "workspace_id", "at", "raw_transaction", "method_name",
                "network_code", "event", "value_usd", "status", "context", "hour", "day_of_week", "", "Id", "ID", "AT",
                "walletId", "wallet_Id", "wallet_idx", "wallet", "workspace", "principal", "withdrawal", "resource",
                "Resource", "withdrawals", "principle", "walet", "contexts", "decoded_arg", "amount ", " amount"));
        for (Section s : Section.values()) {
            NAMES.add(s.wireName());
            for (FieldSpec f : FieldSchema.fields(s)) {
                String n = f.name();
                NAMES.add(n);
                NAMES.add(n.toUpperCase());
                if (n.length() > 2) {
                    NAMES.add(n.substring(0, n.length() - 1));
                    NAMES.add(n + "s");
                    // same length, same first and last eight bytes when long enough, one byte changed in the middle
                    char[] c = n.toCharArray();
                    int mid = n.length() / 2;
                    c[mid] = c[mid] == 'x' ? 'y' : 'x';
                    NAMES.add(new String(c));
                    // two middle characters swapped
                    char[] d = n.toCharArray();
                    if (n.length() > 4) {
                        char t = d[mid];
                        d[mid] = d[mid - 1];
                        d[mid - 1] = t;
                        NAMES.add(new String(d));
                    }
                }
            }
        }
    }

    static final List<String> KNOWN = new ArrayList<>();

    static {
        KNOWN.addAll(List.of("id", "action", "wallet_id", "workspace_id", "at", "raw_transaction", "method_name",
                "network_code", "event", "value_usd", "status", "context"));
        for (Section s : Section.values()) {
            KNOWN.add(s.wireName());
            for (FieldSpec f : FieldSchema.fields(s)) {
                KNOWN.add(f.name());
            }
        }
    }

    static String q(String s) {
        return "\"" + s + "\"";
    }

    static Node scalar(Random r) {
        switch (r.nextInt(10)) {
            case 0, 1, 2 -> {
                return new Raw(NUMBERS[r.nextInt(NUMBERS.length)]);
            }
            case 3 -> {
                return new Raw(randomNumber(r));
            }
            case 4, 5, 6 -> {
                return new Raw(q(STRINGS[r.nextInt(STRINGS.length)]));
            }
            case 7 -> {
                return new Raw(LITERALS[r.nextInt(r.nextInt(6) == 0 ? LITERALS.length : 3)]);
            }
            case 8 -> {
                int[] lens = {1023, 1024, 1025, 16383, 16384, 16385, 16386, 128, 129, 0};
                int len = lens[r.nextInt(lens.length)];
                return new Raw(q("a".repeat(len)));
            }
            default -> {
                return structure(r, 0);
            }
        }
    }

    static String randomNumber(Random r) {
        StringBuilder b = new StringBuilder();
        if (r.nextInt(3) == 0) {
            b.append('-');
        }
        int intDigits = 1 + r.nextInt(r.nextBoolean() ? 20 : 66);
        b.append(r.nextInt(8) == 0 ? '0' : (char) ('1' + r.nextInt(9)));
        for (int k = 1; k < intDigits; k++) {
            b.append((char) ('0' + r.nextInt(10)));
        }
        if (r.nextBoolean()) {
            b.append('.');
            int frac = 1 + r.nextInt(r.nextBoolean() ? 8 : 30);
            for (int k = 0; k < frac; k++) {
                b.append((char) ('0' + r.nextInt(10)));
            }
        }
        if (r.nextInt(4) == 0) {
            b.append(r.nextBoolean() ? 'e' : 'E');
            int pick = r.nextInt(3);
            if (pick == 1) {
                b.append('-');
            } else if (pick == 2) {
                b.append('+');
            }
            b.append(r.nextInt(r.nextBoolean() ? 30 : 400));
        }
        return b.toString();
    }

    static Node structure(Random r, int depth) {
        int kind = r.nextInt(depth > 10 ? 2 : 5);
        if (kind == 0) {
            return new Raw(r.nextBoolean() ? NUMBERS[r.nextInt(NUMBERS.length)] : q(STRINGS[r.nextInt(STRINGS.length)]));
        }
        if (kind == 1) {
            return new Raw(LITERALS[r.nextInt(3)]);
        }
        if (kind == 2 || kind == 3) {
            Obj o = new Obj();
            int n = r.nextInt(4);
            for (int k = 0; k < n; k++) {
                String key = r.nextInt(3) == 0 ? NAMES.get(r.nextInt(NAMES.size())) : "k" + r.nextInt(4);
                o.members.add(new Member(key, structure(r, depth + 1)));
            }
            return o;
        }
        Arr a = new Arr();
        int n = r.nextInt(4);
        for (int k = 0; k < n; k++) {
            a.items.add(structure(r, depth + 1));
        }
        return a;
    }

    /** decoded_args near its limits: depth 8/9, 1000 values, key lengths 128/129, total chars 65536. */
    static Node decodedArgs(Random r) {
        switch (r.nextInt(7)) {
            case 0 -> { // nesting exactly at / past the limit
                int depth = 6 + r.nextInt(5);
                Node inner = new Raw(r.nextBoolean() ? "1" : q("v"));
                if (r.nextInt(4) == 0) {
                    inner = new Obj();
                }
                for (int d = 0; d < depth; d++) {
                    if (r.nextBoolean()) {
                        Arr a = new Arr();
                        a.items.add(inner);
                        inner = a;
                    } else {
                        Obj o = new Obj();
                        o.members.add(new Member("n", inner));
                        inner = o;
                    }
                }
                if (!(inner instanceof Obj)) {
                    Obj o = new Obj();
                    o.members.add(new Member("n", inner));
                    inner = o;
                }
                return inner;
            }
            case 1 -> { // about 1000 values
                int count = 995 + r.nextInt(10);
                Obj o = new Obj();
                if (r.nextBoolean()) {
                    for (int k = 0; k < count - 1; k++) {
                        o.members.add(new Member("k" + k, new Raw(r.nextInt(5) == 0 ? "null" : "1")));
                    }
                } else {
                    Arr a = new Arr();
                    for (int k = 0; k < count - 2; k++) {
                        a.items.add(new Raw("1"));
                    }
                    o.members.add(new Member("list", a));
                }
                return o;
            }
            case 2 -> { // keys near 128
                Obj o = new Obj();
                o.members.add(new Member("k".repeat(126 + r.nextInt(4)), new Raw("1")));
                return o;
            }
            case 3 -> { // strings near 16384 and total near 65536
                Obj o = new Obj();
                int parts = r.nextInt(5) + 1;
                for (int k = 0; k < parts; k++) {
                    int len = 16383 + r.nextInt(3) - (r.nextBoolean() ? 2 : 0);
                    o.members.add(new Member("s" + k, new Raw(q("b".repeat(len)))));
                }
                return o;
            }
            default -> {
                Node n = structure(r, 0);
                if (n instanceof Obj || r.nextInt(4) == 0) {
                    return n;
                }
                Obj o = new Obj();
                o.members.add(new Member("x", n));
                return o;
            }
        }
    }

    // ---------- mutations ----------
    static List<Obj> objects(Obj top) {
        List<Obj> out = new ArrayList<>();
        collect(top, out, 0);
        return out;
    }

    static void collect(Node n, List<Obj> out, int depth) {
        if (n instanceof Obj o) {
            out.add(o);
            for (Member m : o.members) {
                collect(m.value(), out, depth + 1);
            }
        } else if (n instanceof Arr a) {
            for (Node x : a.items) {
                collect(x, out, depth + 1);
            }
        }
    }

    static Obj pick(Obj top, Random r) {
        // top-level object or one of its direct section objects, mostly
        if (r.nextInt(3) == 0) {
            return top;
        }
        List<Obj> sections = new ArrayList<>();
        for (Member m : top.members) {
            if (m.value() instanceof Obj o) {
                sections.add(o);
            }
        }
        if (sections.isEmpty() || r.nextInt(8) == 0) {
            List<Obj> all = objects(top);
            return all.get(r.nextInt(all.size()));
        }
        return sections.get(r.nextInt(sections.size()));
    }

    static Node valueFor(String key, Random r) {
        if (key.equals("decoded_args") && r.nextBoolean()) {
            return decodedArgs(r);
        }
        if (Section.fromWireName(key).isPresent() && r.nextBoolean()) {
            Obj o = new Obj();
            Section s = Section.fromWireName(key).get();
            List<FieldSpec> fs = FieldSchema.fields(s);
            for (FieldSpec f : fs) {
                if (r.nextInt(3) > 0) {
                    o.members.add(new Member(f.name(), typical(f, r)));
                }
            }
            return o;
        }
        return scalar(r);
    }

    /** A value of the field's type, mostly acceptable. */
    static Node typical(FieldSpec f, Random r) {
        return switch (f.type()) {
            case STRING -> new Raw(q(f.enumValues().isEmpty() ? "s" + r.nextInt(10)
                    : f.enumValues().get(r.nextInt(f.enumValues().size()))));
            case BOOLEAN -> new Raw(r.nextBoolean() ? "true" : "false");
            case NUMBER -> new Raw(r.nextBoolean() ? String.valueOf(r.nextInt(100000)) : r.nextInt(100000) + "." + r.nextInt(100));
            case INTEGER -> new Raw(String.valueOf(r.nextInt(1000)));
            case MAP -> decodedArgs(r);
        };
    }

    static final String[] VALID_NUMBERS = {"0", "-0", "0.0", "-0.0", "0e0", "-0e0", "1e2", "1E+2", "3.0", "3.00", "100.0e-2",
        "9007199254740993.0", "999999999999999999", "9.223372036854775807e18", "9223372036854775807.0", "9.2233720368547748e18",
        "1e18", "4.9e-324", "1.7976931348623157e308", "0.1", "1e-400", "-1e-400", "1234567.1234567891", "27187791.000000000001",
        "123456789012345678", "0.000001", "5e-1", "12.5e1", "1.0000000000000002", "2.5", "-0.0e5", "0.0000000000000000000000",
        "4611686018427387904.0", "4.611686018427387904e18", "-4611686018427387904.0"};

    static void benign(Obj top, Random r) {
        List<Member> secs = new ArrayList<>();
        for (Member m : top.members) {
            if (m.value() instanceof Obj) {
                secs.add(m);
            }
        }
        int op = r.nextInt(6);
        if (op == 0) {
            Collections.shuffle(top.members, r);
            return;
        }
        if (secs.isEmpty()) {
            return;
        }
        Member sm = secs.get(r.nextInt(secs.size()));
        Obj sec = (Obj) sm.value();
        Section s = Section.fromWireName(sm.key()).orElse(null);
        if (op == 1) {
            Collections.shuffle(sec.members, r);
        } else if (op == 2 && !sec.members.isEmpty()) {
            sec.members.remove(r.nextInt(sec.members.size()));
        } else if (s != null && s != Section.CONTEXT) {
            // a field of the section, added or replaced, with a boundary value of about its type
            List<FieldSpec> fs = FieldSchema.fields(s);
            FieldSpec f = fs.get(r.nextInt(fs.size()));
            Node v;
            switch (f.type()) {
                case NUMBER, INTEGER -> v = new Raw(r.nextInt(3) == 0 ? randomNumber(r) : VALID_NUMBERS[r.nextInt(VALID_NUMBERS.length)]);
                case STRING -> v = r.nextInt(4) == 0 ? new Raw(q("z".repeat(1020 + r.nextInt(8))))
                        : new Raw(q(STRINGS[r.nextInt(STRINGS.length)]));
                case BOOLEAN -> v = new Raw(r.nextBoolean() ? "true" : "false");
                default -> v = decodedArgs(r);
            }
            sec.members.removeIf(m -> m.key().equals(f.name()));
            sec.members.add(r.nextInt(sec.members.size() + 1), new Member(f.name(), v));
        }
    }

    static void mutate(Obj top, Random r) {
        if (r.nextInt(5) < 2) {
            benign(top, r);
            return;
        }
        Obj o = pick(top, r);
        int op = r.nextInt(14);
        switch (op) {
            case 0, 1, 2 -> { // replace a value
                if (!o.members.isEmpty()) {
                    int k = r.nextInt(o.members.size());
                    Member m = o.members.get(k);
                    o.members.set(k, new Member(m.key(), valueFor(m.key(), r)));
                }
            }
            case 3 -> { // delete
                if (!o.members.isEmpty()) {
                    o.members.remove(r.nextInt(o.members.size()));
                }
            }
            case 4 -> { // duplicate, same or other value
                if (!o.members.isEmpty()) {
                    Member m = o.members.get(r.nextInt(o.members.size()));
                    Node v = r.nextBoolean() ? copy(m.value()) : valueFor(m.key(), r);
                    o.members.add(r.nextInt(o.members.size() + 1), new Member(m.key(), v));
                }
            }
            case 5 -> { // copy a member into another object
                List<Obj> all = objects(top);
                Obj from = all.get(r.nextInt(all.size()));
                if (!from.members.isEmpty()) {
                    Member m = from.members.get(r.nextInt(from.members.size()));
                    o.members.add(r.nextInt(o.members.size() + 1), new Member(m.key(), copy(m.value())));
                }
            }
            case 6 -> { // rename a key
                if (!o.members.isEmpty()) {
                    int k = r.nextInt(o.members.size());
                    String name = r.nextInt(3) == 0 ? KNOWN.get(r.nextInt(KNOWN.size())) : NAMES.get(r.nextInt(NAMES.size()));
                    o.members.set(k, new Member(name, o.members.get(k).value()));
                }
            }
            case 7 -> { // insert a known name
                String name = r.nextBoolean() ? KNOWN.get(r.nextInt(KNOWN.size())) : NAMES.get(r.nextInt(NAMES.size()));
                o.members.add(r.nextInt(o.members.size() + 1), new Member(name, valueFor(name, r)));
            }
            case 8 -> Collections.shuffle(o.members, r);
            case 9 -> { // the other trigger
                for (int k = 0; k < top.members.size(); k++) {
                    if (top.members.get(k).key().equals("action")) {
                        String[] a = {"withdrawal.create", "web3.contract_call"};
                        top.members.set(k, new Member("action", new Raw(q(a[r.nextInt(2)]))));
                    }
                }
            }
            case 10 -> { // a section moved between actions: add a whole section
                String[] secs = {"principal", "withdrawal", "wallet", "workspace", "resource", "context"};
                String s = secs[r.nextInt(secs.length)];
                top.members.add(r.nextInt(top.members.size() + 1), new Member(s, valueFor(s, r)));
            }
            case 11 -> { // a top-level property set to a boundary string
                String[] props = {"id", "wallet_id", "workspace_id", "at", "action"};
                String p = props[r.nextInt(props.length)];
                Node v = r.nextInt(5) == 0 ? scalar(r) : new Raw(q(STRINGS[r.nextInt(STRINGS.length)]));
                boolean done = false;
                for (int k = 0; k < top.members.size(); k++) {
                    if (top.members.get(k).key().equals(p)) {
                        top.members.set(k, new Member(p, v));
                        done = true;
                        break;
                    }
                }
                if (!done) {
                    top.members.add(new Member(p, v));
                }
            }
            case 12 -> { // decoded_args near its limits
                for (Member m : top.members) {
                    if (m.value() instanceof Obj sec && m.key().equals("resource")) {
                        sec.members.removeIf(x -> x.key().equals("decoded_args"));
                        sec.members.add(r.nextInt(sec.members.size() + 1), new Member("decoded_args", decodedArgs(r)));
                    }
                }
            }
            default -> { // a typical value of the schema's type for a field
                for (Member m : top.members) {
                    Section s = Section.fromWireName(m.key()).orElse(null);
                    if (s != null && m.value() instanceof Obj sec && !sec.members.isEmpty()) {
                        int k = r.nextInt(sec.members.size());
                        FieldSpec f = FieldSchema.field(s, sec.members.get(k).key()).orElse(null);
                        if (f != null) {
                            sec.members.set(k, new Member(f.name(), typical(f, r)));
                        }
                    }
                }
            }
        }
    }

    // ---------- the oracle ----------
    static int fastReads;
    static int settlementReads;
    static int cases;
    static final Map<String, String> FAILURES = new LinkedHashMap<>();

    static void fail(String kind, String text, String detail) {
        if (FAILURES.size() < 60 && FAILURES.keySet().stream().filter(k -> k.startsWith(kind)).count() < 4) {
            FAILURES.put(kind + " #" + FAILURES.size(), detail + "\n   TEXT: " + (text.length() > 600 ? text.substring(0, 600) + "..." : text));
        }
    }

    /** Deep equality, class by class, doubles bit by bit. */
    static String diff(Object a, Object b, String path) {
        if (a == null || b == null) {
            return a == b ? null : path + ": " + a + " vs " + b;
        }
        if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
            if (!ma.keySet().equals(mb.keySet())) { // payload sections are unordered: the same keys, in any order
                return path + ": keys " + ma.keySet() + " vs " + mb.keySet();
            }
            for (Object k : ma.keySet()) {
                String d = diff(ma.get(k), mb.get(k), path + "." + k);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (a instanceof List<?> la && b instanceof List<?> lb) {
            if (la.size() != lb.size()) {
                return path + ": sizes";
            }
            for (int k = 0; k < la.size(); k++) {
                String d = diff(la.get(k), lb.get(k), path + "[" + k + "]");
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (a.getClass() != b.getClass()) {
            return path + ": class " + a.getClass().getSimpleName() + " " + a + " vs " + b.getClass().getSimpleName() + " " + b;
        }
        if (a instanceof Double da && Double.doubleToRawLongBits(da) != Double.doubleToRawLongBits((Double) b)) {
            return path + ": " + a + " vs " + b;
        }
        return a.equals(b) ? null : path + ": " + a + " vs " + b;
    }

    static void check(String text) {
        cases++;
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        boolean plain = JsonLine.action(bytes, 0, bytes.length) != null;
        if (plain) {
            fastReads++;
        } else if (JsonLine.settlement(bytes, 0, bytes.length) != null) {
            settlementReads++;
        }
        ActionReader.Result fast;
        ActionReader.Result general;
        try {
            fast = ActionReader.read(bytes, 0, bytes.length);
            general = ActionReader.read(new String(bytes, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            fail("throws", text, e.toString());
            return;
        }
        String tag = plain ? "[plain] " : "[other] ";
        // the same line inside a larger buffer, as a stream reads it
        byte[] big = new byte[bytes.length + 40];
        java.util.Arrays.fill(big, (byte) (cases % 3 == 0 ? '"' : cases % 3 == 1 ? '1' : 0x7f));
        System.arraycopy(bytes, 0, big, 17, bytes.length);
        ActionReader.Result embedded = ActionReader.read(big, 17, bytes.length);
        if (!embedded.equals(fast) || !embedded.toString().equals(fast.toString())) {
            fail(tag + "embedded", text, "embedded=" + embedded + "\n   alone=" + fast);
        }
        if (fast.getClass() != general.getClass()) {
            fail(tag + "class", text, "fast=" + fast + "\n   general=" + general);
            return;
        }
        if (!fast.equals(general) || !fast.toString().equals(general.toString())) {
            fail(tag + "result", text, "fast=" + fast + "\n   general=" + general);
            return;
        }
        if (fast instanceof ActionReader.Read fr) {
            Action a = fr.action();
            Action b = ((ActionReader.Read) general).action();
            String d = diff(a.sections(), b.sections(), "sections");
            if (d != null) {
                fail(tag + "sections", text, d);
                return;
            }
            // fresh checks of both actions (no remembered result) against what each remembered
            Action fa = new Action(a.id(), a.action(), a.walletId(), a.workspaceId(), a.at(), new LinkedHashMap<>(a.sections()));
            for (Instant at : new Instant[] {Instant.parse("2026-11-03T10:00:00Z"), a.at() == null ? Instant.EPOCH : a.at()}) {
                PayloadResult pa = PayloadValidator.validate(a, at);
                PayloadResult pb = PayloadValidator.validate(b, at);
                PayloadResult pf = PayloadValidator.validate(fa, at);
                compare(tag + "payload", text, pa, pb);
                compare(tag + "payload-vs-fresh", text, pa, pf);
            }
        } else if (fast instanceof ActionReader.SettlementRead s) {
            ActionReader.SettlementRead g = (ActionReader.SettlementRead) general;
            if (!Objects.equals(s.settlement().toString(), g.settlement().toString())) {
                fail(tag + "settlement", text, s + " vs " + g);
            }
        }
    }

    static void compare(String kind, String text, PayloadResult pa, PayloadResult pb) {
        if (pa.getClass() != pb.getClass() || !pa.equals(pb)) {
            fail(kind + " result", text, "fast=" + pa + "\n   general=" + pb);
            return;
        }
        if (pa instanceof PayloadResult.Valid va) {
            Payload x = va.payload();
            Payload y = ((PayloadResult.Valid) pb).payload();
            String zero = negativeZero(x.sections(), "payload");
            if (zero != null) {
                fail(kind + " -0.0", text, zero + " holds -0.0: a payload reads it as 0.0");
                return;
            }
            String d = diff(x.sections(), y.sections(), "payload");
            if (d != null) {
                fail(kind + " sections", text, d);
                return;
            }
            for (int s = 0; s < Payload.slotCount(); s++) {
                d = diff(x.slot(s), y.slot(s), "slot " + s);
                if (d != null) {
                    fail(kind + " slot", text, d);
                    return;
                }
            }
            for (Section s : Section.values()) {
                if (x.hasSection(s) != y.hasSection(s)) {
                    fail(kind + " mask", text, s.toString());
                    return;
                }
            }
            if (!Objects.equals(x.walletId(), y.walletId()) || !Objects.equals(x.instant(), y.instant())) {
                fail(kind + " ids", text, x.walletId() + " " + y.walletId() + " " + x.instant() + " " + y.instant());
            }
        }
    }

    /** Where a value holds a -0.0 (which no checked payload may hold), or null. */
    static String negativeZero(Object v, String path) {
        if (v instanceof Double d && Double.doubleToRawLongBits(d) == Long.MIN_VALUE) {
            return path;
        }
        if (v instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String found = negativeZero(e.getValue(), path + "." + e.getKey());
                if (found != null) {
                    return found;
                }
            }
        }
        if (v instanceof List<?> l) {
            for (int k = 0; k < l.size(); k++) {
                String found = negativeZero(l.get(k), path + "[" + k + "]");
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    static List<String> baseLines() throws IOException {
        List<String> lines = new ArrayList<>();
        Path stream = Path.of("../examples/actions/stream.jsonl");
        assertTrue(Files.exists(stream), stream.toAbsolutePath() + " is the fuzz's base");
        for (String l : Files.readAllLines(stream)) {
            if (!l.isBlank()) {
                lines.add(l);
            }
        }
        lines.add("{\"id\": \"a-000012\", \"action\": \"web3.contract_call\", "
                + "\"wallet_id\": \"AA0FE024-832E-4282-A4E2-C85E2B7AE138\", \"workspace_id\": \"00cd4ae6-310e-4566-99ae-1270f1ed5570\", "
                + "\"at\": \"2026-11-08T23:33:06Z\", \"principal\": {\"user_email\": \"farah@example.com\", \"role\": \"signer\"}, "
                + "\"resource\": {\"network_code\": \"ETHEREUM_MAINNET\", \"contract_address\": \"0x6b175474e89094c44da98b954eedeac495271d0f\", "
                + "\"method_selector\": \"0xa9059cbb\", \"value_wei\": \"0\", \"gas_limit\": 68510, "
                + "\"decoded_args\": {\"to\": \"0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c\", \"value\": \"6900000000\", "
                + "\"path\": [\"0xa\", 1, 2.5, true, {\"deep\": null}]}}}");
        return lines;
    }

    @Test
    void everyValueInEveryPlace() throws IOException {
        List<String> bases = baseLines();
        List<String> chosen = new ArrayList<>();
        chosen.add(bases.get(0));
        chosen.add(bases.get(bases.size() - 1));
        for (String l : bases) {
            if (l.contains("contract_call") && l.contains("method_name")) {
                chosen.add(l);
                break;
            }
        }
        List<Node> values = new ArrayList<>();
        for (String n : NUMBERS) {
            values.add(new Raw(n));
        }
        for (String n : STRINGS) {
            values.add(new Raw(q(n)));
        }
        for (String n : LITERALS) {
            values.add(new Raw(n));
        }
        for (String n : new String[] {"{}", "[]", "[1]", "{\"k\": 1}", "[null]", "{\"a\": null}", "\"" + "a".repeat(1024) + "\"",
            "\"" + "a".repeat(1025) + "\""}) {
            values.add(new Parser(n).value());
        }
        Random r = new Random(5);
        for (String line : chosen) {
            Obj base = (Obj) new Parser(line).value();
            // every top-level member and every section field, replaced by every value; and every known name added
            List<int[]> places = new ArrayList<>();
            for (int k = 0; k < base.members.size(); k++) {
                places.add(new int[] {k, -1});
                if (base.members.get(k).value() instanceof Obj sec) {
                    for (int f = 0; f < sec.members.size(); f++) {
                        places.add(new int[] {k, f});
                    }
                }
            }
            for (int[] place : places) {
                for (Node v : values) {
                    Obj t = (Obj) copy(base);
                    if (place[1] < 0) {
                        Member m = t.members.get(place[0]);
                        t.members.set(place[0], new Member(m.key(), v));
                    } else {
                        Obj sec = (Obj) t.members.get(place[0]).value();
                        Member m = sec.members.get(place[1]);
                        sec.members.set(place[1], new Member(m.key(), v));
                    }
                    StringBuilder b = new StringBuilder();
                    write(t, b, 0, r);
                    check(b.toString());
                }
            }
            for (String name : NAMES) {
                for (int k = -1; k < base.members.size(); k++) {
                    for (int rep = 0; rep < 3; rep++) {
                        Obj t = (Obj) copy(base);
                        Obj into = k < 0 ? t : t.members.get(k).value() instanceof Obj o ? o : null;
                        if (into == null) {
                            continue;
                        }
                        into.members.add(r.nextInt(into.members.size() + 1), new Member(name, valueFor(name, r)));
                        StringBuilder b = new StringBuilder();
                        write(t, b, 0, r);
                        check(b.toString());
                    }
                }
            }
        }
        verdict(2_000);
    }

    @Test
    void fuzz() throws IOException {
        long seed = Long.getLong("fuzz.seed", 20261125L);
        int count = Integer.getInteger("fuzz.cases", 20_000);
        Random r = new Random(seed);
        List<String> lines = baseLines();
        List<Obj> trees = new ArrayList<>();
        for (String l : lines) {
            trees.add((Obj) new Parser(l).value());
        }
        for (String l : lines.subList(0, Math.min(lines.size(), 3000))) {
            check(l);
        }
        for (int run = 0; run < count; run++) {
            Obj t = (Obj) copy(trees.get(r.nextInt(trees.size())));
            int edits = 1 + r.nextInt(r.nextInt(4) == 0 ? 6 : 3);
            for (int e = 0; e < edits; e++) {
                mutate(t, r);
            }
            StringBuilder b = new StringBuilder();
            int style = r.nextInt(10) < 6 ? 0 : r.nextInt(10) < 5 ? 1 : 2;
            write(t, b, style, r);
            String text = b.toString();
            if (r.nextInt(50) == 0) {
                text = (r.nextBoolean() ? " " : "") + text + (r.nextBoolean() ? " " : "\t");
            }
            check(text);
        }
        verdict(count / 10);
    }

    /** No difference, and both ways exercised: at least this many texts read in one pass and as many not. */
    private static void verdict(int atLeast) {
        StringBuilder failures = new StringBuilder();
        FAILURES.forEach((k, v) -> failures.append("\n").append(k).append(": ").append(v));
        assertTrue(FAILURES.isEmpty(), FAILURES.size() + " differences in " + cases + " texts:" + failures);
        assertTrue(fastReads + settlementReads >= atLeast, (fastReads + settlementReads) + " of " + cases
                + " texts read in one pass");
        assertTrue(cases - fastReads - settlementReads >= atLeast, (cases - fastReads - settlementReads) + " of "
                + cases + " texts left to the general path");
    }

    @org.junit.jupiter.api.BeforeEach
    void count() {
        cases = 0;
        fastReads = 0;
        settlementReads = 0;
        FAILURES.clear();
    }
}

package dev.custody.engine.check;

import dev.custody.engine.text.Suggestions;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Derives the {@code resource} section of a {@code web3.contract_call} from the body of an EVM
 * {@code signRaw} request ({@code POST /web3/transaction/{wallet_id}/signRaw}: {@code from}, {@code to},
 * {@code nonce}, {@code gasLimit}, {@code data}, {@code value}, {@code chainId}, {@code maxFeePerGas},
 * {@code maxPriorityFeePerGas}, {@code accessList}), the request's optional {@code method_name} metadata
 * and the network code.
 *
 * <h2>What it derives</h2>
 * <ul>
 *   <li>{@code contract_address}: {@code to}, lowercase; it must be {@code 0x} and 40 hex digits (the
 *       EIP-55 checksum of a mixed-case address is not verified);
 *   <li>{@code method_selector}: {@code 0x} and the first 4 bytes of {@code data}, lowercase; absent when
 *       {@code data} is empty or shorter than 4 bytes (a plain value transfer has no method), with a note;
 *       a rule that reads it unguarded then fails, which denies;
 *   <li>{@code value_wei}: {@code value} as a decimal string; {@code value} may be a hex ({@code 0x…}) or
 *       decimal string or a JSON integer, at most 2<sup>256</sup>-1; absent means 0, as in Ethereum's
 *       JSON-RPC;
 *   <li>{@code gas_limit}: {@code gasLimit}, hex or decimal, at most 2<sup>63</sup>-1; absent when not
 *       given;
 *   <li>{@code network_code} and {@code method_name} as given (absent when not given);
 *   <li>{@code decoded_args}: for the ERC-20 calls {@code transfer(address,uint256)} ({@code 0xa9059cbb}
 *       → {@code to}, {@code value}), {@code approve(address,uint256)} ({@code 0x095ea7b3} →
 *       {@code spender}, {@code value}) and {@code transferFrom(address,address,uint256)}
 *       ({@code 0x23b872dd} → {@code from}, {@code to}, {@code value}), with addresses as lowercase
 *       {@code 0x} hex and amounts as decimal strings; an empty map for any other call.
 * </ul>
 *
 * <h2>Strict ABI decoding</h2>
 * Arguments are decoded only when the calldata is exactly 4 + 32·n bytes and every address word has its
 * 12 bytes of left padding at zero. Anything else (an odd number of hex digits, a short or long body,
 * dirty padding) gives an empty {@code decoded_args} and a note, so {@code has(resource.decoded_args.to)}
 * is false and a rule cannot be fooled into reading a value the token contract would read differently.
 * The selector is still derived, so a rule on the selector alone keeps working.
 *
 * <h2>What it refuses (fail-closed)</h2>
 * A {@link ContractCallResult.Rejected} result, which denies the action, for: a missing or malformed
 * {@code to} (a contract creation has none and is not a contract call); {@code data} that is not
 * {@code 0x}-prefixed hex; a {@code value} or {@code gasLimit} that is not a non-negative integer in its
 * range; a field that is not part of the EVM body (with a "did you mean"); and Solana transactions.
 *
 * <h2>Solana</h2>
 * The spec lets wallets sign raw Solana transactions ({@code data} base64, {@code meta.tx_method},
 * {@code chainId} {@code "1399811149"}), but policy rules guard EVM contract calls and ERC-20 transfers
 * only, and every {@code resource} field is EVM-shaped: a Solana transaction has no {@code to}, selector
 * or gas limit, and one transaction can carry many instructions moving any token. Deriving a partial
 * section would let such a request reach a NO_MATCH or even an ALLOW that no rule meant for it. So a body
 * recognized as Solana (a {@code meta} field, the Solana {@code chainId}, or a {@code SOL_…} network
 * code) is refused: a Solana signing request submitted as {@code web3.contract_call} is denied
 * fail-closed, and the service sends Solana signing through its normal approval flow instead.
 *
 * <p>Stateless and thread-safe.
 */
final class ContractCallDecoder {
    /** The fields of an EVM {@code signRaw} body. */
    public static final List<String> EVM_FIELDS = List.of("from", "to", "nonce", "gasLimit", "data", "value",
            "chainId", "maxFeePerGas", "maxPriorityFeePerGas", "accessList");

    /** The {@code chainId} Solana requests carry. */
    static final String SOLANA_CHAIN_ID = "1399811149";

    private static final BigInteger MAX_UINT256 = BigInteger.ONE.shiftLeft(256).subtract(BigInteger.ONE);
    private static final BigInteger MAX_LONG = BigInteger.valueOf(Long.MAX_VALUE);
    private static final int MAX_QUANTITY_CHARS = 130;
    private static final Set<String> EVM_FIELD_SET = Set.copyOf(EVM_FIELDS);

    private ContractCallDecoder() {}

    /** An ERC-20 call the decoder knows. */
    private enum Erc20 {
        TRANSFER("0xa9059cbb", "transfer(address,uint256)", "to", "value"),
        APPROVE("0x095ea7b3", "approve(address,uint256)", "spender", "value"),
        TRANSFER_FROM("0x23b872dd", "transferFrom(address,address,uint256)", "from", "to", "value");

        final String selector;
        final String signature;
        final List<String> names;

        Erc20(String selector, String signature, String... names) {
            this.selector = selector;
            this.signature = signature;
            this.names = List.of(names);
        }

        String function() {
            return signature.substring(0, signature.indexOf('('));
        }

        /** Whether argument {@code i} is an address (the others are uint256). */
        boolean isAddress(int i) {
            return i < names.size() - 1;
        }

        static Erc20 bySelector(String selector) {
            for (Erc20 e : values()) {
                if (e.selector.equals(selector)) {
                    return e;
                }
            }
            return null;
        }
    }

    /**
     * Derives the {@code resource} section. Never throws for malformed content.
     *
     * @param rawTransaction the signRaw body as parsed JSON (maps, lists, strings, numbers)
     * @param methodName the request's {@code method_name} metadata, or null
     * @param networkCode the network code, or null
     */
    public static ContractCallResult decode(Map<String, ?> rawTransaction, String methodName, String networkCode) {
        Objects.requireNonNull(rawTransaction, "rawTransaction");
        if (isSolana(rawTransaction, networkCode)) {
            return new ContractCallResult.Rejected("`raw_transaction` is a solana transaction: `web3.contract_call` "
                    + "rules guard evm contract calls only, so it is refused");
        }
        for (String key : rawTransaction.keySet()) {
            if (!EVM_FIELD_SET.contains(key)) {
                String hint = Suggestions.closest(key, EVM_FIELDS)
                        .map(s -> " (did you mean `raw_transaction." + s + "`?)").orElse("");
                return new ContractCallResult.Rejected("unknown field `raw_transaction." + clip(key) + "`" + hint);
            }
        }
        try {
            List<String> notes = new ArrayList<>();
            Map<String, Object> resource = new LinkedHashMap<>();
            if (networkCode != null) {
                resource.put("network_code", networkCode);
            }
            resource.put("contract_address", address(rawTransaction.get("to")));
            Calldata data = calldata(rawTransaction.get("data"), notes);
            String selector = null;
            if (data != null && data.bytes().length >= 4) {
                selector = "0x" + hex(data.bytes(), 0, 4);
                resource.put("method_selector", selector);
            }
            if (methodName != null) {
                resource.put("method_name", methodName);
                checkMethodName(methodName, selector, notes);
            }
            Object value = rawTransaction.get("value");
            resource.put("value_wei", value == null ? "0" : quantity(value, "value", MAX_UINT256).toString());
            Object gas = rawTransaction.get("gasLimit");
            if (gas != null) {
                resource.put("gas_limit", quantity(gas, "gasLimit", MAX_LONG).longValueExact());
            }
            resource.put("decoded_args", data == null || selector == null ? Map.of() : arguments(selector, data, notes));
            return new ContractCallResult.Decoded(resource, notes);
        } catch (Refused r) {
            return new ContractCallResult.Rejected(r.getMessage());
        }
    }

    private static boolean isSolana(Map<String, ?> raw, String networkCode) {
        Object chain = raw.get("chainId");
        return raw.containsKey("meta")
                || (networkCode != null && networkCode.startsWith("SOL_"))
                || (chain != null && SOLANA_CHAIN_ID.equals(String.valueOf(chain)));
    }

    private static String address(Object raw) throws Refused {
        if (raw == null) {
            throw new Refused("`raw_transaction.to` is missing (a contract creation is not a contract call)");
        }
        if (!(raw instanceof String s)) {
            throw new Refused("`raw_transaction.to` must be a string");
        }
        if (s.length() != 42 || !hasHexPrefix(s) || !isHex(s, 2, s.length())) {
            throw new Refused("`raw_transaction.to` `" + clip(s) + "` is not an address (`0x` and 40 hex digits)");
        }
        return s.toLowerCase(Locale.ROOT);
    }

    /** Calldata: its whole bytes, and whether a trailing half byte (an odd digit count) was dropped. */
    private record Calldata(byte[] bytes, boolean odd) {}

    /** The calldata, or null when there is none. */
    private static Calldata calldata(Object raw, List<String> notes) throws Refused {
        if (raw == null) {
            notes.add("no calldata (a plain value transfer): `resource.method_selector` is absent");
            return null;
        }
        if (!(raw instanceof String s)) {
            throw new Refused("`raw_transaction.data` must be a hex string");
        }
        if (!hasHexPrefix(s) || !isHex(s, 2, s.length())) {
            throw new Refused("`raw_transaction.data` `" + clip(s) + "` is not `0x`-prefixed hex");
        }
        int digits = s.length() - 2;
        if (digits == 0) {
            notes.add("no calldata (a plain value transfer): `resource.method_selector` is absent");
            return null;
        }
        byte[] bytes = new byte[digits / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) ((hexDigit(s.charAt(2 + 2 * i)) << 4) | hexDigit(s.charAt(3 + 2 * i)));
        }
        if (digits % 2 != 0) {
            notes.add("calldata has an odd number of hex digits (" + digits + "): arguments not decoded");
        }
        if (bytes.length < 4) {
            notes.add("calldata is shorter than a 4-byte selector: `resource.method_selector` is absent");
        }
        return new Calldata(bytes, digits % 2 != 0);
    }

    private static Map<String, Object> arguments(String selector, Calldata calldata, List<String> notes) {
        Erc20 call = Erc20.bySelector(selector);
        if (call == null || calldata.odd()) {
            return Map.of();
        }
        byte[] data = calldata.bytes();
        int expected = 4 + 32 * call.names.size();
        if (data.length != expected) {
            notes.add("calldata of `" + call.signature + "` is " + data.length + " bytes, not " + expected
                    + ": arguments not decoded");
            return Map.of();
        }
        Map<String, Object> args = new LinkedHashMap<>();
        for (int i = 0; i < call.names.size(); i++) {
            int off = 4 + 32 * i;
            if (call.isAddress(i)) {
                for (int j = off; j < off + 12; j++) {
                    if (data[j] != 0) {
                        notes.add("argument `" + call.names.get(i) + "` of `" + call.signature
                                + "` has non-zero address padding: arguments not decoded");
                        return Map.of();
                    }
                }
                args.put(call.names.get(i), "0x" + hex(data, off + 12, 20));
            } else {
                byte[] word = new byte[32];
                System.arraycopy(data, off, word, 0, 32);
                args.put(call.names.get(i), new BigInteger(1, word).toString());
            }
        }
        return Collections.unmodifiableMap(args);
    }

    private static void checkMethodName(String methodName, String selector, List<String> notes) {
        int paren = methodName.indexOf('(');
        String bare = paren < 0 ? methodName : methodName.substring(0, paren);
        for (Erc20 e : Erc20.values()) {
            if (e.function().equals(bare) && !e.selector.equals(selector)) {
                notes.add("`method_name` `" + clip(methodName) + "` does not match the selector "
                        + (selector == null ? "(none)" : "`" + selector + "`") + "; rules see the selector as sent");
                return;
            }
        }
    }

    /** A non-negative integer from a hex ({@code 0x…}) or decimal string, or a JSON integer. */
    private static BigInteger quantity(Object raw, String field, BigInteger max) throws Refused {
        BigInteger v;
        if (raw instanceof String s) {
            boolean hex = hasHexPrefix(s);
            int from = hex ? 2 : 0;
            if (s.length() == from || s.length() > MAX_QUANTITY_CHARS
                    || !(hex ? isHex(s, from, s.length()) : isDecimal(s))) {
                throw new Refused("`raw_transaction." + field + "` `" + clip(s)
                        + "` is not a hex (`0x…`) or decimal integer");
            }
            v = new BigInteger(s.substring(from), hex ? 16 : 10);
        } else if (raw instanceof Integer || raw instanceof Long || raw instanceof Short || raw instanceof Byte) {
            v = BigInteger.valueOf(((Number) raw).longValue());
        } else if (raw instanceof BigInteger b) {
            v = b;
        } else {
            throw new Refused("`raw_transaction." + field + "` must be an integer, as a hex (`0x…`) or decimal string");
        }
        if (v.signum() < 0) {
            throw new Refused("`raw_transaction." + field + "` must not be negative, got " + v);
        }
        if (v.compareTo(max) > 0) {
            throw new Refused("`raw_transaction." + field + "` is out of range: at most "
                    + (max == MAX_UINT256 ? "2^256-1" : max.toString()));
        }
        return v;
    }

    private static boolean hasHexPrefix(String s) {
        return s.length() >= 2 && s.charAt(0) == '0' && (s.charAt(1) == 'x' || s.charAt(1) == 'X');
    }

    private static boolean isHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (hexDigit(s.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** The value of an ASCII hex digit, or -1 (unlike {@link Character#digit}, no other scripts' digits). */
    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static boolean isDecimal(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static String hex(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder(len * 2);
        for (int i = off; i < off + len; i++) {
            sb.append(Character.forDigit((b[i] >> 4) & 0xf, 16)).append(Character.forDigit(b[i] & 0xf, 16));
        }
        return sb.toString();
    }

    private static String clip(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }

    private static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null, false, false);
        }
    }
}

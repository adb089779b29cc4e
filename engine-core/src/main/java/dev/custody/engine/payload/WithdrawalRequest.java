package dev.custody.engine.payload;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * A withdrawal as requested, before policy: what becomes the requested part of the {@code withdrawal}
 * section. Values are not range-checked here; the evaluator checks the payload and denies a malformed one
 * (e.g. a negative amount). Immutable and thread-safe.
 *
 * @param amount the requested asset amount
 * @param valueUsd its value in USD
 * @param assetSymbol the asset symbol, e.g. {@code USDC}
 * @param assetIsNative whether the asset is the network's native asset
 * @param networkCode the internal network code, e.g. {@code ETHEREUM_MAINNET}
 * @param destinationAddress the recipient address, as requested
 */
public record WithdrawalRequest(BigDecimal amount, BigDecimal valueUsd, String assetSymbol, boolean assetIsNative,
        String networkCode, String destinationAddress) {
    public WithdrawalRequest {
        Objects.requireNonNull(amount, "amount");
        Objects.requireNonNull(valueUsd, "valueUsd");
        Objects.requireNonNull(assetSymbol, "assetSymbol");
        Objects.requireNonNull(networkCode, "networkCode");
        Objects.requireNonNull(destinationAddress, "destinationAddress");
    }
}

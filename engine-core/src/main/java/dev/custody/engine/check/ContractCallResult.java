package dev.custody.engine.check;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link ContractCallDecoder} made of a raw transaction: the {@code resource} section, or why the
 * transaction cannot be decided on.
 */
sealed interface ContractCallResult permits ContractCallResult.Decoded, ContractCallResult.Rejected {

    /**
     * The {@code resource} section derived from the transaction, with notes on what could not be decoded
     * (e.g. calldata of a known ERC-20 selector with the wrong length). A note never changes the decision
     * by itself: the section is what rules see; the notes are for the trace.
     *
     * @param resource the section, field name to value, in the schema's order
     * @param notes one line each, lowercase; empty when everything was decoded
     */
    record Decoded(Map<String, Object> resource, List<String> notes) implements ContractCallResult {
        public Decoded {
            resource = Collections.unmodifiableMap(new LinkedHashMap<>(resource));
            notes = List.copyOf(notes);
        }
    }

    /**
     * The transaction is malformed or not an EVM contract call; the action must be denied fail-closed.
     *
     * @param error one line naming the field, lowercase, user input in backticks
     */
    record Rejected(String error) implements ContractCallResult {
        public Rejected {
            Objects.requireNonNull(error, "error");
        }
    }
}

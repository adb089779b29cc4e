package dev.custody.engine.check;

import dev.custody.engine.payload.Action;
import dev.custody.engine.text.Printable;
import java.util.Objects;

/** The outcome of checking an {@link Action}: a {@link Payload}, or the reason it is malformed. */
public sealed interface PayloadResult permits PayloadResult.Valid, PayloadResult.Invalid {

    /** The action is well-formed. */
    record Valid(Payload payload) implements PayloadResult {
        public Valid {
            Objects.requireNonNull(payload, "payload");
        }
    }

    /** The action is malformed; {@code error} is a one-line message naming the field. */
    record Invalid(String error) implements PayloadResult {
        public Invalid {
            // one line whatever the quoted input holds
            error = Printable.of(Objects.requireNonNull(error, "error"));
        }
    }
}

package dev.custody.analysis;

/** A condition uses a construct the SMT encoding does not cover; the message is the reason, one line. */
final class OutsideFragment extends Exception {
    private static final long serialVersionUID = 1L;

    OutsideFragment(String reason) {
        super(reason, null, false, false);
    }
}

package dev.custody.cli.repl;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The REPL's commands: their names, synopses and one-line descriptions. {@code :help}, tab completion and
 * the "did you mean" of an unknown command all read this table, so they cannot drift apart.
 */
enum Verb {
    ACTION("action", "[A]", "switch the trigger action: withdrawal.create | web3.contract_call"),
    LOAD("load", "FILE", "replace the payload with an action file (JSON, one action)"),
    SET("set", "FIELD VALUE", "set a payload field; the value is typed by the schema"),
    UNSET("unset", "FIELD", "remove a payload field"),
    SHOW("show", "", "print the action, the instant and the payload as JSON"),
    AT("at", "[TIMESTAMP|now]", "set the instant behind context.* (ISO-8601, e.g. 2026-11-02T14:05:00Z)"),
    POLICIES("policies", "[PATH...]", "load and compile policy files and directories (no PATH: list them)"),
    DECIDE("decide", "[--explain]", "decide the payload against the loaded policies"),
    ANALYZE("analyze", "[A]", "prove facts about the loaded rules for every valid action"),
    SCHEMA("schema", "[SECTION|A]", "list the fields of the current action, of a section or of an action"),
    HELP("help", "", "print this help"),
    QUIT("quit", "", "leave the REPL (Ctrl-D also leaves)");

    private final String word;
    private final String synopsis;
    private final String description;

    Verb(String word, String synopsis, String description) {
        this.word = word;
        this.synopsis = synopsis;
        this.description = description;
    }

    /** The command as typed, e.g. {@code :set}. */
    String command() {
        return ":" + word;
    }

    String synopsis() {
        return synopsis;
    }

    String description() {
        return description;
    }

    /** The verb typed as {@code command} (with its colon), or empty. */
    static Optional<Verb> of(String command) {
        for (Verb v : values()) {
            if (v.command().equals(command)) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }

    /** Every command as typed, in help order. */
    static List<String> commands() {
        List<String> out = new ArrayList<>();
        for (Verb v : values()) {
            out.add(v.command());
        }
        return out;
    }
}

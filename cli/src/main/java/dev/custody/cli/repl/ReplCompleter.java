package dev.custody.cli.repl;

import dev.custody.engine.schema.FieldSchema;
import dev.custody.engine.schema.FieldSpec;
import dev.custody.engine.schema.FieldType;
import dev.custody.engine.schema.Section;
import dev.custody.engine.schema.TriggerAction;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jline.builtins.Completers;
import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.LineReader;
import org.jline.reader.ParsedLine;

/**
 * Tab completion for the REPL, reading the session's current state at each Tab.
 *
 * <ul>
 *   <li>the first word of a command line: the commands ({@code :se} → {@code :set});
 *   <li>command arguments: actions after {@code :action}; the current action's fields after {@code :set}
 *       and the fields set after {@code :unset}; then the enum values ({@code :set principal.role } → the
 *       roles) or {@code true}/{@code false}; file paths after {@code :load} and {@code :policies}
 *       (relative to the session's working directory); {@code now} after {@code :at}; {@code --explain}
 *       after {@code :decide}; sections and actions after {@code :schema};
 *   <li>in a condition: the current action's sections and CEL's global functions for a bare word; after a
 *       section prefix, only that section's fields ({@code withdrawal.valu} → {@code withdrawal.value_usd});
 *       after a string field, the string methods; after {@code resource.decoded_args.}, the keys of the
 *       payload's decoded args; after any other expression, the macros and methods. Nothing inside a string
 *       literal.
 * </ul>
 * Candidates are filtered by the text before the cursor. Not thread-safe (jline calls it from its one
 * reading thread).
 */
final class ReplCompleter implements Completer {
    /** CEL's global functions and macros, as offered for a bare word. */
    static final List<String> GLOBAL_FUNCTIONS = List.of("has", "size", "int", "uint", "double", "string", "bool",
            "bytes", "dyn", "type", "matches", "duration", "timestamp");
    /** CEL's macros on lists and maps. */
    static final List<String> MACROS = List.of("all", "exists", "exists_one", "map", "filter");
    /** CEL's methods on strings. */
    static final List<String> STRING_METHODS = List.of("contains", "startsWith", "endsWith", "matches", "size");
    /** The literals offered for a bare word. */
    static final List<String> LITERALS = List.of("true", "false", "null");

    private final Session session;
    private final Completer files;

    ReplCompleter(Session session) {
        this.session = session;
        this.files = new WorkingDirectoryFiles(session.workingDirectory());
    }

    /** Adds the candidates for the word at the cursor; never throws (a failure offers nothing). */
    @Override
    public void complete(LineReader reader, ParsedLine parsed, List<Candidate> candidates) {
        List<Candidate> found = new ArrayList<>();
        try {
            ReplLine line = parsed instanceof ReplLine r ? r : ReplLine.of(parsed.line(), parsed.cursor());
            if (line.command()) {
                command(reader, line, found);
            } else if (!line.inString()) {
                condition(line, found);
            }
        } catch (RuntimeException e) {
            // Tab must never end the session: an unreadable directory, say, just completes nothing
            return;
        }
        candidates.addAll(found);
    }

    private void command(LineReader reader, ReplLine line, List<Candidate> out) {
        String prefix = line.prefix();
        if (line.wordIndex() == 0) {
            for (Verb v : Verb.values()) {
                add(out, prefix, v.command(), "commands", v.description(), true);
            }
            return;
        }
        Optional<Verb> verb = Verb.of(line.words().get(0));
        if (verb.isEmpty()) {
            return;
        }
        int arg = line.wordIndex();
        TriggerAction action = session.action();
        switch (verb.get()) {
            case ACTION, SCHEMA -> {
                if (arg == 1) {
                    if (verb.get() == Verb.SCHEMA) {
                        for (Section s : FieldSchema.sections(action)) {
                            add(out, prefix, s.wireName(), "sections", null, true);
                        }
                    }
                    for (String a : Session.actionNames()) {
                        add(out, prefix, a, "actions", null, true);
                    }
                }
            }
            case SET -> {
                if (arg == 1) {
                    for (FieldSpec f : FieldSchema.fields(action)) {
                        if (f.section() != Section.CONTEXT) {
                            add(out, prefix, f.path(), "fields", f.type().wireName(), true);
                        }
                    }
                    for (String top : List.of("id", "wallet_id", "workspace_id")) {
                        add(out, prefix, top, "fields", "string", true);
                    }
                } else if (arg == 2) {
                    FieldSchema.field(action, line.words().get(1)).ifPresent(f -> {
                        List<String> values = f.type() == FieldType.BOOLEAN ? List.of("true", "false") : f.enumValues();
                        for (String v : values) {
                            add(out, prefix, v, "values", null, true);
                        }
                    });
                }
            }
            case UNSET -> {
                if (arg == 1) {
                    for (String path : session.draft().setPaths()) {
                        add(out, prefix, path, "fields", null, true);
                    }
                    if (session.draft().id() != null) {
                        add(out, prefix, "id", "fields", null, true);
                    }
                    if (session.draft().workspaceId() != null) {
                        add(out, prefix, "workspace_id", "fields", null, true);
                    }
                    if (!ActionDraft.DEFAULT_WALLET_ID.equals(session.draft().walletId())) {
                        add(out, prefix, "wallet_id", "fields", null, true);
                    }
                }
            }
            case LOAD -> {
                if (arg == 1) {
                    files(reader, line, out);
                }
            }
            case POLICIES -> files(reader, line, out);
            case AT -> {
                if (arg == 1) {
                    add(out, prefix, "now", null, null, true);
                }
            }
            case DECIDE -> {
                if (arg == 1) {
                    add(out, prefix, "--explain", null, "print every evaluated rule", true);
                }
            }
            default -> {
            }
        }
    }

    /** jline's file names for the word at the cursor, filtered like every other candidate. */
    private void files(LineReader reader, ReplLine line, List<Candidate> out) {
        List<Candidate> all = new ArrayList<>();
        files.complete(reader, line, all);
        for (Candidate c : all) {
            if (c.value().startsWith(line.prefix())) {
                out.add(c);
            }
        }
    }

    private void condition(ReplLine line, List<Candidate> out) {
        String prefix = line.prefix();
        TriggerAction action = session.action();
        int dot = prefix.lastIndexOf('.');
        if (dot < 0) {
            for (Section s : FieldSchema.sections(action)) {
                add(out, prefix, s.wireName() + ".", "sections", null, false);
            }
            for (String f : GLOBAL_FUNCTIONS) {
                add(out, prefix, f + "(", "functions", null, false);
            }
            for (String l : LITERALS) {
                add(out, prefix, l, "literals", null, true);
            }
            return;
        }
        String head = prefix.substring(0, dot);
        Optional<Section> section = Section.fromWireName(head);
        if (section.isPresent()) {
            if (FieldSchema.hasSection(action, section.get())) {
                for (FieldSpec f : FieldSchema.fields(section.get())) {
                    add(out, prefix, f.path(), "fields", f.type().wireName(), false);
                }
            }
            return;
        }
        Optional<FieldSpec> field = FieldSchema.field(action, head);
        if (field.isPresent()) {
            switch (field.get().type()) {
                case STRING -> methods(out, prefix, head, STRING_METHODS);
                case MAP -> {
                    if (session.draft().value(head).orElse(null) instanceof Map<?, ?> map) {
                        for (Object key : map.keySet()) {
                            add(out, prefix, head + "." + key, "keys", null, false);
                        }
                    }
                    methods(out, prefix, head, MACROS);
                    methods(out, prefix, head, List.of("size"));
                }
                default -> {
                }
            }
            return;
        }
        String first = head.contains(".") ? head.substring(0, head.indexOf('.')) : head;
        if (Section.fromWireName(first).isPresent()) {
            return; // a field the action does not have, or a key of decoded_args: nothing sensible to offer
        }
        methods(out, prefix, head, MACROS);
        methods(out, prefix, head, STRING_METHODS);
    }

    private static void methods(List<Candidate> out, String prefix, String head, List<String> names) {
        for (String m : names) {
            add(out, prefix, head + "." + m + "(", "functions", null, false);
        }
    }

    private static void add(List<Candidate> out, String prefix, String value, String group, String description,
            boolean complete) {
        if (value.startsWith(prefix) && out.stream().noneMatch(c -> c.value().equals(value))) {
            out.add(new Candidate(value, value, group, description, null, null, complete));
        }
    }

    /** jline's file name completer, resolving relative paths against the session's working directory. */
    private static final class WorkingDirectoryFiles extends Completers.FileNameCompleter {
        private final Path directory;

        WorkingDirectoryFiles(Path directory) {
            this.directory = directory;
        }

        @Override
        protected Path getUserDir() {
            return directory;
        }
    }
}

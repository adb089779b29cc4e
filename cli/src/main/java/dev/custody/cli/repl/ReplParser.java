package dev.custody.cli.repl;

import java.util.Optional;
import org.jline.reader.EOFError;
import org.jline.reader.ParsedLine;
import org.jline.reader.Parser;
import org.jline.reader.SyntaxError;

/**
 * The jline parser of the REPL: it splits entries for completion ({@link ReplLine}) and, when the user
 * presses Enter while a bracket or a quote is open ({@link LineSyntax#missing}), throws {@link EOFError} so
 * that jline reads a continuation line instead of accepting the entry. Stateless and thread-safe.
 */
final class ReplParser implements Parser {

    @Override
    public ParsedLine parse(String line, int cursor, ParseContext context) throws SyntaxError {
        if (context == ParseContext.ACCEPT_LINE) {
            Optional<String> missing = LineSyntax.missing(line);
            if (missing.isPresent()) {
                String closers = missing.get();
                int lineNo = (int) line.chars().filter(c -> c == '\n').count() + 1;
                int column = line.length() - line.lastIndexOf('\n');
                throw new EOFError(lineNo, column, "entry continues: `" + closers + "` missing", closers,
                        closers.length(), closers.substring(0, 1));
            }
        }
        return ReplLine.of(line, cursor);
    }

    @Override
    public boolean isEscapeChar(char ch) {
        return false;
    }
}

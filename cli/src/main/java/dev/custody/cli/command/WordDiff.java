package dev.custody.cli.command;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A word-level diff of two condition texts, for a reviewer: the texts are split into words (a string literal, a
 * name or number with its dots, or a run of other symbols such as {@code &&} or {@code !(}), whitespace ignored, and
 * the longest common subsequence of words is kept; the rest is removed or added, a removal before an addition where either order would do ({@code a b} →
 * {@code a c} reads {@code a -b +c}). Runs of one kind are merged. Two
 * texts that differ only in whitespace give one {@code SAME} run. Stateless.
 */
final class WordDiff {
    /** What happened to a run of words. */
    enum Op { SAME, REMOVED, ADDED }

    /** A run of words, joined by single spaces. */
    record Run(Op op, String text) {}

    /** Past this many words on a side the texts are shown as one removal and one addition (the table is n × m). */
    static final int MAX_WORDS = 2_000;

    private static final Pattern WORD = Pattern.compile(
            "\"(?:[^\"\\\\]|\\\\.)*\"?|'(?:[^'\\\\]|\\\\.)*'?|[A-Za-z0-9_.]+|[^\\sA-Za-z0-9_.\"']+");

    private WordDiff() {}

    /** The words of a text, whitespace dropped. */
    static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        if (text == null) {
            return out;
        }
        Matcher m = WORD.matcher(text);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    /** The runs that turn {@code before} into {@code after}; either may be null (an added or removed rule). */
    static List<Run> diff(String before, String after) {
        List<String> a = words(before);
        List<String> b = words(after);
        List<Run> out = new ArrayList<>();
        if (a.size() > MAX_WORDS || b.size() > MAX_WORDS) {
            add(out, Op.REMOVED, a);
            add(out, Op.ADDED, b);
            return out;
        }
        int[][] lcs = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                add(out, Op.SAME, List.of(a.get(i++)));
                j++;
            } else if (j < b.size() && (i == a.size() || lcs[i][j + 1] > lcs[i + 1][j])) {
                add(out, Op.ADDED, List.of(b.get(j++)));
            } else {
                add(out, Op.REMOVED, List.of(a.get(i++)));
            }
        }
        return out;
    }

    /** Whether the two texts have the same words (they differ at most in whitespace). */
    static boolean sameWords(String before, String after) {
        return words(before).equals(words(after));
    }

    private static void add(List<Run> out, Op op, List<String> words) {
        if (words.isEmpty()) {
            return;
        }
        String text = String.join(" ", words);
        if (!out.isEmpty() && out.get(out.size() - 1).op() == op) {
            Run last = out.remove(out.size() - 1);
            out.add(new Run(op, last.text() + " " + text));
        } else {
            out.add(new Run(op, text));
        }
    }
}

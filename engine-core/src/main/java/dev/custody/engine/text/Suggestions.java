package dev.custody.engine.text;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/** "Did you mean" suggestions by edit distance. Stateless and thread-safe. */
public final class Suggestions {
    private Suggestions() {}

    /**
     * The candidate closest to {@code word}, if it is close enough to be a plausible typo: a
     * case-insensitive match, or an edit distance of at most a third of the word's length (at least 1,
     * at most 3). Ties go to the first candidate in iteration order.
     */
    public static Optional<String> closest(String word, Collection<String> candidates) {
        if (word == null || word.isEmpty()) {
            return Optional.empty();
        }
        String lower = word.toLowerCase(Locale.ROOT);
        int limit = Math.max(1, Math.min(3, word.length() / 3));
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = c.toLowerCase(Locale.ROOT).equals(lower) ? 0 : distance(lower, c.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        return bestDistance <= limit ? Optional.of(best) : Optional.empty();
    }

    /** Optimal string alignment distance (Levenshtein plus adjacent transposition). */
    static int distance(String a, String b) {
        int n = a.length();
        int m = b.length();
        if (Math.abs(n - m) > 3) {
            return Math.abs(n - m);
        }
        int[][] d = new int[n + 1][m + 1];
        for (int i = 0; i <= n; i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= m; j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= n; i++) {
            for (int j = 1; j <= m; j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[n][m];
    }
}

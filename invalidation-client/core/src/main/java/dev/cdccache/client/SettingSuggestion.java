package dev.cdccache.client;

import java.util.Collection;
import java.util.Optional;

/**
 * The valid setting name a misspelled one most likely meant, for start-up errors that say "did you mean ...".
 * Only a near miss is suggested: at most 2 edits, or a third of the name for long names.
 */
public final class SettingSuggestion {

    private SettingSuggestion() {
    }

    /** The candidate closest to {@code name} if it is a near miss, else empty. */
    public static Optional<String> closest(String name, Collection<String> candidates) {
        String closest = null;
        int best = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int distance = editDistance(name, candidate);
            if (distance < best) {
                best = distance;
                closest = candidate;
            }
        }
        return closest != null && best <= Math.max(2, name.length() / 3) ? Optional.of(closest) : Optional.empty();
    }

    /** Levenshtein distance (insertions, deletions, substitutions). */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}

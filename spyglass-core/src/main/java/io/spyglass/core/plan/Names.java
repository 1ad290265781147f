package io.spyglass.core.plan;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/** Names close to a mistyped one, for "did you mean" in errors and warnings. */
public final class Names {
  private Names() {}

  /**
   * Up to three of {@code names} within {@code maxDistance} edits of {@code name} (other than
   * itself), closest first, then in alphabetical order.
   */
  public static List<String> closest(String name, Collection<String> names, int maxDistance) {
    return names.stream()
        .filter(n -> !n.equals(name) && distance(n, name) <= maxDistance)
        .sorted(Comparator.comparingInt((String n) -> distance(n, name)).thenComparing(n -> n))
        .limit(3)
        .toList();
  }

  /** The edit (Levenshtein) distance between two names. */
  public static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}

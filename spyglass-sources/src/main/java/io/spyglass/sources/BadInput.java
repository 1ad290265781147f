package io.spyglass.sources;

import io.spyglass.core.record.BadRecord;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Input that could not be read as records, counted by {@link BadRecord reason}, with the places
 * (line numbers, Kafka offsets) of the first few of each reason. Thread-safe: a source and the
 * engine's workers add to their own tallies, whose {@link Snapshot snapshots} add up.
 */
public final class BadInput {
  /** Places kept per reason. */
  public static final int PLACES = 3;

  private final long[] counts = new long[BadRecord.values().length];
  private volatile boolean any;
  private final Map<BadRecord, List<String>> places = new EnumMap<>(BadRecord.class);

  /**
   * Counts one bad record.
   *
   * @param where where it was, for people (e.g. {@code line 12}); null when unknown
   */
  public synchronized void add(BadRecord reason, String where) {
    counts[reason.ordinal()]++;
    any = true;
    if (where != null) {
      List<String> p = places.computeIfAbsent(reason, r -> new ArrayList<>(PLACES));
      if (p.size() < PLACES) {
        p.add(where);
      }
    }
  }

  public Snapshot snapshot() {
    return any ? copy() : Snapshot.EMPTY;
  }

  private synchronized Snapshot copy() {
    Map<BadRecord, Long> c = new EnumMap<>(BadRecord.class);
    for (BadRecord r : BadRecord.values()) {
      if (counts[r.ordinal()] > 0) {
        c.put(r, counts[r.ordinal()]);
      }
    }
    Map<BadRecord, List<String>> p = new EnumMap<>(BadRecord.class);
    places.forEach((r, l) -> p.put(r, List.copyOf(l)));
    return new Snapshot(c, p);
  }

  /**
   * Bad input counted up to a moment.
   *
   * @param counts how many records, by reason; reasons without any are absent
   * @param places where the first few of each reason were
   */
  public record Snapshot(Map<BadRecord, Long> counts, Map<BadRecord, List<String>> places) {
    public static final Snapshot EMPTY = new Snapshot(Map.of(), Map.of());

    public Snapshot {
      counts = Map.copyOf(counts);
      places = Map.copyOf(places);
    }

    public long total() {
      long t = 0;
      for (long n : counts.values()) {
        t += n;
      }
      return t;
    }

    public boolean isEmpty() {
      return counts.isEmpty();
    }

    /** Counts by {@link BadRecord#key()}, in the order of the reasons. */
    public Map<String, Long> byKey() {
      Map<String, Long> out = new LinkedHashMap<>();
      for (BadRecord r : BadRecord.values()) {
        Long n = counts.get(r);
        if (n != null) {
          out.put(r.key(), n);
        }
      }
      return out;
    }

    /** Both tallies together (places of this one first). */
    public Snapshot plus(Snapshot other) {
      if (other.isEmpty()) {
        return this;
      }
      if (isEmpty()) {
        return other;
      }
      Map<BadRecord, Long> c = new EnumMap<>(BadRecord.class);
      c.putAll(counts);
      other.counts.forEach((r, n) -> c.merge(r, n, Long::sum));
      Map<BadRecord, List<String>> p = new EnumMap<>(BadRecord.class);
      for (BadRecord r : BadRecord.values()) {
        List<String> all = new ArrayList<>(places.getOrDefault(r, List.of()));
        all.addAll(other.places.getOrDefault(r, List.of()));
        if (!all.isEmpty()) {
          p.put(r, all.subList(0, Math.min(PLACES, all.size())));
        }
      }
      return new Snapshot(c, p);
    }

    /** The counts added since {@code earlier}, a snapshot of the same tallies (no places). */
    public Map<String, Long> since(Snapshot earlier) {
      Map<String, Long> out = new LinkedHashMap<>();
      for (BadRecord r : BadRecord.values()) {
        long n = counts.getOrDefault(r, 0L) - earlier.counts.getOrDefault(r, 0L);
        if (n > 0) {
          out.put(r.key(), n);
        }
      }
      return out;
    }

    /**
     * For people: {@code 3 bad records skipped: 2 malformed JSON (line 5, line 9), 1 truncated JSON
     * (line 12)}.
     */
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder();
      long total = total();
      sb.append(total).append(total == 1 ? " bad record skipped: " : " bad records skipped: ");
      boolean first = true;
      for (BadRecord r : BadRecord.values()) {
        Long n = counts.get(r);
        if (n == null) {
          continue;
        }
        sb.append(first ? "" : ", ").append(n).append(' ').append(r.description());
        first = false;
        List<String> p = places.getOrDefault(r, List.of());
        if (!p.isEmpty()) {
          sb.append(" (").append(String.join(", ", p)).append(n > p.size() ? ", ...)" : ")");
        }
      }
      return sb.toString();
    }
  }
}

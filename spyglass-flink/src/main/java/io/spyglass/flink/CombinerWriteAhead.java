package io.spyglass.flink;

import io.spyglass.core.SpyglassClock;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which queries' state the {@link CombinerOperator} writes to the state backend, and when: those
 * that have not changed for {@value #QUIET_MS} ms are written ahead of the checkpoint, a few at a
 * time, so that the checkpoint itself writes only the queries that changed shortly before it.
 */
final class CombinerWriteAhead {
  /** How long a query's state stays unchanged before it is written ahead of a checkpoint. */
  static final long QUIET_MS = 200;

  /**
   * How often, at most, queries are written ahead (for {@value #WRITE_BUDGET_NANOS} ns at most a
   * turn: a result waits at most that).
   */
  static final long WRITE_EVERY_MS = 10;

  static final long WRITE_BUDGET_NANOS = 5_000_000;

  /** How long before a checkpoint writing ahead is done, at the latest. */
  static final long WRITE_LEAD_MS = 1_000;

  /** Writes one query's state to the state backend (or clears it when the query is forgotten). */
  interface Writer {
    void write(String id) throws IOException;
  }

  /**
   * Queries whose state changed since it was last written to the state backend, with when each last
   * changed (wall clock), the longest unchanged first.
   */
  private final LinkedHashMap<String, Long> dirty = new LinkedHashMap<>(16, 0.75f, true);

  /** Queries written ahead of the coming checkpoint: one that changes again waits for it. */
  private final Set<String> written = new HashSet<>();

  /** Queries that changed after being written ahead: the checkpoint writes them. */
  private final Set<String> dirtyAgain = new HashSet<>();

  /** When the last checkpoint's snapshot was taken, and the time between the last two (or -1). */
  private long lastSnapshotMs = -1;

  private long intervalMs = -1;

  /** The time to write one query's state, averaged. */
  private double writeNanos = 20_000;

  /** Times the turns' budget (its monotonic count). */
  private final SpyglassClock clock;

  CombinerWriteAhead() {
    this(SpyglassClock.system());
  }

  CombinerWriteAhead(SpyglassClock clock) {
    this.clock = clock;
  }

  /** Whether the last turn left queries due unwritten, its time being up. */
  private boolean outOfBudget;

  /** The query's state changed at {@code nowMs}. */
  void changed(String id, long nowMs) {
    if (written.contains(id)) {
      dirtyAgain.add(id);
    } else {
      dirty.put(id, nowMs);
    }
  }

  /** The query is forgotten (its state cleared): nothing of it is to be written. */
  void forget(String id) {
    dirty.remove(id);
    dirtyAgain.remove(id);
  }

  /**
   * Writes the state of queries that have not changed for {@value #QUIET_MS} ms, for at most
   * {@value #WRITE_BUDGET_NANOS} ns a turn (one query at least), every {@value #WRITE_EVERY_MS} ms:
   * a checkpoint then writes only the queries that changed shortly before it. Encoding every
   * query's state in the checkpoint's synchronous part holds the results of every query back
   * meanwhile: with 10,000 needle queries that have each found a record, hundreds of ms. A query is
   * written ahead once per checkpoint at most (one that changes again is written by the
   * checkpoint), so this never more than doubles the encoding; and, once the checkpoints' pace is
   * known, shortly before the next checkpoint (see {@link #writeFromMs}), so that queries changing
   * every few seconds are mostly written once, by the checkpoint.
   */
  void writeQuiet(long now, Writer writer) throws IOException {
    outOfBudget = false;
    if (dirty.isEmpty() || now < writeFromMs()) {
      return;
    }
    long start = clock.nanos();
    long until = start + WRITE_BUDGET_NANOS;
    int n = 0;
    for (var it = dirty.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Long> e = it.next();
      if (now - e.getValue() < QUIET_MS) {
        break;
      }
      if (n > 0 && clock.nanos() >= until) { // one a turn at least: a turn always gets on
        outOfBudget = true;
        break;
      }
      writer.write(e.getKey());
      written.add(e.getKey());
      it.remove();
      n++;
    }
    if (n > 0) {
      writeNanos += ((double) (clock.nanos() - start) / n - writeNanos) / 4;
    }
  }

  /**
   * When the next turn of {@link #writeQuiet} is due, after one at {@code now}: none ({@link
   * Long#MAX_VALUE}) while no query waits to be written; {@value #WRITE_EVERY_MS} ms on while the
   * queries due did not fit in a turn; otherwise when the query unchanged the longest gets quiet,
   * or writing ahead starts, but {@value #QUIET_MS} ms on at the latest (the checkpoints' pace may
   * change) and {@value #WRITE_EVERY_MS} ms at the earliest. A combiner whose queries do not change
   * is not woken at all, one whose queries change all the time every {@value #QUIET_MS} ms.
   */
  long nextTurnMs(long now) {
    if (dirty.isEmpty()) {
      return Long.MAX_VALUE;
    }
    if (outOfBudget) {
      return now + WRITE_EVERY_MS;
    }
    long quietAt = dirty.values().iterator().next() + QUIET_MS;
    long at = Math.min(now + QUIET_MS, Math.max(quietAt, writeFromMs()));
    return Math.max(now + WRITE_EVERY_MS, at);
  }

  /**
   * When writing ahead starts: once the checkpoints' interval is known (the time between the last
   * two), early enough before the next one for the queries waiting to be written at the pace of
   * {@link #writeQuiet} (with a second to spare); until then, at once.
   */
  private long writeFromMs() {
    if (intervalMs <= 0) {
      return Long.MIN_VALUE;
    }
    double turns = dirty.size() * writeNanos / WRITE_BUDGET_NANOS;
    long needMs = (long) (turns * WRITE_EVERY_MS) + WRITE_LEAD_MS;
    return lastSnapshotMs + intervalMs - needMs;
  }

  /** A checkpoint at {@code now}: writes every query that changed since it was last written. */
  void snapshot(long now, Writer writer) throws IOException {
    if (lastSnapshotMs > 0 && now > lastSnapshotMs) {
      intervalMs = now - lastSnapshotMs;
    }
    lastSnapshotMs = now;
    for (String id : dirty.keySet()) {
      writer.write(id);
    }
    for (String id : dirtyAgain) {
      writer.write(id);
    }
    dirty.clear();
    dirtyAgain.clear();
    written.clear();
  }
}

package io.spyglass.core.query;

import io.spyglass.core.partial.EventTimePartial;
import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.partial.PartialReader;
import io.spyglass.core.partial.PartialWriter;
import io.spyglass.core.partial.Partials;
import io.spyglass.core.plan.Window;
import io.spyglass.core.result.Meta;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The combining side of event-time windows ({@link Window.EventTime}): the open windows' states,
 * the largest event time seen, the watermark (that time minus the lateness), and the records that
 * came late.
 *
 * <p>A partial's windows are merged into the open windows, or, for a window already final, counted
 * as late for it; either way against the watermark as it was before the partial. The watermark
 * moves on {@link #advance()} to the largest event time of every partial accepted until then, and
 * windows whose end plus the lateness it has reached become final. So every partial accepted
 * between two advances meets the same watermark, whatever their order: partitions can be merged in
 * any order.
 *
 * <p>Not thread-safe: owned by its {@link QueryCombiner}.
 */
final class EventTimeWindows {
  /**
   * Windows with late records not yet reported: more and {@link #accept} asks for a report now, so
   * that a replay of old records cannot grow this without bound.
   */
  static final int MAX_PENDING_LATE = 1_024;

  /**
   * One result to emit: a window's state ({@code state} non-null), or a late update ({@code state}
   * null, {@code late} records came for the final window since its last result).
   */
  record Emission(long startMs, Partial state, boolean windowFinal, long late) {}

  private final long sizeMs;
  private final long latenessMs;
  private final Partial prototype;
  private final TreeMap<Long, Partial> open = new TreeMap<>();
  private final TreeMap<Long, Long> pendingLate = new TreeMap<>();

  /** The largest event time as of the last {@link #advance}: the watermark plus the lateness. */
  private long advancedMs = Long.MIN_VALUE;

  /** The largest event time of the partials accepted, which the next {@link #advance} moves to. */
  private long seenMs = Long.MIN_VALUE;

  /**
   * {@link #seenMs} as of the last {@link #advanceRound}, which the next one moves to: the event
   * time of partials that every partial read before them has caught up with by then.
   */
  private long roundSeenMs = Long.MIN_VALUE;

  private long late;
  private long withoutTime;

  /**
   * @param prototype an empty state of the query's aggregation, copied for each window
   */
  EventTimeWindows(Window.EventTime window, Partial prototype) {
    this.sizeMs = window.sizeMs();
    this.latenessMs = window.latenessMs();
    this.prototype = prototype;
  }

  /**
   * Merges a partial's windows into the open ones, or counts them as late.
   *
   * @return whether late records wait for too many windows: report them now ({@link #lateOnes()})
   */
  boolean accept(EventTimePartial partial) {
    if (partial.sizeMs() != sizeMs) {
      throw new IllegalArgumentException(
          "a partial of " + partial.sizeMs() + " ms windows for windows of " + sizeMs + " ms");
    }
    withoutTime += partial.noTimeCount();
    for (Map.Entry<Long, EventTimePartial.Window> e : partial.windows().entrySet()) {
      long start = e.getKey();
      EventTimePartial.Window w = e.getValue();
      if (isFinal(start)) {
        late += w.records();
        pendingLate.merge(start, w.records(), Long::sum);
      } else {
        open.computeIfAbsent(start, s -> prototype.emptyCopy()).merge(w.state());
      }
    }
    seenMs = Math.max(seenMs, partial.maxTimeMs());
    return pendingLate.size() > MAX_PENDING_LATE;
  }

  /**
   * Whether {@link #advance} has something to do: the watermark would move, or late records wait.
   */
  boolean due() {
    return seenMs > advancedMs || !pendingLate.isEmpty();
  }

  /**
   * Moves the watermark to the largest event time seen minus the lateness: the windows it makes
   * final (each with its state, in time order, no longer open), then the late records waiting since
   * the last report.
   */
  List<Emission> advance() {
    roundSeenMs = seenMs;
    return advanceTo(seenMs);
  }

  /**
   * As {@link #advance}, for partials that may come one round out of the order their records were
   * read in: a runtime whose partitions each hand over a partial at every round, where a partition
   * may hand over records read after some that another partition hands over only at the next round
   * (the engine's workers, which take the batches in turn). The watermark moves to the largest
   * event time seen as of the previous round, which every partial of records read before those has
   * reached by now: a window is never final before every record read ahead of the one that closed
   * it was merged, whichever worker was slower.
   */
  List<Emission> advanceRound() {
    long to = roundSeenMs;
    roundSeenMs = seenMs;
    return advanceTo(to);
  }

  private List<Emission> advanceTo(long toMs) {
    advancedMs = Math.max(advancedMs, toMs);
    List<Emission> out = new ArrayList<>();
    Iterator<Map.Entry<Long, Partial>> it = open.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, Partial> e = it.next();
      if (!isFinal(e.getKey())) {
        break;
      }
      out.add(new Emission(e.getKey(), e.getValue(), true, 0));
      it.remove();
    }
    out.addAll(lateOnes());
    return out;
  }

  /** The late records waiting to be reported, one update per window, and forgets them. */
  List<Emission> lateOnes() {
    List<Emission> out = new ArrayList<>(pendingLate.size());
    pendingLate.forEach((start, n) -> out.add(new Emission(start, null, true, n)));
    pendingLate.clear();
    return out;
  }

  /**
   * What {@link #advance} gives, then every window still open, in time order: final too, since the
   * query ends and nothing can change them any more.
   */
  List<Emission> finish() {
    List<Emission> out = advance();
    open.forEach((start, state) -> out.add(new Emission(start, state, true, 0)));
    open.clear();
    return out;
  }

  /** The open windows as they are now, in time order, still open afterwards. */
  List<Emission> peek() {
    List<Emission> out = new ArrayList<>(open.size());
    open.forEach((start, state) -> out.add(new Emission(start, state, false, 0)));
    return out;
  }

  /**
   * A window is final once the watermark reaches its end: once the largest event time advanced to
   * reaches its end plus the lateness.
   */
  private boolean isFinal(long startMs) {
    long end = satAdd(satAdd(startMs, sizeMs), latenessMs);
    return advancedMs != Long.MIN_VALUE && advancedMs >= end;
  }

  private static long satAdd(long a, long b) {
    long s = a + b;
    return ((a ^ s) & (b ^ s)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : s;
  }

  /** The window's part of a result's metadata ({@code number} is its start over its size). */
  Meta.WindowMeta windowMeta(Emission e, String name, long nowMs, long size) {
    return new Meta.WindowMeta(
        Math.floorDiv(e.startMs(), sizeMs),
        name,
        nowMs,
        e.startMs(),
        size,
        Optional.of(
            new Meta.EventWindow(
                satAdd(e.startMs(), sizeMs), e.windowFinal(), e.late(), e.state() == null)));
  }

  /** The query's event time as of now, for every result's metadata. */
  Meta.EventTimeMeta meta() {
    boolean none = advancedMs == Long.MIN_VALUE;
    return new Meta.EventTimeMeta(
        none ? Optional.empty() : Optional.of(advancedMs),
        none ? Optional.empty() : Optional.of(satAdd(advancedMs, -latenessMs)),
        late,
        withoutTime);
  }

  /**
   *
   *
   * <pre>
   * largest time advanced to, largest time seen (8 bytes each), late, without time (varlong)
   * open windows (varint), each: start (8 bytes), state (varint length + encoded partial)
   * windows with late records to report (varint), each: start (8 bytes), records (varlong)
   * </pre>
   */
  void writeTo(PartialWriter out) {
    out.writeLong(advancedMs).writeLong(seenMs).writeVarLong(late).writeVarLong(withoutTime);
    out.writeVarInt(open.size());
    for (Map.Entry<Long, Partial> e : open.entrySet()) {
      out.writeLong(e.getKey()).writeBytes(Partials.encode(e.getValue()));
    }
    out.writeVarInt(pendingLate.size());
    for (Map.Entry<Long, Long> e : pendingLate.entrySet()) {
      out.writeLong(e.getKey()).writeVarLong(e.getValue());
    }
  }

  /** Reads what {@link #writeTo} wrote into this empty state. */
  void readFrom(PartialReader in) {
    advancedMs = in.readLong();
    seenMs = in.readLong();
    late = in.readVarLong();
    withoutTime = in.readVarLong();
    if (late < 0 || withoutTime < 0 || seenMs < advancedMs) {
      throw new PartialFormatException("bad event-time counters");
    }
    // a state is saved when every record read before it was merged: nothing is out of order
    roundSeenMs = seenMs;
    int windows = in.readCount(9);
    for (int i = 0; i < windows; i++) {
      long start = in.readLong();
      Partial state = Partials.decode(in.readBytes());
      if (state.kind() != prototype.kind() || Math.floorMod(start, sizeMs) != 0) {
        throw new PartialFormatException(
            "open window " + i + " at " + start + " holds a " + state.kind() + " state");
      }
      open.put(start, state);
    }
    int lateWindows = in.readCount(9);
    for (int i = 0; i < lateWindows; i++) {
      long start = in.readLong();
      long n = in.readVarLong();
      if (n < 0 || Math.floorMod(start, sizeMs) != 0) {
        throw new PartialFormatException("bad late count of window " + start);
      }
      pendingLate.put(start, n);
    }
  }
}

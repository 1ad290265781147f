package io.spyglass.core.partial;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The state of a query with event-time windows: one state of the query's aggregation per window the
 * records fell in, with how many records each window took, how many records had no usable event
 * time, and the largest event time seen. Windows are tumbling and aligned on the epoch: the window
 * of event time {@code t} starts at {@code floorDiv(t, sizeMs) * sizeMs}.
 *
 * <p>Merging merges window by window, so it is as exact as the windows' own states: any split of a
 * stream, merged in any order, gives the same windows, counts and largest time.
 *
 * <p>Hot path: per record the executor calls {@link #window(long)} with the record's event time and
 * feeds the returned window's {@link Window#state() state}, or calls {@link #noTime()} for a record
 * without a usable time.
 */
public final class EventTimePartial implements Partial {
  /** The state of one window and the records it took (aggregated or not). */
  public static final class Window {
    private final Partial state;
    private long records;

    Window(Partial state, long records) {
      this.state = state;
      this.records = records;
    }

    /** The window's aggregation state, to be fed or read; owned by this partial. */
    public Partial state() {
      return state;
    }

    /** Records whose event time fell in this window, whether or not its state kept them. */
    public long records() {
      return records;
    }
  }

  private final long sizeMs;
  private final Partial prototype;
  private final TreeMap<Long, Window> windows = new TreeMap<>();
  private long noTime;
  private long maxTimeMs = Long.MIN_VALUE;

  /**
   * @param sizeMs the windows' size, at least 1
   * @param prototype an empty state of the query's aggregation: each window gets an empty copy
   */
  public EventTimePartial(long sizeMs, Partial prototype) {
    if (sizeMs < 1) {
      throw new IllegalArgumentException("window size must be at least 1 ms: " + sizeMs);
    }
    if (prototype instanceof EventTimePartial || !prototype.isEmpty()) {
      throw new IllegalArgumentException("the prototype must be an empty window state");
    }
    this.sizeMs = sizeMs;
    this.prototype = prototype;
  }

  public long sizeMs() {
    return sizeMs;
  }

  /** The start of the window of event time {@code timeMs}. */
  public long startOf(long timeMs) {
    return Math.floorDiv(timeMs, sizeMs) * sizeMs;
  }

  /**
   * One record with event time {@code timeMs}: counts it in its window (created empty if new) and
   * returns the window, whose state the caller then feeds.
   */
  public Window window(long timeMs) {
    long start = startOf(timeMs);
    Window w = windows.get(start);
    if (w == null) {
      w = new Window(prototype.emptyCopy(), 0);
      windows.put(start, w);
    }
    w.records++;
    if (timeMs > maxTimeMs) {
      maxTimeMs = timeMs;
    }
    return w;
  }

  /** One record whose event time is missing or not a number. */
  public void noTime() {
    noTime++;
  }

  /** The windows by start, in time order. A live view: do not change it. */
  public NavigableMap<Long, Window> windows() {
    return Collections.unmodifiableNavigableMap(windows);
  }

  /** Records whose event time was missing or not a number. */
  public long noTimeCount() {
    return noTime;
  }

  /** The largest event time of the records, or {@link Long#MIN_VALUE} when none had one. */
  public long maxTimeMs() {
    return maxTimeMs;
  }

  /** An empty state of one window. */
  public Partial emptyWindow() {
    return prototype.emptyCopy();
  }

  @Override
  public PartialKind kind() {
    return PartialKind.EVENT_TIME;
  }

  @Override
  public void merge(Partial other) {
    if (!(other instanceof EventTimePartial o)
        || o.sizeMs != sizeMs
        || o.prototype.kind() != prototype.kind()) {
      throw new IllegalArgumentException(
          "cannot merge " + RawPartial.describe(other) + " into " + this);
    }
    for (Map.Entry<Long, Window> e : o.windows.entrySet()) {
      Window mine = windows.get(e.getKey());
      if (mine == null) {
        mine = new Window(prototype.emptyCopy(), 0);
        windows.put(e.getKey(), mine);
      }
      mine.state.merge(e.getValue().state);
      mine.records += e.getValue().records;
    }
    noTime += o.noTime;
    maxTimeMs = Math.max(maxTimeMs, o.maxTimeMs);
  }

  /** Each window's rows, in time order: for inspection; results are made window by window. */
  @Override
  public List<Map<String, Object>> rows() {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Window w : windows.values()) {
      rows.addAll(w.state.rows());
    }
    return rows;
  }

  @Override
  public Map<String, Object> metadata() {
    return Map.of();
  }

  @Override
  public boolean isEmpty() {
    return windows.isEmpty() && noTime == 0;
  }

  @Override
  public void reset() {
    windows.clear();
    noTime = 0;
    maxTimeMs = Long.MIN_VALUE;
  }

  @Override
  public EventTimePartial emptyCopy() {
    return new EventTimePartial(sizeMs, prototype);
  }

  /**
   *
   *
   * <pre>
   * size (varlong), no-time count (varlong), has a largest time (boolean) [largest time (long)]
   * window kind (byte) then an empty window's parameters and body (its kind's format)
   * windows (varint), each: start (long), records (varlong), state's parameters and body
   * </pre>
   */
  @Override
  public void writeTo(PartialWriter out) {
    out.writeVarLong(sizeMs).writeVarLong(noTime);
    out.writeBoolean(maxTimeMs != Long.MIN_VALUE);
    if (maxTimeMs != Long.MIN_VALUE) {
      out.writeLong(maxTimeMs);
    }
    out.writeByte(prototype.kind().tag());
    prototype.writeTo(out);
    out.writeVarInt(windows.size());
    for (Map.Entry<Long, Window> e : windows.entrySet()) {
      out.writeLong(e.getKey()).writeVarLong(e.getValue().records);
      e.getValue().state.writeTo(out);
    }
  }

  static EventTimePartial readFrom(PartialReader in) {
    long size = in.readVarLong();
    long noTime = in.readVarLong();
    long maxTime = in.readBoolean() ? in.readLong() : Long.MIN_VALUE;
    PartialKind kind = PartialKind.ofTag(in.readByte());
    if (kind == PartialKind.EVENT_TIME) {
      throw new PartialFormatException("event-time windows cannot hold event-time windows");
    }
    Partial prototype = Partials.read(kind, in);
    EventTimePartial p;
    try {
      p = new EventTimePartial(size, prototype);
    } catch (IllegalArgumentException e) {
      throw new PartialFormatException(e.getMessage());
    }
    if (noTime < 0) {
      throw new PartialFormatException("negative count of records without a time");
    }
    p.noTime = noTime;
    p.maxTimeMs = maxTime;
    int count = in.readCount(10);
    long previous = Long.MIN_VALUE;
    for (int i = 0; i < count; i++) {
      long start = in.readLong();
      long records = in.readVarLong();
      if (Math.floorMod(start, size) != 0 || (i > 0 && start <= previous)) {
        throw new PartialFormatException("window " + i + " starts at " + start);
      }
      if (records < 0) {
        throw new PartialFormatException("negative record count in window " + i);
      }
      if (maxTime == Long.MIN_VALUE || start > maxTime) {
        throw new PartialFormatException("window " + i + " starts after the largest time");
      }
      previous = start;
      p.windows.put(start, new Window(Partials.read(kind, in), records));
    }
    return p;
  }

  @Override
  public String toString() {
    return "EventTimePartial(size=" + sizeMs + " ms, windows=" + windows.size() + ")";
  }
}

package io.spyglass.core.query;

import io.spyglass.core.partial.EventTimePartial;
import io.spyglass.core.partial.GroupPartial;
import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.partial.PartialReader;
import io.spyglass.core.partial.PartialWriter;
import io.spyglass.core.partial.RawPartial;
import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.plan.Window;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * The combining side of one query: merges the partials of every partition, keeps the window, and
 * emits results to a {@link ResultSink}. The runtime calls {@link #accept} with each partial and
 * {@link #advance} with the time (at the latest by {@link #nextDeadlineMs()}); the combiner decides
 * when windows close and when the query ends. Time only comes in through these calls.
 *
 * <p>Emission rules: a query without a window emits once, when it ends (or, for a raw query, as
 * soon as it holds its LIMIT of records); a time window emits when its period has passed; a record
 * window emits on its n-th record. A query emitting faster than {@link
 * QueryLimits#maxEmitsPerSecond()} is stopped with an error. Event-time windows ({@link
 * Window.EventTime}) emit each window once it is final, on the {@link #advance} after the largest
 * event time seen passed its end plus the lateness, then a late update for a final window that
 * records came for afterwards; their pace is the records', not bounded by the emit rate. When the
 * query ends, each window still open is emitted once more, not final. {@link #peek} shows the
 * current window(s) at any time without closing them.
 *
 * <p>A runtime that checkpoints its state (Flink, the service) saves a combiner with {@link
 * #snapshot()} and goes on from there with {@link #restore}.
 *
 * <p>Not thread-safe: confined to one thread.
 */
public final class QueryCombiner {
  private static final byte[] SNAPSHOT_MAGIC = {'S', 'G', 'Q', 'C'};
  private static final int SNAPSHOT_VERSION = 2;

  private final Query query;
  private final QueryLimits limits;
  private final ResultSink sink;
  private final LongSupplier clock;
  private final QueryPlan plan;
  private final PostAggregator post;
  private final long endTimeMs;
  private final String windowName;

  /**
   * Tumbling, additive and none: one state. Sliding time windows: one state per pane. Event-time
   * windows: none (their states are in {@link #events}). Each made when first needed ({@link
   * #pane}): a query that nothing matched holds none until it emits.
   */
  private final Partial[] panes;

  /** The windows of an event-time query; null for other queries. */
  private final EventTimeWindows events;

  /** The time of the last call that told the combiner something: when {@link #events} is due. */
  private long lastCallMs;

  private int newest;
  private final long emitEvery;
  private final boolean recordWindow;
  private final int rawLimit;
  private final int rowLimit;
  private long windowNumber;
  private long windowStartMs;
  private long nextEmitMs;
  private boolean done;
  private long emitSecond = -1;
  private int emitsThisSecond;
  private List<Meta.QueryError> errors = List.of();

  /**
   * @param clock the engine clock, read by {@code NOW()} in post-aggregation expressions
   */
  public QueryCombiner(Query query, QueryLimits limits, ResultSink sink, LongSupplier clock) {
    this.query = query;
    this.limits = limits;
    this.sink = sink;
    this.clock = clock;
    this.plan = query.plan();
    this.post =
        plan.postAggregation().isEmpty() ? null : new PostAggregator(plan.postAggregation(), clock);
    this.endTimeMs = query.endTimeMs(limits);
    Window w = plan.window();
    this.windowName = Bql.print(w);
    this.events =
        w instanceof Window.EventTime e
            ? new EventTimeWindows(e, PartialFactory.create(plan, limits))
            : null;
    int paneCount = events == null ? 1 : 0;
    long every = 0;
    boolean records = false;
    if (w instanceof Window.Tumbling) {
      Window.Tumbling t = (Window.Tumbling) w;
      records = t.unit() == Window.Unit.RECORD;
      every = t.size();
    } else if (w instanceof Window.Additive) {
      every = ((Window.Additive) w).emitEveryMs();
    } else if (w instanceof Window.Sliding) {
      Window.Sliding s = (Window.Sliding) w;
      records = s.emitUnit() == Window.Unit.RECORD;
      every = s.emitEvery();
      if (!records) {
        paneCount = (int) Math.max(1, s.size() / s.emitEvery());
      }
    }
    this.emitEvery = every;
    this.recordWindow = records;
    this.panes = new Partial[paneCount];
    this.rowLimit = rowLimit(plan.aggregation());
    this.rawLimit =
        plan.aggregation() instanceof Aggregation.Raw
            ? ((Aggregation.Raw) plan.aggregation()).limit()
            : 0;
    this.windowStartMs = query.receiveTimeMs();
    this.lastCallMs = query.receiveTimeMs();
    this.windowNumber = 1;
    this.nextEmitMs = every > 0 && !records ? satAdd(query.receiveTimeMs(), every) : Long.MAX_VALUE;
  }

  /** The most rows the aggregation emits per window, before post-aggregation. */
  private static int rowLimit(Aggregation agg) {
    if (agg instanceof Aggregation.Group) {
      return ((Aggregation.Group) agg).limit();
    } else if (agg instanceof Aggregation.Distribution) {
      return ((Aggregation.Distribution) agg).limit();
    }
    return Integer.MAX_VALUE;
  }

  private static long satAdd(long a, long b) {
    long s = a + b;
    return s < a ? Long.MAX_VALUE : s;
  }

  public Query query() {
    return query;
  }

  public boolean isDone() {
    return done;
  }

  /**
   * The latest time by which {@link #advance} must be called for windows to close on time: for
   * event-time windows, at once when partials since the last advance bring a later event time or
   * late records.
   */
  public long nextDeadlineMs() {
    if (events != null && !done && events.due()) {
      return lastCallMs;
    }
    return Math.min(nextEmitMs, endTimeMs);
  }

  /**
   * Merges one partition's partial. A raw query may emit here: a record window on its n-th record,
   * a query without window when it has its LIMIT. {@code partial} is only read during the call.
   *
   * <p>This and the other methods that tell the combiner something never throw for a failure of
   * this query: the query ends with a final result carrying the error (see {@link #isDone()}).
   */
  public void accept(Partial partial, long nowMs) {
    if (done) {
      return;
    }
    try {
      merge(partial, nowMs);
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      failInternally(e, nowMs);
    }
  }

  /** Pane {@code i}, made empty if it was not yet. */
  private Partial pane(int i) {
    Partial p = panes[i];
    if (p == null) {
      p = PartialFactory.create(plan, limits);
      panes[i] = p;
    }
    return p;
  }

  /** Panes made so far: for tests that look at what an idle query holds. */
  int panesMade() {
    int n = 0;
    for (Partial p : panes) {
      n += p == null ? 0 : 1;
    }
    return n;
  }

  /** The window's state: its one pane, or its panes merged. */
  private Partial windowState() {
    return panes.length == 1 ? pane(0) : mergedPanes();
  }

  /** Empties pane {@code i}, if it was made. */
  private void resetPane(int i) {
    if (panes[i] != null) {
      panes[i].reset();
    }
  }

  private void merge(Partial partial, long nowMs) {
    lastCallMs = nowMs;
    if (events != null) {
      if (events.accept((EventTimePartial) partial)) {
        emitEvents(events.lateOnes(), nowMs, false);
      }
      return;
    }
    if (recordWindow) {
      RawPartial window = (RawPartial) pane(0);
      for (Map<String, Object> row : partial.rows()) {
        window.add(row);
        if (window.isFull()) {
          emit(window, nowMs, false);
          window.reset();
          windowNumber++;
          windowStartMs = nowMs;
          if (done) {
            return;
          }
        }
      }
      return;
    }
    pane(newest).merge(partial);
    if (rawLimit > 0 && emitEvery == 0 && ((RawPartial) pane(newest)).size() >= rawLimit) {
      finish(nowMs);
    }
  }

  /** Tells the time: closes windows whose time has come and ends the query at its duration. */
  public void advance(long nowMs) {
    advance(nowMs, false);
  }

  /**
   * As {@link #advance}, for a runtime whose partitions hand over their partials in rounds, a
   * partition possibly a round late with records read before another's (the embedded engine's
   * workers, which take the batches in turn): event-time windows close by the largest event time
   * seen as of the previous round, so that a slow worker's records are never late for a window that
   * a faster worker's later records closed. Costs event-time windows one round of latency.
   */
  public void advanceRound(long nowMs) {
    advance(nowMs, true);
  }

  private void advance(long nowMs, boolean round) {
    if (done) {
      return;
    }
    try {
      advanceChecked(nowMs, round);
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      failInternally(e, nowMs);
    }
  }

  private void advanceChecked(long nowMs, boolean round) {
    lastCallMs = nowMs;
    if (nowMs >= endTimeMs) {
      finish(Math.max(nowMs, endTimeMs));
      return;
    }
    if (events != null) {
      emitEvents(round ? events.advanceRound() : events.advance(), nowMs, false);
      return;
    }
    if (nowMs < nextEmitMs) {
      return;
    }
    Partial state = windowState();
    emit(state, nowMs, false);
    boolean additive = plan.window() instanceof Window.Additive;
    long elapsedPeriods = (nowMs - nextEmitMs) / emitEvery + 1;
    nextEmitMs = satAdd(nextEmitMs, elapsedPeriods * emitEvery);
    windowNumber++;
    if (!additive) {
      windowStartMs = nowMs;
      if (panes.length == 1) {
        resetPane(0);
      } else {
        newest = (newest + 1) % panes.length;
        resetPane(newest);
        windowStartMs = nowMs - (long) (panes.length - 1) * emitEvery;
      }
    }
  }

  /**
   * Ends the query now (duration reached, killed, or the source ended): emits the last result. A
   * record window whose last window was full and emitted already ends with an empty final result,
   * so that every query's last result says it is final.
   */
  public void finish(long nowMs) {
    if (done) {
      return;
    }
    try {
      if (events != null) {
        done = true;
        emitEvents(events.finish(), nowMs, true);
        return;
      }
      Partial state = windowState();
      emit(state, nowMs, true);
      done = true;
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      failInternally(e, nowMs);
    }
  }

  /**
   * The current state of the query's open window(s) as results, without closing them or changing
   * anything: for an event-time query one per open window ({@code "final": false} in {@code
   * meta.window}), in time order; for other windows the current one. Not marked final, and not
   * counted against the emit rate.
   */
  public List<Result> peek(long nowMs) {
    List<Result> out = new ArrayList<>();
    if (done) {
      return out;
    }
    ResultSink collect = (q, r) -> out.add(r);
    if (events != null) {
      for (EventTimeWindows.Emission e : events.peek()) {
        emitRows(collect, e.state(), nowMs, false, size -> eventWindow(e, nowMs, size));
      }
    } else {
      Partial state = windowState();
      emitRows(collect, state, nowMs, false, size -> windowMeta(nowMs, size));
    }
    return out;
  }

  /**
   * The query's event time as of now, as its next result's {@code meta.eventTime} would say (late
   * records, records without a time); empty for a query without event-time windows. Changes
   * nothing.
   */
  public Optional<Meta.EventTimeMeta> eventTime() {
    return events == null ? Optional.empty() : Optional.of(events.meta());
  }

  /** Ends the query with an error and emits what it has, with the error in the metadata. */
  public void fail(String message, String resolution, long nowMs) {
    if (done) {
      return;
    }
    errors = List.of(new Meta.QueryError(message, resolution, true));
    try {
      done = true;
      if (events != null) {
        emitEvents(events.finish(), nowMs, true);
        return;
      }
      Partial state = windowState();
      emitUnchecked(state, nowMs, true);
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      failInternally(e, nowMs);
    }
  }

  /**
   * Ends the query after an exception in its own processing (here, or on the filter side of a
   * partition): its state cannot be trusted, so the final result has no records and carries the
   * error. Other queries are not affected.
   */
  public void fail(Throwable error, long nowMs) {
    if (!done) {
      failInternally(error, nowMs);
    }
  }

  private void failInternally(Throwable error, long nowMs) {
    List<Meta.QueryError> all = new ArrayList<>(errors);
    all.add(QueryFailures.internal(error));
    errors = all;
    done = true;
    sink.emit(query, new Result(List.of(), meta(nowMs, true, Optional.empty(), Map.of(), errors)));
  }

  private Partial mergedPanes() {
    Partial merged = PartialFactory.create(plan, limits);
    for (Partial p : panes) {
      if (p != null) {
        merged.merge(p);
      }
    }
    return merged;
  }

  private void emit(Partial state, long nowMs, boolean isFinal) {
    long second = nowMs / 1000;
    if (second != emitSecond) {
      emitSecond = second;
      emitsThisSecond = 0;
    }
    if (++emitsThisSecond > limits.maxEmitsPerSecond()) {
      fail(
          "Query emitted more than " + limits.maxEmitsPerSecond() + " results in one second",
          "Use a longer window, a RECORD window with more records, or a narrower WHERE clause",
          nowMs);
      return;
    }
    emitUnchecked(state, nowMs, isFinal);
  }

  private void emitUnchecked(Partial state, long nowMs, boolean isFinal) {
    emitRows(sink, state, nowMs, isFinal, size -> windowMeta(nowMs, size));
  }

  private Optional<Meta.WindowMeta> windowMeta(long nowMs, long size) {
    return windowName == null
        ? Optional.empty()
        : Optional.of(new Meta.WindowMeta(windowNumber, windowName, nowMs, windowStartMs, size));
  }

  private Optional<Meta.WindowMeta> eventWindow(
      EventTimeWindows.Emission e, long nowMs, long size) {
    return Optional.of(events.windowMeta(e, windowName, nowMs, size));
  }

  /**
   * Emits event-time windows and late updates; with {@code queryEnds} the last is the query's final
   * result (an empty one, without a window, when there is nothing to emit).
   */
  private void emitEvents(
      List<EventTimeWindows.Emission> emissions, long nowMs, boolean queryEnds) {
    for (int i = 0; i < emissions.size(); i++) {
      EventTimeWindows.Emission e = emissions.get(i);
      boolean last = queryEnds && i == emissions.size() - 1;
      if (e.state() == null) {
        Meta meta = meta(nowMs, last, eventWindow(e, nowMs, 0), Map.of(), errors);
        sink.emit(query, new Result(List.of(), meta));
      } else {
        emitRows(sink, e.state(), nowMs, last, size -> eventWindow(e, nowMs, size));
      }
    }
    if (queryEnds && emissions.isEmpty()) {
      sink.emit(
          query, new Result(List.of(), meta(nowMs, true, Optional.empty(), Map.of(), errors)));
    }
  }

  /** A state as a result: rows capped, post-aggregated and through the outer query. */
  private void emitRows(
      ResultSink to,
      Partial state,
      long nowMs,
      boolean isFinal,
      LongFunction<Optional<Meta.WindowMeta>> window) {
    List<Map<String, Object>> rows = state.rows();
    if (rows.size() > rowLimit) {
      rows = new ArrayList<>(rows.subList(0, rowLimit));
    }
    if (post != null) {
      rows = post.apply(rows);
    }
    Map<String, Object> sketch = state.metadata();
    if (plan.outer().isPresent()) {
      OuterResult outer = runOuter(plan.outer().get(), rows);
      rows = outer.rows;
      if (!outer.sketch.isEmpty()) {
        sketch = outer.sketch;
      }
    }
    List<Meta.QueryError> resultErrors = errors;
    if (plan.exactGroups() && state instanceof GroupPartial g && g.theta() < 1.0) {
      resultErrors = new ArrayList<>(errors);
      resultErrors.add(
          new Meta.QueryError(
              "This window has more than "
                  + g.capacity()
                  + " groups, the most an exact GROUP BY keeps: the records of the groups beyond"
                  + " them are missing from this result",
              "Group by fewer distinct keys, use shorter windows, or raise the limit of exact"
                  + " groups (maxExactGroups)",
              false));
    }
    to.emit(
        query,
        new Result(rows, meta(nowMs, isFinal, window.apply(rows.size()), sketch, resultErrors)));
  }

  private Meta meta(
      long nowMs,
      boolean isFinal,
      Optional<Meta.WindowMeta> window,
      Map<String, Object> sketch,
      List<Meta.QueryError> resultErrors) {
    return new Meta(
        query.id(),
        query.text(),
        query.receiveTimeMs(),
        isFinal ? Optional.of(nowMs) : Optional.empty(),
        window,
        sketch,
        resultErrors,
        isFinal,
        Map.of(),
        events == null ? Optional.empty() : Optional.of(events.meta()));
  }

  /**
   * The combiner's state as bytes: its window panes (each in the partial format of {@link
   * io.spyglass.core.partial.Partials}), the window number and times, the emit-rate counter, the
   * errors, and for event-time windows the open windows, the watermark and the late counts. The
   * query is not included: {@link #restore} takes it again.
   *
   * <pre>
   * magic 'S' 'G' 'Q' 'C', version 2 (one byte)
   * panes (varint) then each pane (varint length + encoded partial); newest pane (varint)
   * window number (varint); window start, next emit, emit second (8 bytes each)
   * emits this second (varint); done (boolean); errors (varint) then message, resolution, fatal
   * event-time windows (boolean) then, if present, as {@link EventTimeWindows#writeTo}
   * </pre>
   *
   * Version 1 is version 2 without the event-time part; {@link #restore} reads both.
   */
  public byte[] snapshot() {
    return snapshot(false);
  }

  /**
   * The {@link #snapshot()}; with {@code keepJson} the records of a raw query that are kept as
   * their JSON (a filter's {@code SELECT *}) are written as their bytes, not decoded (its panes in
   * the partial format 2, see {@link io.spyglass.core.partial.Partials#encode(Partial, boolean)}).
   */
  public byte[] snapshot(boolean keepJson) {
    PartialWriter out = new PartialWriter(256);
    out.writeRaw(SNAPSHOT_MAGIC, 0, SNAPSHOT_MAGIC.length).writeByte(SNAPSHOT_VERSION);
    out.writeVarInt(panes.length);
    for (int i = 0; i < panes.length; i++) {
      out.writeBytes(io.spyglass.core.partial.Partials.encode(pane(i), keepJson));
    }
    out.writeVarInt(newest).writeVarLong(windowNumber);
    out.writeLong(windowStartMs).writeLong(nextEmitMs).writeLong(emitSecond);
    out.writeVarInt(emitsThisSecond).writeBoolean(done);
    out.writeVarInt(errors.size());
    for (Meta.QueryError e : errors) {
      out.writeString(e.message()).writeString(e.resolution()).writeBoolean(e.fatal());
    }
    out.writeBoolean(events != null);
    if (events != null) {
      events.writeTo(out);
    }
    return out.toByteArray();
  }

  /**
   * A combiner of {@code query} that goes on from a {@link #snapshot()} of a combiner of the same
   * query.
   *
   * @throws PartialFormatException when the bytes are not a snapshot in format 1 or 2, or do not
   *     fit the query (another window or aggregation)
   */
  public static QueryCombiner restore(
      Query query, QueryLimits limits, ResultSink sink, LongSupplier clock, byte[] snapshot) {
    QueryCombiner c = new QueryCombiner(query, limits, sink, clock);
    PartialReader in = new PartialReader(snapshot);
    for (byte b : SNAPSHOT_MAGIC) {
      if (in.readByte() != b) {
        throw new PartialFormatException("not a combiner snapshot: wrong magic bytes");
      }
    }
    int version = in.readByte();
    if (version != 1 && version != SNAPSHOT_VERSION) {
      throw new PartialFormatException(
          "unsupported combiner snapshot version " + version + " (supported: 1 and 2)");
    }
    int paneCount = in.readCount(1);
    if (paneCount != c.panes.length) {
      throw new PartialFormatException(
          "snapshot has " + paneCount + " panes, the query " + query.id() + " " + c.panes.length);
    }
    for (int i = 0; i < paneCount; i++) {
      Partial p = io.spyglass.core.partial.Partials.decode(in.readBytes());
      if (p.kind() != c.pane(i).kind()) {
        throw new PartialFormatException(
            "snapshot pane is "
                + p.kind()
                + ", the query "
                + query.id()
                + " needs "
                + c.pane(i).kind());
      }
      c.panes[i] = p;
    }
    c.newest = in.readVarInt();
    if (c.newest >= Math.max(1, paneCount)) {
      throw new PartialFormatException("newest pane " + c.newest + " of " + paneCount);
    }
    c.windowNumber = in.readVarLong();
    c.windowStartMs = in.readLong();
    c.nextEmitMs = in.readLong();
    c.emitSecond = in.readLong();
    c.emitsThisSecond = in.readVarInt();
    c.done = in.readBoolean();
    int errorCount = in.readCount(3);
    List<Meta.QueryError> errors = new ArrayList<>(errorCount);
    for (int i = 0; i < errorCount; i++) {
      errors.add(new Meta.QueryError(in.readString(), in.readString(), in.readBoolean()));
    }
    c.errors = List.copyOf(errors);
    boolean hasEvents = version >= 2 && in.readBoolean();
    if (hasEvents != (c.events != null)) {
      throw new PartialFormatException(
          "the snapshot "
              + (hasEvents ? "has" : "has no")
              + " event-time windows, the query "
              + query.id()
              + (c.events != null ? " has" : " has none"));
    }
    if (hasEvents) {
      c.events.readFrom(in);
    }
    in.requireEnd();
    return c;
  }

  private record OuterResult(List<Map<String, Object>> rows, Map<String, Object> sketch) {}

  /** Runs the outer query over the inner query's rows of one window. */
  private OuterResult runOuter(QueryPlan outerPlan, List<Map<String, Object>> rows) {
    Query outer =
        new Query(query.id(), query.text(), outerPlan, query.receiveTimeMs(), query.limits());
    QueryEvaluation filter = new QueryEvaluation(outerPlan, outer.limitsOr(limits), clock);
    for (Map<String, Object> row : rows) {
      filter.consume(Record.fromMap(row));
    }
    List<Map<String, Object>> out =
        new PostAggregator(outerPlan.postAggregation(), clock).apply(filter.state().rows());
    return new OuterResult(out, filter.state().metadata());
  }
}

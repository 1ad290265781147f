package io.spyglass.flink;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.partial.Partials;
import io.spyglass.core.plan.Window;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.flink.client.Reply;
import io.spyglass.sources.BadInput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * The combining side: the stream of filter messages keyed by query id, one core {@link
 * QueryCombiner} per query. Event-time timers at each query's next deadline close its windows and
 * end it when every filter subtask's time (the watermark) has passed the deadline; a query whose
 * records end (a bounded source, a stop with drain) finishes on the final watermark.
 *
 * <p>With clock marks, each partial carries the time of its records. One that arrives before every
 * filter has passed that time (another partition is behind) waits, and is merged when the watermark
 * gets there, after the windows due by then have closed: a replay gives the same windows however
 * its partitions interleave.
 *
 * <p>Each query's state (a {@link CombinerQuery}: its message, which subtasks run it, its combiner)
 * is keyed Flink state, in {@link CombinerState}'s format. Queries are used from a cache and
 * written to the state backend for each checkpoint, only those that changed ({@link
 * CombinerWriteAhead}), so merging a partial does not encode the whole state.
 *
 * <p>Replies go to the topic the query names; a query that ends by itself (its duration, its LIMIT,
 * an error) is announced on the query topic, so that the filters drop it at once.
 */
final class CombinerOperator extends AbstractStreamOperator<Outgoing>
    implements TwoInputStreamOperator<FilterMessage, FilterMessage, Outgoing>,
        Triggerable<String, VoidNamespace> {
  private static final long serialVersionUID = 1L;

  /** How long after its end an ended query is remembered, so late messages do not restart it. */
  static final long REMEMBER_MS = 60_000;

  /** Each query's state (keyed by its id), in {@link CombinerState}'s format. */
  static final ValueStateDescriptor<byte[]> STATE = CombinerState.DESCRIPTOR;

  /**
   * The version of a query's state in checkpoints and savepoints: {@link CombinerState#VERSION}.
   */
  static final int STATE_VERSION = CombinerState.VERSION;

  /** How long a query's state stays unchanged before it is written ahead of a checkpoint. */
  static final long QUIET_MS = CombinerWriteAhead.QUIET_MS;

  /** How often queries are written ahead of a checkpoint. */
  static final long WRITE_EVERY_MS = CombinerWriteAhead.WRITE_EVERY_MS;

  private final OperatorSettings settings;

  private transient ValueState<byte[]> state;
  private transient InternalTimerService<VoidNamespace> timers;
  private transient Map<String, CombinerQuery> cache;
  private transient CombinerWriteAhead writeAhead;
  private transient CombinerQuery.Host host;

  /** When the next turn of writing ahead is set ({@link Long#MAX_VALUE}: none). */
  private transient long writeAtMs;

  private transient long lastWatermark;
  private transient Map<Integer, BadInput.Snapshot> badBySubtask;
  private transient boolean input1Ended;
  private transient boolean input2Ended;

  /** Looks at open windows in flight: subtasks that passed each on, by query and request. */
  private transient Map<String, Map<Long, Integer>> looks;

  /** While a shared partial is merged into each query it names: their replies; else null. */
  private transient HeldReplies held;

  CombinerOperator(OperatorSettings settings) {
    this.settings = settings;
  }

  @Override
  public void open() throws Exception {
    super.open();
    state = getPartitionedState(STATE);
    timers = getInternalTimerService("spyglass-deadlines", VoidNamespaceSerializer.INSTANCE, this);
    cache = new HashMap<>();
    badBySubtask = new HashMap<>();
    looks = new HashMap<>();
    writeAhead = new CombinerWriteAhead();
    host = new Host();
    lastWatermark = Long.MIN_VALUE;
    writeAtMs = Long.MAX_VALUE;
  }

  /** The combiner's clock: the wall clock, or the last clock mark's time. */
  private long nowMs() {
    if (settings.clock() == JobOptions.Clock.WALL) {
      return getProcessingTimeService().getCurrentProcessingTime();
    }
    return Math.max(0, lastWatermark);
  }

  @Override
  public void processElement2(StreamRecord<FilterMessage> element) {
    FilterMessage m = element.getValue();
    if (m.kind == FilterMessage.BAD) {
      badBySubtask.put(m.subtask, Statuses.bad(JobStatus.parse(m.payload)));
    }
  }

  @Override
  public void processElement1(StreamRecord<FilterMessage> element) throws Exception {
    FilterMessage m = element.getValue();
    if (m.kind == FilterMessage.STATUS) {
      // a filter subtask's counters, on their way to the status topic
      if (settings.statusTopic() != null) {
        output.collect(
            new StreamRecord<>(
                Outgoing.of(settings.statusTopic(), "subtask-" + m.subtask, null, m.payload)));
      }
      return;
    }
    if (m.sharers != null && m.kind == FilterMessage.PARTIAL) {
      shared(m);
      return;
    }
    handleOne(m.queryId, m);
  }

  private void handleOne(String id, FilterMessage m) throws Exception {
    CombinerQuery a = load(id);
    try {
      handle(a, m);
    } catch (RuntimeException e) {
      failed(cache.get(id), e);
    }
  }

  /**
   * The partial of identical queries that started together: merged into each (every one of them
   * combined here, as the filter placed them), their replies held and sent together ({@link
   * HeldReplies}).
   */
  private void shared(FilterMessage m) throws Exception {
    held = new HeldReplies();
    try {
      handleOne(m.queryId, m);
      int maxParallelism = getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks();
      int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
      int here = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
      for (String id : m.sharers) {
        if (KeyGroupRangeAssignment.assignKeyToParallelOperator(id, maxParallelism, parallelism)
            != here) {
          // the filter places queries by the job's parallelism, which is the combiner's
          LOG.error("query {} is not combined by this subtask: its partial is lost", id);
          continue;
        }
        setCurrentKey(id);
        handleOne(id, m);
      }
    } finally {
      HeldReplies replies = held;
      held = null;
      replies.send(o -> output.collect(new StreamRecord<>(o)));
    }
  }

  /**
   * Ends a query whose handling threw: one query's failure must not fail the job and every other
   * query with it.
   */
  private void failed(CombinerQuery a, RuntimeException e) {
    LOG.warn("query {} failed; ending it", a == null ? "?" : a.id(), e);
    if (a != null && !a.ended) {
      end(a, "The query failed in the job: " + e, true);
    }
  }

  private void handle(CombinerQuery a, FilterMessage m) {
    switch (m.kind) {
      case FilterMessage.START -> start(a, m);
      case FilterMessage.PARTIAL -> {
        if (a != null && !a.ended) {
          if (settings.clock() == JobOptions.Clock.MARKS && m.clockMs > lastWatermark) {
            // another partition has not passed this time yet: wait for the watermark
            a.await(m.clockMs, m.payload);
            timers.registerEventTimeTimer(VoidNamespace.INSTANCE, m.clockMs);
            changed(a);
          } else {
            merge(a, m.payload, at(m));
            settle(a, true);
            closeEventWindowsOnTick(a);
          }
        }
      }
      case FilterMessage.KILL -> {
        if (a != null && !a.ended) {
          end(a, null, false);
        }
      }
      case FilterMessage.FINISH -> {
        if (a != null && !a.ended) {
          a.finishing.set(m.subtask);
          changed(a);
          if (a.finishing.cardinality() >= m.subtasks) {
            catchUp(a, Long.MAX_VALUE);
            if (!a.ended) {
              a.combiner.finish(at(m));
              settle(a, false);
            }
          }
        }
      }
      case FilterMessage.REJECTED -> reject(a, m);
      case FilterMessage.INSPECT -> inspect(a, m);
      case FilterMessage.STATS -> {
        if (a != null && !a.ended) {
          a.keepStats(m.subtask, progress(m));
          a.statsRound.set(m.subtask);
          if (a.statsRound.cardinality() >= m.subtasks) {
            a.statsRound.clear();
            reply(a, Reply.progress(a.id(), a.statsSum()));
          }
          changed(a);
        }
      }
      case FilterMessage.SYNC -> {
        if (a != null && !a.ended) {
          a.keepStats(m.subtask, progress(m));
          int seen = a.syncs.merge(m.sync, 1, Integer::sum);
          if (seen >= m.partitions) {
            a.syncs.remove(m.sync);
            if (m.tick && eventTime(a)) {
              // every record before the tick has reached the query: the clock ticks for it
              a.combiner.advance(nowMs());
              settle(a, true);
            }
            reply(a, Reply.synced(a.id(), m.sync, a.statsSum()));
          }
          changed(a);
        }
      }
      default -> LOG.warn("unknown filter message kind {}", m.kind);
    }
  }

  /**
   * A look at a query's open windows, once every filter subtask has passed it on (after what it
   * held of the query): the open windows (when asked for), each an {@code OPEN} reply, then the
   * answer; without windows, the size of its state as a checkpoint writes it ({@code SAVED}), then
   * the answer. A query unknown or ended gets the answer alone. Not kept in the state.
   */
  private void inspect(CombinerQuery a, FilterMessage m) {
    ControlMessage look = ControlMessage.parse(m.payload);
    Map<Long, Integer> byRequest = looks.computeIfAbsent(m.queryId, k -> new HashMap<>());
    if (byRequest.merge(look.request(), 1, Integer::sum) < m.subtasks) {
      return;
    }
    byRequest.remove(look.request());
    if (byRequest.isEmpty()) {
      looks.remove(m.queryId);
    }
    Reply.Progress stats = Reply.Progress.NONE;
    if (a != null && !a.ended && a.combiner != null) {
      stats = a.statsSum();
      try {
        if (look.windows()) {
          for (io.spyglass.core.result.Result r : a.combiner.peek(nowMs())) {
            answer(look, Reply.open(m.queryId, r));
          }
        } else {
          // a look without windows measures the query's state, as a checkpoint writes it
          answer(look, Reply.saved(m.queryId, CombinerState.encode(a).length, stats));
        }
      } catch (RuntimeException e) {
        // a look that fails answers with what it has: it must not end the query
        LOG.warn("a look at query {} failed", m.queryId, e);
      }
    }
    answer(look, Reply.inspected(m.queryId, look.request(), stats));
  }

  private void answer(ControlMessage look, Reply r) {
    output.collect(
        new StreamRecord<>(Outgoing.of(look.replyTo(), look.queryId(), null, r.encode())));
  }

  private static boolean eventTime(CombinerQuery a) {
    return a.combiner != null && a.query.plan().window() instanceof Window.EventTime;
  }

  /**
   * Event-time windows close when the clock ticks after the partials that made them due: at the
   * next watermark, once every filter subtask has handed on what it read before it (or at a tick
   * mark).
   */
  private void closeEventWindowsOnTick(CombinerQuery a) {
    if (!a.ended && eventTime(a)) {
      timers.registerEventTimeTimer(VoidNamespace.INSTANCE, a.combiner.nextDeadlineMs());
    }
  }

  private void merge(CombinerQuery a, byte[] partial, long atMs) {
    try {
      a.combiner.accept(Partials.decode(partial), atMs);
    } catch (PartialFormatException e) {
      a.combiner.fail("A partial result could not be read: " + e.getMessage(), "Report this", atMs);
    }
  }

  /**
   * Merges the waiting partials up to {@code untilMs} in the order of their times, closing before
   * each the windows due by its time (records at a window's end belong to the next).
   */
  private void catchUp(CombinerQuery a, long untilMs) {
    while (!a.pending.isEmpty() && a.pending.get(0).timeMs() <= untilMs && !a.ended) {
      CombinerQuery.Pending p = a.pending.remove(0);
      a.combiner.advance(p.timeMs());
      if (!a.combiner.isDone()) {
        merge(a, p.partial(), p.timeMs());
      }
      settle(a, true);
      closeEventWindowsOnTick(a);
    }
  }

  /**
   * The time of a message: with clock marks, the sender's clock when it is ahead of the watermark
   * (another subtask has not passed the mark yet), so a replay stamps results alike every time.
   */
  private long at(FilterMessage m) {
    long now = nowMs();
    return settings.clock() == JobOptions.Clock.MARKS ? Math.max(now, m.clockMs) : now;
  }

  private static Reply.Progress progress(FilterMessage m) {
    return new Reply.Progress(m.seen, m.matched, m.errors, m.malformed);
  }

  private void start(CombinerQuery known, FilterMessage m) {
    CombinerQuery a = known;
    if (a == null) {
      ControlMessage message = ControlMessage.parse(m.payload);
      if (message.receiveTimeMs() == ControlMessage.JOB_TIME) {
        message = message.withReceiveTime(nowMs());
      }
      a = new CombinerQuery(host, message, CombinerQuery.parse(message));
      a.combiner = a.newCombiner();
      a.subtasks = m.subtasks;
      cache.put(a.id(), a);
      timers.registerEventTimeTimer(VoidNamespace.INSTANCE, a.combiner.nextDeadlineMs());
    }
    if (a.ended) {
      return;
    }
    a.subtasks = m.subtasks;
    a.badBase.putIfAbsent(m.subtask, m.malformed);
    a.started.set(m.subtask);
    if (!a.runningSent && a.started.cardinality() >= a.subtasks) {
      a.runningSent = true;
      reply(a, Reply.running(a.id()));
    }
    changed(a);
  }

  private void reject(CombinerQuery known, FilterMessage m) {
    if (known == null) {
      CombinerQuery a = new CombinerQuery(host, ControlMessage.parse(m.payload), null);
      cache.put(a.id(), a);
      a.ended = true;
      a.forgetAtMs = forgetAt(a);
      reply(a, Reply.rejected(a.id(), m.error));
      timers.registerEventTimeTimer(VoidNamespace.INSTANCE, a.forgetAtMs);
      changed(a);
    } else if (!known.ended) {
      // another subtask took it: end it everywhere
      end(known, m.error, true);
    }
  }

  /** Ends a query whose combiner is done; {@code announce} tells the filters through the topic. */
  private void settle(CombinerQuery a, boolean announce) {
    if (a.combiner.isDone()) {
      end(a, a.fatalError, announce);
    } else {
      changed(a);
    }
  }

  private void end(CombinerQuery a, String error, boolean announce) {
    a.ended = true;
    a.combiner = null;
    a.pending.clear();
    reply(a, Reply.ended(a.id(), error));
    if (announce && settings.feedbackTopic() != null) {
      output.collect(
          new StreamRecord<>(
              Outgoing.of(
                  settings.feedbackTopic(), a.id(), null, ControlMessage.ended(a.id()).toJson())));
    }
    a.forgetAtMs = forgetAt(a);
    timers.registerEventTimeTimer(VoidNamespace.INSTANCE, a.forgetAtMs);
    changed(a);
  }

  private long forgetAt(CombinerQuery a) {
    long end =
        a.query == null
            ? nowMs()
            : Math.max(a.query.endTimeMs(a.query.limitsOr(CombinerQuery.LIMITS)), nowMs());
    return end > Long.MAX_VALUE - REMEMBER_MS ? Long.MAX_VALUE - 1 : end + REMEMBER_MS;
  }

  @Override
  public void onEventTime(InternalTimer<String, VoidNamespace> timer) throws Exception {
    CombinerQuery a = load(timer.getKey());
    if (a == null) {
      return;
    }
    try {
      onTime(a);
    } catch (RuntimeException e) {
      failed(a, e);
    }
  }

  private void onTime(CombinerQuery a) {
    long watermark = timers.currentWatermark();
    if (a.ended) {
      if (watermark >= a.forgetAtMs && watermark != Long.MAX_VALUE) {
        cache.remove(a.id());
        writeAhead.forget(a.id());
        state.clear();
      }
      return;
    }
    catchUp(a, watermark);
    if (a.ended) {
      return;
    }
    if (watermark == Long.MAX_VALUE) {
      // the records ended: every query gives its final result
      a.combiner.finish(nowMs());
      settle(a, false);
      return;
    }
    a.combiner.advance(watermark);
    settle(a, true);
    if (!a.ended) {
      timers.registerEventTimeTimer(VoidNamespace.INSTANCE, a.combiner.nextDeadlineMs());
    }
  }

  @Override
  public void onProcessingTime(InternalTimer<String, VoidNamespace> timer) {
    // no processing-time timers
  }

  /**
   * Time comes from the filters' messages (input 1) alone: the bad-input counts (input 2) travel on
   * other channels and must not hold windows back, nor let them close before the partials and syncs
   * that precede a watermark on input 1. Only the end of input waits for both, so that the final
   * results carry the filters' last counts.
   */
  @Override
  public void processWatermark1(Watermark mark) throws Exception {
    if (mark.getTimestamp() == Long.MAX_VALUE) {
      input1Ended = true;
      if (!input2Ended) {
        return;
      }
    }
    processWatermark(mark);
  }

  @Override
  public void processWatermark2(Watermark mark) throws Exception {
    if (mark.getTimestamp() == Long.MAX_VALUE) {
      input2Ended = true;
      if (input1Ended) {
        processWatermark(mark);
      }
    }
  }

  @Override
  protected void processWatermarkStatus(WatermarkStatus status, int index) {
    // the filters never go idle (they tick); the counts' channels carry no time
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    if (mark.getTimestamp() != Long.MAX_VALUE) {
      lastWatermark = Math.max(lastWatermark, mark.getTimestamp());
    }
    super.processWatermark(mark);
  }

  private void reply(CombinerQuery a, Reply r) {
    if (held != null) {
      held.add(a, r);
      return;
    }
    output.collect(
        new StreamRecord<>(
            Outgoing.of(a.message.replyTo(), a.id(), a.message.instance(), r.encode())));
  }

  private void changed(CombinerQuery a) {
    long now = getProcessingTimeService().getCurrentProcessingTime();
    writeAhead.changed(a.id(), now);
    writeAt(now + QUIET_MS);
  }

  /**
   * Writes ahead the state of queries that have been quiet (see {@link CombinerWriteAhead}), then
   * sets the next turn: none while no query waits to be written, so that an idle combiner is not
   * woken.
   */
  private void writeQuiet(long now) throws IOException {
    if (now >= writeAtMs) {
      writeAtMs = Long.MAX_VALUE;
    }
    writeAhead.writeQuiet(now, this::write);
    writeAt(writeAhead.nextTurnMs(now));
  }

  /** Makes sure a turn of writing ahead comes at {@code atMs} or before. */
  private void writeAt(long atMs) {
    if (atMs < writeAtMs) {
      writeAtMs = atMs;
      getProcessingTimeService().registerTimer(atMs, this::writeQuiet);
    }
  }

  private void write(String id) throws IOException {
    CombinerQuery a = cache.get(id);
    setCurrentKey(id);
    if (a == null) {
      state.clear();
    } else {
      state.update(CombinerState.encode(a));
    }
  }

  // ---- state

  /** The query's state from the cache, or from the state backend; null when unknown. */
  private CombinerQuery load(String id) throws Exception {
    CombinerQuery a = cache.get(id);
    if (a == null) {
      byte[] bytes = state.value();
      if (bytes != null) {
        a = CombinerState.decode(bytes, host);
        cache.put(id, a);
      }
    }
    return a;
  }

  /**
   * A checkpoint's barrier reaches this operator once every filter subtask has passed it, and each
   * hands on what it read before it first: here, as at a tick, every record read before it has
   * reached each query, so event-time windows advance (wall clock; with clock marks the marks close
   * them). The state saved then holds the windows closed as of the barrier, so a run restored from
   * it decides what is late as the run that saved it did: with the ticks alone, a window still open
   * in the saved state took a document that the first run had counted late.
   */
  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    if (settings.clock() != JobOptions.Clock.WALL) {
      return;
    }
    long now = nowMs();
    for (CombinerQuery a : new ArrayList<>(cache.values())) {
      if (!a.ended && eventTime(a)) {
        setCurrentKey(a.id());
        try {
          a.combiner.advance(now);
          settle(a, true);
        } catch (RuntimeException e) {
          failed(a, e);
        }
      }
    }
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    writeAhead.snapshot(getProcessingTimeService().getCurrentProcessingTime(), this::write);
  }

  /** What the queries need of this operator. */
  private final class Host implements CombinerQuery.Host {
    @Override
    public long nowMs() {
      return CombinerOperator.this.nowMs();
    }

    @Override
    public void reply(CombinerQuery q, Reply r) {
      CombinerOperator.this.reply(q, r);
    }

    @Override
    public void emit(Outgoing o) {
      output.collect(new StreamRecord<>(o));
    }

    @Override
    public BadInput.Snapshot badOf(int subtask) {
      return badBySubtask.getOrDefault(subtask, BadInput.Snapshot.EMPTY);
    }
  }
}

package io.spyglass.flink;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.partial.PartialReader;
import io.spyglass.core.partial.PartialWriter;
import io.spyglass.core.partial.Partials;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.Window;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.flink.client.Reply;
import io.spyglass.sources.BadInput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
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
 * <p>Each query's state (its message, which subtasks run it, its combiner's snapshot) is keyed
 * Flink state. Combiners are used from a cache and written to the state backend for each
 * checkpoint, only those that changed, so merging a partial does not encode the whole state.
 *
 * <p>Replies go to the topic the query names; a query that ends by itself (its duration, its LIMIT,
 * an error) is announced on the query topic, so that the filters drop it at once.
 */
final class CombinerOperator extends AbstractStreamOperator<Outgoing>
    implements TwoInputStreamOperator<FilterMessage, FilterMessage, Outgoing>,
        Triggerable<String, VoidNamespace> {
  private static final long serialVersionUID = 1L;

  private static final QueryLimits LIMITS = QueryLimits.DEFAULTS;

  /** How long after its end an ended query is remembered, so late messages do not restart it. */
  static final long REMEMBER_MS = 60_000;

  /** Each query's state (keyed by its id): {@link #STATE_VERSION}'s format, see {@link #encode}. */
  static final ValueStateDescriptor<byte[]> STATE =
      new ValueStateDescriptor<>(
          "spyglass-query", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

  /**
   * The version of a query's state in checkpoints and savepoints; golden files in the tests hold it
   * (state/combiner-state-v2*.hex), and docs/flink.md names it. Version 2 is version 1 where the
   * partials of a raw query (its window, the partials waiting) may hold records as their JSON
   * (partial format 2); version 1 states are read too.
   */
  static final int STATE_VERSION = 2;

  /** The oldest version of a query's state this job restores. */
  static final int OLDEST_STATE_VERSION = 1;

  /** How long a query's state stays unchanged before it is written ahead of a checkpoint. */
  static final long QUIET_MS = 200;

  /**
   * How often, and for how long at most, queries are written ahead: a result waits at most that.
   */
  static final long WRITE_EVERY_MS = 10;

  static final long WRITE_BUDGET_NANOS = 5_000_000;

  /** How long before a checkpoint writing ahead is done, at the latest. */
  static final long WRITE_LEAD_MS = 1_000;

  private final OperatorSettings settings;

  private transient ValueState<byte[]> state;
  private transient InternalTimerService<VoidNamespace> timers;
  private transient Map<String, Active> cache;

  /**
   * Queries whose state changed since it was last written to the state backend, with when each last
   * changed (wall clock), the longest unchanged first.
   */
  private transient LinkedHashMap<String, Long> dirty;

  /** Queries written ahead of the coming checkpoint: one that changes again waits for it. */
  private transient Set<String> written;

  /** Queries that changed after being written ahead: the checkpoint writes them. */
  private transient Set<String> dirtyAgain;

  /** When the last checkpoint's snapshot was taken, and the time between the last two (or -1). */
  private transient long lastSnapshotMs;

  private transient long intervalMs;

  /** The time to write one query's state, averaged. */
  private transient double writeNanos;

  private transient long lastWatermark;
  private transient Map<Integer, BadInput.Snapshot> badBySubtask;
  private transient boolean input1Ended;
  private transient boolean input2Ended;

  CombinerOperator(OperatorSettings settings) {
    this.settings = settings;
  }

  /** One query's combining state. */
  private final class Active {
    final ControlMessage message;

    /** The message's JSON, as the state holds it (made once). */
    private byte[] messageJson;

    byte[] messageJson() {
      if (messageJson == null) {
        messageJson = message.toJson();
      }
      return messageJson;
    }

    /** The parsed query; null for a refused one, which only keeps the query from starting again. */
    Query query;

    QueryCombiner combiner;
    final BitSet started = new BitSet();
    final BitSet finishing = new BitSet();
    int subtasks;
    boolean runningSent;
    boolean ended;
    String fatalError;
    long forgetAtMs;
    Reply.Progress[] stats = new Reply.Progress[0];
    final BitSet statsRound = new BitSet();
    final Map<Long, Integer> syncs = new HashMap<>();

    /**
     * Per filter subtask, the bad input it had counted when it started the query: a snapshot, or (a
     * Long) the count its start message told, until a snapshot of that count arrives. Bad input
     * travels on another channel than the start, so either may come first. Not kept in state.
     */
    final Map<Integer, Object> badBase = new HashMap<>();

    /** The bad input since the start that results have told so far. */
    BadInput.Snapshot badTold = BadInput.Snapshot.EMPTY;

    /** With clock marks: partials ahead of the watermark, in the order of their times. */
    final List<Pending> pending = new ArrayList<>();

    Active(ControlMessage message, Query query) {
      this.message = message;
      this.query = query;
      this.sinkWriter = SinkWriter.of(message);
    }

    String id() {
      return message.queryId();
    }

    void onResult(Query q, Result result) {
      Result r = result;
      BadInput.Snapshot now = badSinceStart();
      if (now.total() != badTold.total()) {
        r = new Result(r.records(), r.meta().withBadInput(now.since(badTold)));
        badTold = now;
      }
      for (Meta.QueryError e : r.meta().errors()) {
        if (e.fatal() && fatalError == null) {
          fatalError = e.message() + ". " + e.resolution();
        }
      }
      reply(this, Reply.result(q.id(), r));
      if (sinkWriter != null) { // its Kafka sinks, in the replies' transaction
        sinkWriter.messages(r).forEach(o -> output.collect(new StreamRecord<>(o)));
      }
    }

    /** Its Kafka sinks; null without any. */
    final SinkWriter sinkWriter;

    /** The bad input the filter subtasks counted since each of them started the query. */
    BadInput.Snapshot badSinceStart() {
      BadInput.Snapshot sum = BadInput.Snapshot.EMPTY;
      for (Map.Entry<Integer, Object> e : badBase.entrySet()) {
        BadInput.Snapshot latest = badBySubtask.getOrDefault(e.getKey(), BadInput.Snapshot.EMPTY);
        if (e.getValue() instanceof Long count) {
          if (count == 0) {
            e.setValue(BadInput.Snapshot.EMPTY);
          } else if (latest.total() >= count) {
            e.setValue(latest);
          } else {
            continue;
          }
        }
        BadInput.Snapshot base = (BadInput.Snapshot) e.getValue();
        sum = sum.plus(subtract(latest, base));
      }
      return sum;
    }

    QueryCombiner newCombiner() {
      return new QueryCombiner(
          query, query.limitsOr(LIMITS), this::onResult, CombinerOperator.this::nowMs);
    }

    void keepStats(int subtask, Reply.Progress p) {
      if (subtask >= stats.length) {
        stats = Arrays.copyOf(stats, Math.max(subtask + 1, subtasks));
      }
      stats[subtask] = p;
    }

    Reply.Progress statsSum() {
      Reply.Progress sum = Reply.Progress.NONE;
      for (Reply.Progress p : stats) {
        if (p != null) {
          sum = sum.plus(p);
        }
      }
      return sum;
    }
  }

  /** A partial waiting for the watermark to reach its time. */
  private record Pending(long timeMs, byte[] partial) {}

  @Override
  public void open() throws Exception {
    super.open();
    state = getPartitionedState(STATE);
    timers = getInternalTimerService("spyglass-deadlines", VoidNamespaceSerializer.INSTANCE, this);
    cache = new HashMap<>();
    badBySubtask = new HashMap<>();
    dirty = new LinkedHashMap<>(16, 0.75f, true);
    written = new HashSet<>();
    dirtyAgain = new HashSet<>();
    lastSnapshotMs = -1;
    intervalMs = -1;
    writeNanos = 20_000;
    lastWatermark = Long.MIN_VALUE;
    long now = getProcessingTimeService().getCurrentProcessingTime();
    getProcessingTimeService().registerTimer(now + WRITE_EVERY_MS, this::writeQuiet);
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

  /** {@code later} less {@code earlier}, reason by reason (places: the later ones). */
  private static BadInput.Snapshot subtract(BadInput.Snapshot later, BadInput.Snapshot earlier) {
    if (earlier.isEmpty()) {
      return later;
    }
    Map<BadRecord, Long> counts = new EnumMap<>(BadRecord.class);
    later
        .counts()
        .forEach(
            (reason, n) -> {
              long d = n - earlier.counts().getOrDefault(reason, 0L);
              if (d > 0) {
                counts.put(reason, d);
              }
            });
    return counts.isEmpty()
        ? BadInput.Snapshot.EMPTY
        : new BadInput.Snapshot(counts, later.places());
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
    Active a = load(m.queryId);
    try {
      handle(a, m);
    } catch (RuntimeException e) {
      failed(cache.get(m.queryId), e);
    }
  }

  /**
   * Ends a query whose handling threw: one query's failure must not fail the job and every other
   * query with it.
   */
  private void failed(Active a, RuntimeException e) {
    LOG.warn("query {} failed; ending it", a == null ? "?" : a.id(), e);
    if (a != null && !a.ended) {
      end(a, "The query failed in the job: " + e, true);
    }
  }

  private void handle(Active a, FilterMessage m) {
    switch (m.kind) {
      case FilterMessage.START -> start(a, m);
      case FilterMessage.PARTIAL -> {
        if (a != null && !a.ended) {
          if (settings.clock() == JobOptions.Clock.MARKS && m.clockMs > lastWatermark) {
            // another partition has not passed this time yet: wait for the watermark
            int at = a.pending.size();
            while (at > 0 && a.pending.get(at - 1).timeMs() > m.clockMs) {
              at--;
            }
            a.pending.add(at, new Pending(m.clockMs, m.payload));
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

  private static boolean eventTime(Active a) {
    return a.combiner != null && a.query.plan().window() instanceof Window.EventTime;
  }

  /**
   * Event-time windows close when the clock ticks after the partials that made them due: at the
   * next watermark, once every filter subtask has handed on what it read before it (or at a tick
   * mark).
   */
  private void closeEventWindowsOnTick(Active a) {
    if (!a.ended && eventTime(a)) {
      timers.registerEventTimeTimer(VoidNamespace.INSTANCE, a.combiner.nextDeadlineMs());
    }
  }

  private void merge(Active a, byte[] partial, long atMs) {
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
  private void catchUp(Active a, long untilMs) {
    while (!a.pending.isEmpty() && a.pending.get(0).timeMs() <= untilMs && !a.ended) {
      Pending p = a.pending.remove(0);
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

  private void start(Active known, FilterMessage m) {
    Active a = known;
    if (a == null) {
      ControlMessage message = ControlMessage.parse(m.payload);
      if (message.receiveTimeMs() == ControlMessage.JOB_TIME) {
        message = message.withReceiveTime(nowMs());
      }
      a = new Active(message, parse(message));
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

  private void reject(Active known, FilterMessage m) {
    if (known == null) {
      Active a = new Active(ControlMessage.parse(m.payload), null);
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
  private void settle(Active a, boolean announce) {
    if (a.combiner.isDone()) {
      end(a, a.fatalError, announce);
    } else {
      changed(a);
    }
  }

  private void end(Active a, String error, boolean announce) {
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

  private static Query parse(ControlMessage m) {
    // under the limits it was checked with where it was submitted, else the defaults
    return Query.parse(m.queryId(), m.bql(), m.limitsOr(LIMITS), m.receiveTimeMs());
  }

  private long forgetAt(Active a) {
    long end =
        a.query == null ? nowMs() : Math.max(a.query.endTimeMs(a.query.limitsOr(LIMITS)), nowMs());
    return end > Long.MAX_VALUE - REMEMBER_MS ? Long.MAX_VALUE - 1 : end + REMEMBER_MS;
  }

  @Override
  public void onEventTime(InternalTimer<String, VoidNamespace> timer) throws Exception {
    Active a = load(timer.getKey());
    if (a == null) {
      return;
    }
    try {
      onTime(a);
    } catch (RuntimeException e) {
      failed(a, e);
    }
  }

  private void onTime(Active a) {
    long watermark = timers.currentWatermark();
    if (a.ended) {
      if (watermark >= a.forgetAtMs && watermark != Long.MAX_VALUE) {
        cache.remove(a.id());
        dirty.remove(a.id());
        dirtyAgain.remove(a.id());
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

  private void reply(Active a, Reply r) {
    output.collect(
        new StreamRecord<>(
            Outgoing.of(a.message.replyTo(), a.id(), a.message.instance(), r.encode())));
  }

  private void changed(Active a) {
    if (written.contains(a.id())) {
      dirtyAgain.add(a.id());
    } else {
      dirty.put(a.id(), getProcessingTimeService().getCurrentProcessingTime());
    }
  }

  /**
   * Writes the state of queries that have not changed for {@value #QUIET_MS} ms, for at most
   * {@value #WRITE_BUDGET_NANOS} ns a turn, every {@value #WRITE_EVERY_MS} ms: a checkpoint then
   * writes only the queries that changed shortly before it. Encoding every query's state in the
   * checkpoint's synchronous part holds the results of every query back meanwhile: with 10,000
   * needle queries that have each found a record, hundreds of ms. A query is written ahead once per
   * checkpoint at most (one that changes again is written by the checkpoint), so this never more
   * than doubles the encoding; and, once the checkpoints' pace is known, shortly before the next
   * checkpoint (see {@link #writeFromMs}), so that queries changing every few seconds are mostly
   * written once, by the checkpoint.
   */
  private void writeQuiet(long now) throws IOException {
    getProcessingTimeService().registerTimer(now + WRITE_EVERY_MS, this::writeQuiet);
    if (dirty.isEmpty() || now < writeFromMs()) {
      return;
    }
    long start = System.nanoTime();
    long until = start + WRITE_BUDGET_NANOS;
    int n = 0;
    for (var it = dirty.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Long> e = it.next();
      if (now - e.getValue() < QUIET_MS || System.nanoTime() >= until) {
        break;
      }
      write(e.getKey());
      written.add(e.getKey());
      it.remove();
      n++;
    }
    if (n > 0) {
      writeNanos += ((double) (System.nanoTime() - start) / n - writeNanos) / 4;
    }
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

  private void write(String id) throws IOException {
    Active a = cache.get(id);
    setCurrentKey(id);
    if (a == null) {
      state.clear();
    } else {
      state.update(encode(a));
    }
  }

  // ---- state

  /** The query's state from the cache, or from the state backend; null when unknown. */
  private Active load(String id) throws Exception {
    Active a = cache.get(id);
    if (a == null) {
      byte[] bytes = state.value();
      if (bytes != null) {
        a = decode(bytes);
        cache.put(id, a);
      }
    }
    return a;
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    long now = getProcessingTimeService().getCurrentProcessingTime();
    if (lastSnapshotMs > 0 && now > lastSnapshotMs) {
      intervalMs = now - lastSnapshotMs;
    }
    lastSnapshotMs = now;
    for (String id : dirty.keySet()) {
      write(id);
    }
    for (String id : dirtyAgain) {
      write(id);
    }
    dirty.clear();
    dirtyAgain.clear();
    written.clear();
  }

  /**
   * A query's state, version {@value #STATE_VERSION} (in the core's partial writer's encoding:
   * varints, little-endian longs, byte strings with their length first): the version (a byte), the
   * query's message (JSON), the subtasks, the subtasks that started it and those finishing it (bit
   * sets: a count of longs, the longs), whether RUNNING was sent, whether it ended, its fatal error
   * (a flag, the text), when it is forgotten (epoch ms), its combiner's snapshot ({@code SGQC}, a
   * flag first), each subtask's counters (seen, matched, evaluation errors, malformed), the
   * subtasks of the counters' current round, the sync marks in flight (mark, partitions seen) and,
   * with clock marks, the partials waiting for the watermark (time, partial {@code SGPS}).
   */
  private byte[] encode(Active a) {
    PartialWriter out = new PartialWriter(256);
    out.writeByte(STATE_VERSION);
    out.writeBytes(a.messageJson());
    out.writeVarInt(a.subtasks);
    writeBits(out, a.started);
    writeBits(out, a.finishing);
    out.writeBoolean(a.runningSent).writeBoolean(a.ended);
    out.writeBoolean(a.fatalError != null);
    if (a.fatalError != null) {
      out.writeString(a.fatalError);
    }
    out.writeLong(a.forgetAtMs);
    out.writeBoolean(a.combiner != null);
    if (a.combiner != null) {
      out.writeBytes(a.combiner.snapshot(true)); // records of SELECT * as their JSON
    }
    out.writeVarInt(a.stats.length);
    for (Reply.Progress p : a.stats) {
      Reply.Progress q = p == null ? Reply.Progress.NONE : p;
      out.writeVarLong(q.seen()).writeVarLong(q.matched());
      out.writeVarLong(q.evaluationErrors()).writeVarLong(q.malformed());
    }
    writeBits(out, a.statsRound);
    out.writeVarInt(a.syncs.size());
    a.syncs.forEach((s, n) -> out.writeVarLong(s).writeVarInt(n));
    out.writeVarInt(a.pending.size());
    for (Pending p : a.pending) {
      out.writeLong(p.timeMs()).writeBytes(p.partial());
    }
    return out.toByteArray();
  }

  private Active decode(byte[] bytes) {
    PartialReader in = new PartialReader(bytes);
    int version = in.readByte();
    if (version < OLDEST_STATE_VERSION || version > STATE_VERSION) {
      throw new PartialFormatException(
          "a query's combiner state is of version "
              + version
              + ", this job reads versions "
              + OLDEST_STATE_VERSION
              + " to "
              + STATE_VERSION
              + ": restore the checkpoint or savepoint with the version of the job that wrote it");
    }
    Active a = new Active(ControlMessage.parse(in.readBytes()), null);
    a.subtasks = in.readVarInt();
    readBits(in, a.started);
    // the filters count bad input again from zero after a restore, as does this operator
    a.started.stream().forEach(i -> a.badBase.put(i, BadInput.Snapshot.EMPTY));
    readBits(in, a.finishing);
    a.runningSent = in.readBoolean();
    a.ended = in.readBoolean();
    a.fatalError = in.readBoolean() ? in.readString() : null;
    a.forgetAtMs = in.readLong();
    if (in.readBoolean()) {
      a.query = parse(a.message);
      a.combiner =
          QueryCombiner.restore(
              a.query, a.query.limitsOr(LIMITS), a::onResult, this::nowMs, in.readBytes());
    }
    int n = in.readCount(4);
    a.stats = new Reply.Progress[n];
    for (int i = 0; i < n; i++) {
      a.stats[i] =
          new Reply.Progress(
              in.readVarLong(), in.readVarLong(), in.readVarLong(), in.readVarLong());
    }
    readBits(in, a.statsRound);
    int syncs = in.readCount(2);
    for (int i = 0; i < syncs; i++) {
      a.syncs.put(in.readVarLong(), in.readVarInt());
    }
    int pending = in.readCount(9);
    for (int i = 0; i < pending; i++) {
      a.pending.add(new Pending(in.readLong(), in.readBytes()));
    }
    in.requireEnd();
    return a;
  }

  private static void writeBits(PartialWriter out, BitSet bits) {
    long[] words = bits.toLongArray();
    out.writeVarInt(words.length);
    for (long w : words) {
      out.writeLong(w);
    }
  }

  private static void readBits(PartialReader in, BitSet into) {
    int n = in.readCount(8);
    long[] words = new long[n];
    for (int i = 0; i < n; i++) {
      words[i] = in.readLong();
    }
    into.or(BitSet.valueOf(words));
  }
}

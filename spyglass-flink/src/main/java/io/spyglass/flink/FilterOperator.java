package io.spyglass.flink;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.Partials;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.PartialSink;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.flink.client.MessageFormatException;
import io.spyglass.sources.BadInput;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.OutputTag;

/**
 * The filter side of every running query, one instance per parallel subtask. In the Kafka job it is
 * chained to its subtask of {@link KafkaInput} and has one input, which carries both the subtask's
 * records and every message of the query topic ({@link RecordBatch#isQuery()}), in the source's
 * thread. Where records travel apart from the queries (spread over the filters, or a benchmark's
 * stages before the filter) input 1 is records and input 2 the query topic, broadcast to every
 * subtask. Query messages may carry their place in the query topic ({@link QueryPlaces}). The
 * running queries ({@link FilterQueries}) are the operator's broadcast state (their query messages
 * by id), and evaluation runs through the core's {@link FilterSet}, query index included: a record
 * no query can match is ruled out from its bytes and never decoded ({@link FilterSet#read}).
 *
 * <p>Partials leave in the core's binary format, keyed by query (the records a {@code SELECT *}
 * matched as their JSON, as read: nothing decodes them on their way to the reader); a raw query's
 * matches after {@code batchRecords} records or {@code batchMs}; every partial before time moves on
 * (a tick of the wall clock, or a clock mark's watermark) and before each checkpoint barrier, so a
 * checkpoint never holds a partial in the filter. After the flush the subtask sends its time on as
 * a watermark: the combiner closes windows when every subtask has passed their time, and then holds
 * every record read before it.
 *
 * <p>Queries end here at their end time; the combiner tells the filters through the query topic (an
 * {@code ended} message) when a query ends earlier.
 */
final class FilterOperator extends AbstractStreamOperator<FilterMessage>
    implements TwoInputStreamOperator<RecordBatch, byte[], FilterMessage>,
        OneInputStreamOperator<RecordBatch, FilterMessage> {
  private static final long serialVersionUID = 1L;

  /** Virtual fields, as the embedded engine sets them. */
  static final String READ_TIME = "_read_ms";

  static final String KAFKA_PARTITION = "_kafka_partition";
  static final String KAFKA_OFFSET = "_kafka_offset";
  static final String KAFKA_TIMESTAMP = "_kafka_timestamp";

  /**
   * This subtask's queries it has not announced to their combiners yet (waiting for the records to
   * reach their time), as of the checkpoint: announced after a restore. Split list state, so each
   * subtask gets its own back when the parallelism stays the same.
   */
  private static final ListStateDescriptor<String> UNANNOUNCED =
      new ListStateDescriptor<>("spyglass-unannounced", BasicTypeInfo.STRING_TYPE_INFO);

  private static final String SHAPE = "\u0000subtasks=";

  private static final long STATUS_EVERY_MS = 1_000;

  /**
   * This subtask's count of bad input since it started, sent to every combiner subtask before time
   * moves on when it changed: a result tells the bad input skipped since the previous one.
   */
  static final OutputTag<FilterMessage> BAD =
      new OutputTag<>("spyglass-bad-input", TypeInformation.of(FilterMessage.class));

  private final OperatorSettings settings;
  private final List<byte[]> initialQueries;

  private transient QueryPlaces places;
  private transient ListState<String> unannounced;
  private transient FilterSet filters;
  private transient FilterQueries queries;

  /** Messages made before the operator was open (queries of a local run), sent at first chance. */
  private transient List<FilterMessage> pending;

  private transient boolean opened;

  /** When the timer is next set to run ({@link Long#MAX_VALUE}: not set). */
  private transient long timerAtMs;

  private transient Record record;

  /** The filter's watermark: the last tick (wall clock) or clock mark passed by every partition. */
  private transient long clockMs;

  /**
   * With clock marks: the time of the records whose partials the filter holds; the partials are
   * flushed before records of another time come in, so each partial belongs to one time.
   */
  private transient long epochMs;

  private transient boolean inputEnded;
  private transient long malformed;
  private transient int sinceBatch;
  private transient long lastTickMs;
  private transient long lastProgressMs;
  private transient int subtask;
  private transient int subtasks;

  /** The key groups of the combiners (theirs are this operator's: the same job, parallelism). */
  private transient int maxParallelism;

  private transient Counter recordsIn;
  private transient Counter malformedIn;
  private transient BadInput bad;
  private transient BadInput.Snapshot sourceBad;
  private transient long recordsRead;
  private transient long lastStatusMs;
  private transient long badSent;

  /** A record read since the last status, for the next one (one a second). */
  private transient byte[] sample;

  private transient boolean sampleWanted;

  /**
   * @param initialQueries query messages (JSON) to run from the start, before any record is read (a
   *     local run); ignored when the operator restores its state
   */
  FilterOperator(OperatorSettings settings, List<byte[]> initialQueries) {
    this.settings = settings;
    this.initialQueries = List.copyOf(initialQueries);
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    subtasks = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
    maxParallelism = getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks();
    filters = new FilterSet(FilterQueries.LIMITS, this::nowMs, new ToCombiners());
    // identical queries that start together (such as copies of one query submitted at once) share
    // one evaluation and one partial
    filters.shareIdentical(true);
    if (settings.virtualFields()) {
      filters.virtualFields(Set.of(READ_TIME, KAFKA_PARTITION, KAFKA_OFFSET, KAFKA_TIMESTAMP));
    }
    pending = new ArrayList<>();
    bad = new BadInput();
    sourceBad = BadInput.Snapshot.EMPTY;
    record = new Record(128);
    clockMs = Long.MIN_VALUE;
    epochMs = Long.MIN_VALUE;
    queries =
        new FilterQueries(
            settings,
            filters,
            getOperatorStateBackend().getBroadcastState(FilterQueries.QUERIES),
            new Host(),
            subtask,
            subtasks);
    places = new QueryPlaces(getOperatorStateBackend().getBroadcastState(QueryPlaces.POSITIONS));
    unannounced = getOperatorStateBackend().getListState(UNANNOUNCED);
    if (context.isRestored()) {
      places.restore();
      Set<String> owed = new HashSet<>();
      unannounced.get().forEach(owed::add);
      boolean rescaled = !owed.contains(SHAPE + subtasks);
      for (Map.Entry<String, byte[]> e : queries.stored().entrySet()) {
        // the combiners restored the STARTs they had: only the ones owed are sent
        boolean announce = rescaled || owed.contains(e.getKey());
        queries.install(ControlMessage.parse(e.getValue()), e.getValue(), announce);
      }
    } else {
      for (byte[] json : initialQueries) {
        queries.install(ControlMessage.parse(json), json, true);
      }
    }
  }

  /** What the queries see of this subtask. */
  private final class Host implements FilterQueries.Host {
    @Override
    public long nowMs() {
      return FilterOperator.this.nowMs();
    }

    @Override
    public long clockMs() {
      return clockMs;
    }

    @Override
    public long epochMs() {
      return epochMs;
    }

    @Override
    public long malformed() {
      return malformed;
    }

    @Override
    public long badTotal() {
      return bad.snapshot().plus(sourceBad).total();
    }

    @Override
    public void emit(FilterMessage m) {
      FilterOperator.this.emit(m);
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    recordsIn = getMetricGroup().counter("spyglassRecords");
    malformedIn = getMetricGroup().counter("spyglassMalformedRecords");
    long now = getProcessingTimeService().getCurrentProcessingTime();
    lastTickMs = now;
    lastProgressMs = now;
    timerAtMs = Long.MAX_VALUE;
    timerAt(now + settings.batchMs());
    opened = true;
  }

  /** The filter's clock: the wall clock, or the time of the records it holds (clock marks). */
  private long nowMs() {
    if (settings.clock() == JobOptions.Clock.WALL) {
      return getProcessingTimeService().getCurrentProcessingTime();
    }
    return Math.max(0, Math.max(clockMs, epochMs));
  }

  // ---- records

  /** The chained input: records and query messages in one stream. */
  @Override
  public void processElement(StreamRecord<RecordBatch> element) {
    RecordBatch b = element.getValue();
    if (b.isQuery()) {
      startPending();
      query(b.query, (int) b.positions[0], b.positions[1]);
    } else {
      processElement1(element);
    }
  }

  @Override
  public void processElement1(StreamRecord<RecordBatch> element) {
    startPending();
    RecordBatch b = element.getValue();
    if (b.sourceBad != null) {
      sourceBad = Statuses.bad(JobStatus.parse(b.sourceBad));
    }
    if (b.isMark()) {
      if (b.markSync >= 0) {
        sync(b.markSync, b.markPartitions, b.markTick);
      }
      return;
    }
    long readMs = b.readTimeMs;
    if (settings.clock() == JobOptions.Clock.MARKS) {
      // the records' time: their Kafka timestamp, written by whoever replays them
      long time = element.hasTimestamp() ? element.getTimestamp() : clockMs;
      if (time != epochMs) {
        flushAll();
        epochMs = time;
        queries.activateUntil(time);
      }
      readMs = nowMs();
    }
    long noValue = 0;
    for (int i = 0; i < b.count; i++) {
      int start = b.start(i);
      if (b.ends[i] == start) {
        noValue++;
        bad.add(BadRecord.NO_VALUE, b.where(i));
        continue;
      }
      boolean mayMatch;
      try {
        mayMatch = filters.read(b.data, start, b.ends[i] - start, record);
      } catch (MalformedRecordException e) {
        noValue++;
        bad.add(e.reason(), b.where(i));
        continue;
      }
      if (sampleWanted) {
        sample = Arrays.copyOfRange(b.data, start, b.ends[i]);
        sampleWanted = false;
      }
      if (!mayMatch) {
        // no query can match it: ruled out from its bytes, never decoded (it counts as seen)
        countForBatch();
        continue;
      }
      if (settings.virtualFields()) {
        record.putLong(READ_TIME, readMs);
        if (b.positioned) {
          record.putLong(KAFKA_PARTITION, b.positions[3 * i]);
          record.putLong(KAFKA_OFFSET, b.positions[3 * i + 1]);
          record.putLong(KAFKA_TIMESTAMP, b.positions[3 * i + 2]);
        }
      }
      filters.process(record);
      countForBatch();
    }
    if (b.count > 1 && sinceBatch > 0) {
      endBatch();
    }
    if (sinceBatch > 0) {
      // raw matches may wait: the batch ends within batchMs
      timerAt(getProcessingTimeService().getCurrentProcessingTime() + settings.batchMs());
    }
    malformed += noValue;
    recordsRead += b.count - noValue;
    recordsIn.inc(b.count - noValue);
    malformedIn.inc(noValue);
  }

  private void countForBatch() {
    if (++sinceBatch >= settings.batchRecords()) {
      endBatch();
    }
  }

  private void endBatch() {
    filters.endOfBatch();
    sinceBatch = 0;
  }

  private void flushAll() {
    filters.endOfBatch();
    filters.flush();
    sinceBatch = 0;
  }

  private void onPartial(Query query, Partial partial) {
    FilterMessage m =
        FilterMessage.of(
            FilterMessage.PARTIAL,
            query.id(),
            subtask,
            subtasks,
            // the records of a SELECT * go as the bytes they were read from, never decoded
            Partials.encode(partial, true));
    // with clock marks, a partial holds records of one time: its own
    m.clockMs = settings.clock() == JobOptions.Clock.MARKS && epochMs >= 0 ? epochMs : nowMs();
    emit(m);
  }

  /** Where the filter set's partials go. */
  private final class ToCombiners implements PartialSink {
    @Override
    public void accept(Query query, Partial partial) {
      onPartial(query, partial);
    }

    @Override
    public void accept(Query query, List<Query> sharers, Partial partial) {
      onShared(query, sharers, partial);
    }
  }

  /**
   * The partial of queries that share one filter: encoded once, and sent once to each combiner
   * subtask that combines some of them, keyed by one of those and naming the others there.
   */
  private void onShared(Query query, List<Query> sharers, Partial partial) {
    byte[] payload = Partials.encode(partial, true);
    long at = settings.clock() == JobOptions.Clock.MARKS && epochMs >= 0 ? epochMs : nowMs();
    Map<Integer, List<String>> byCombiner = new LinkedHashMap<>();
    group(byCombiner, query.id());
    for (Query q : sharers) {
      group(byCombiner, q.id());
    }
    for (List<String> ids : byCombiner.values()) {
      FilterMessage m =
          FilterMessage.of(FilterMessage.PARTIAL, ids.get(0), subtask, subtasks, payload);
      if (ids.size() > 1) {
        m.sharers = ids.subList(1, ids.size()).toArray(new String[0]);
      }
      m.clockMs = at;
      emit(m);
    }
  }

  private void group(Map<Integer, List<String>> byCombiner, String id) {
    int combiner =
        KeyGroupRangeAssignment.assignKeyToParallelOperator(id, maxParallelism, subtasks);
    byCombiner.computeIfAbsent(combiner, k -> new ArrayList<>()).add(id);
  }

  // ---- queries

  /** The query topic, broadcast: a message (JSON), or one with its place ({@link #placed}). */
  @Override
  public void processElement2(StreamRecord<byte[]> element) {
    startPending();
    QueryPlaces.Placed p = QueryPlaces.parse(element.getValue());
    query(p.json(), p.partition(), p.offset());
  }

  /** A query message with its place in the query topic, as {@link #processElement2} takes it. */
  static byte[] placed(byte[] json, int partition, long offset) {
    return QueryPlaces.placed(json, partition, offset);
  }

  /**
   * A message of the query topic; {@code partition} and {@code offset} its place, or -1 when not
   * known. A message before the place this subtask has taken is skipped: it took it before.
   */
  private void query(byte[] json, int partition, long offset) {
    if (!places.take(partition, offset)) {
      return;
    }
    ControlMessage m;
    try {
      m = ControlMessage.parse(json);
    } catch (MessageFormatException e) {
      LOG.warn("skipping a message of the query topic: {}", e.getMessage());
      return;
    }
    switch (m.type()) {
      case QUERY -> queries.install(m, json, true);
      case KILL -> {
        if (queries.uninstall(m.queryId())) {
          emit(FilterMessage.KILL, m.queryId(), null);
        }
      }
      case FINISH -> {
        filters.endOfBatch();
        filters.flush(m.queryId());
        sendBad();
        if (queries.uninstall(m.queryId())) {
          emit(FilterMessage.FINISH, m.queryId(), null);
        }
      }
      case ENDED -> queries.uninstall(m.queryId());
      case INSPECT -> {
        // what this subtask holds of the query first, then the look: the combiner answers it
        // once every subtask has passed it on
        if (queries.installed().containsKey(m.queryId())) {
          filters.endOfBatch();
          filters.flush(m.queryId());
        }
        emit(FilterMessage.INSPECT, m.queryId(), json);
      }
    }
  }

  private void startPending() {
    if (!pending.isEmpty()) {
      for (FilterMessage m : pending) {
        output.collect(new StreamRecord<>(m));
      }
      pending.clear();
    }
  }

  // ---- time

  /**
   * The filter's timer: ends the batch of records a raw match waits in, ticks (the wall clock's
   * time moves on every {@code tickMs}), and sends the status every second. It is set only for what
   * is due ({@link #nextTimerMs}): a subtask between ticks with no record waiting is not woken
   * every {@code batchMs}.
   */
  private void onTimer(long time) {
    if (time >= timerAtMs) {
      timerAtMs = Long.MAX_VALUE;
    }
    startPending();
    if (sinceBatch > 0) {
      endBatch();
    }
    if (settings.clock() == JobOptions.Clock.WALL
        && !inputEnded
        && time - lastTickMs >= settings.tickMs()) {
      lastTickMs = time;
      advanceTo(Math.max(clockMs, time));
    }
    if (time - lastStatusMs >= STATUS_EVERY_MS && !inputEnded) {
      lastStatusMs = time;
      emitStatus(false);
    }
    timerAt(nextTimerMs(time));
  }

  /**
   * When the timer is next due after it ran at {@code time}: the next tick (wall clock) or status,
   * not sooner than {@code batchMs} on (its pace before); none once the input ended.
   */
  private long nextTimerMs(long time) {
    if (inputEnded) {
      return Long.MAX_VALUE;
    }
    long next = lastStatusMs + STATUS_EVERY_MS;
    if (settings.clock() == JobOptions.Clock.WALL) {
      next = Math.min(next, lastTickMs + settings.tickMs());
    }
    return Math.max(next, time + Math.max(1, settings.batchMs()));
  }

  /** Makes sure the timer runs at {@code atMs} or before. */
  private void timerAt(long atMs) {
    if (atMs < timerAtMs) {
      timerAtMs = atMs;
      getProcessingTimeService().registerTimer(atMs, this::onTimer);
    }
  }

  /** Tells every combiner subtask this subtask's bad input, when it changed. */
  private void sendBad() {
    BadInput.Snapshot s = bad.snapshot().plus(sourceBad);
    if (s.total() != badSent) {
      badSent = s.total();
      FilterMessage m = FilterMessage.of(FilterMessage.BAD, "", subtask, subtasks, null);
      m.payload = Statuses.of(s).toJson();
      m.clockMs = nowMs();
      output.collect(BAD, new StreamRecord<>(m));
    }
  }

  /** Tells the status topic what this subtask has read. */
  private void emitStatus(boolean ended) {
    if (settings.statusTopic() == null) {
      return;
    }
    JobStatus s =
        Statuses.status(
            subtask,
            subtasks,
            getProcessingTimeService().getCurrentProcessingTime(),
            recordsRead,
            queries.installed().size(),
            bad.snapshot().plus(sourceBad),
            ended,
            sample);
    sample = null;
    sampleWanted = true;
    FilterMessage m =
        FilterMessage.of(
            FilterMessage.STATUS,
            FilterMessage.STATUS_KEY + subtask,
            subtask,
            subtasks,
            s.toJson());
    m.clockMs = nowMs();
    output.collect(new StreamRecord<>(m));
  }

  /** Moves the clock to {@code t}: flushes, ends expired queries, sends the time on. */
  private void advanceTo(long t) {
    clockMs = t;
    flushAll();
    queries.activateUntil(t);
    queries.endUntil(t);
    sendBad();
    long now = getProcessingTimeService().getCurrentProcessingTime();
    if (now - lastProgressMs >= settings.progressMs()) {
      lastProgressMs = now;
      for (Map.Entry<String, FilterQueries.Installed> e : queries.installed().entrySet()) {
        if (e.getValue().message().progress()) {
          FilterMessage m = counters(FilterMessage.STATS, e.getKey(), e.getValue());
          output.collect(new StreamRecord<>(m));
        }
      }
    }
    output.emitWatermark(new Watermark(t));
  }

  private void sync(long sync, int partitions, boolean tick) {
    flushAll();
    for (Map.Entry<String, FilterQueries.Installed> e : queries.installed().entrySet()) {
      FilterMessage m = counters(FilterMessage.SYNC, e.getKey(), e.getValue());
      m.sync = sync;
      m.partitions = partitions;
      m.tick = tick;
      output.collect(new StreamRecord<>(m));
    }
  }

  private FilterMessage counters(byte kind, String id, FilterQueries.Installed i) {
    FilterMessage m = FilterMessage.of(kind, id, subtask, subtasks, null);
    m.clockMs = nowMs();
    QueryStats s = filters.stats(id);
    if (s != null) {
      m.seen = s.seen();
      m.matched = s.matched();
      m.errors = s.evaluationErrors();
    }
    m.malformed = malformed - i.malformedBase();
    return m;
  }

  @Override
  public void processWatermark(Watermark mark) {
    processWatermark1(mark);
  }

  @Override
  public void processWatermark1(Watermark mark) {
    startPending();
    if (inputEnded) {
      return;
    }
    if (mark.getTimestamp() == Long.MAX_VALUE) {
      // the records ended (a bounded source, or a stop with drain): every query finishes
      flushAll();
      inputEnded = true;
      sendBad();
      emitStatus(true);
      output.emitWatermark(mark);
    } else if (settings.clock() == JobOptions.Clock.MARKS && mark.getTimestamp() > clockMs) {
      advanceTo(mark.getTimestamp());
    }
  }

  @Override
  public void processWatermark2(Watermark mark) {
    // the query topic carries no time
  }

  @Override
  protected void processWatermarkStatus(WatermarkStatus status, int index) {
    if (settings.clock() == JobOptions.Clock.MARKS && index == 0) {
      output.emitWatermarkStatus(status);
    }
  }

  /**
   * The chained input's status: with the wall clock the filter's time is its own (a source that has
   * only the query topic to read is idle, and must not silence the filter's ticks).
   */
  @Override
  public void processWatermarkStatus(WatermarkStatus status) {
    processWatermarkStatus(status, 0);
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    places.snapshot();
    List<String> owed = new ArrayList<>();
    owed.add(SHAPE + subtasks);
    for (FilterQueries.Waiting w : queries.waiting()) {
      if (w.announce()) {
        owed.add(w.query().id());
      }
    }
    unannounced.update(owed);
  }

  @Override
  public void close() throws Exception {
    if (queries != null) {
      queries.close();
    }
    super.close();
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    startPending();
    flushAll();
  }

  private void emit(byte kind, String id, byte[] payload) {
    FilterMessage m = FilterMessage.of(kind, id, subtask, subtasks, payload);
    m.clockMs = nowMs();
    emit(m);
  }

  private void emit(FilterMessage m) {
    if (opened) {
      startPending();
      output.collect(new StreamRecord<>(m));
    } else {
      pending.add(m);
    }
  }
}

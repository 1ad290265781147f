package io.spyglass.flink;

import io.spyglass.core.SpyglassClock;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Mark;
import io.spyglass.flink.client.MessageFormatException;
import io.spyglass.flink.client.QueryStart;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reader's Kafka consumer, on the reader's fetcher thread: polls its records partitions and the
 * query topic, and makes of each poll, per records partition, batches of consecutive records in one
 * buffer each (a clock mark on its own, between them), and of each query message an element of its
 * own. Values stay where the consumer fetched them: a batch refers to them there.
 *
 * <p>A query placed among the records ({@link QueryStart}: the standing queries of {@code serve
 * --runtime flink --kafka HOST:PORT --source http}) is handed on where it starts: its message is
 * held, and each records partition here is held at its start mark (paused, its position at the
 * mark), until every one of them has reached its mark; then the query is handed on, and the
 * partitions go on past their marks. The records before the marks reach the filter before the
 * query, those after it after: in each partition the query counts the records after its mark,
 * whichever topic this reader read first. A checkpoint taken meanwhile holds the partitions at
 * their marks and the query topic before the message, so a restore holds them again; one taken
 * after it holds the query topic past it, and a restore passes the marks.
 */
final class InputFetcher implements SplitReader<InputFetcher.Fetched, InputSplit> {
  private static final Logger LOG = LoggerFactory.getLogger(InputFetcher.class);

  /** A batch ends after this many records, or bytes (a record longer goes in a batch alone). */
  static final int BATCH_RECORDS = 256;

  static final int BATCH_BYTES = 256 * 1024;

  private static final Duration POLL = Duration.ofSeconds(1);
  private static final long QUERY_PARTITIONS_CHECK_MS = 10_000;
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** What the fetcher hands the reader's thread; see {@link InputReader}'s emitter. */
  static final class Fetched {
    enum Kind {
      /** Records of one partition. */
      RECORDS,
      /** A clock mark. */
      MARK,
      /** A message of the query topic. */
      QUERY,
      /** Nothing to hand on (a record without a value, a bad mark): the position moves. */
      SKIP,
      /** The split of the query topic was added: its output is idle (it carries no time). */
      HELLO
    }

    final Kind kind;
    final RecordBatch batch;
    final int partition;
    final long nextOffset;
    final long timestamp;

    Fetched(Kind kind, RecordBatch batch, int partition, long nextOffset, long timestamp) {
      this.kind = kind;
      this.batch = batch;
      this.partition = partition;
      this.nextOffset = nextOffset;
      this.timestamp = timestamp;
    }
  }

  private final KafkaInput.Settings settings;
  private final int subtask;
  private final int readers;
  private final KafkaConsumer<byte[], ByteBuffer> consumer;
  private final Set<TopicPartition> assigned = new HashSet<>();
  private final Map<TopicPartition, String> splitOf = new HashMap<>();
  private String querySplit;
  private boolean helloOwed;
  private final SpyglassClock clock;

  /** When to look for new query partitions next, on the clock's monotonic count. */
  private long nextQueryCheckNanos;

  /** The next offset of each query topic partition handed on (or to be handed on) here. */
  private final Map<Integer, Long> queriesHanded = new HashMap<>();

  /**
   * Below these offsets of the query topic, one-shot requests ({@code inspect}) were sent before
   * the job first started: passed over ({@link InputSplit#oneShotBelow}).
   */
  private Map<Integer, Long> oneShotBelow = Map.of();

  /** Placed query messages held until the records partitions here reach their marks. */
  private final Map<QueryStart, Held> heldQueries = new LinkedHashMap<>();

  /** Records partitions held at a start mark, with the place of the mark's query. */
  private final Map<TopicPartition, QueryStart> heldAt = new HashMap<>();

  /** Queries released from holding, handed on at the next fetch (after what was fetched). */
  private final List<Fetched> released = new ArrayList<>();

  /** A placed query message, and where its marks are. */
  private record Held(ConsumerRecord<byte[], ByteBuffer> record, QueryStart.Placed placed) {}

  InputFetcher(KafkaInput.Settings settings, int subtask) {
    this(settings, subtask, 1, SpyglassClock.system());
  }

  /**
   * @param readers the source's parallelism: this reader's records partitions are those whose
   *     number modulo {@code readers} is {@code subtask} (as the enumerator hands them out)
   */
  InputFetcher(KafkaInput.Settings settings, int subtask, int readers) {
    this(settings, subtask, readers, SpyglassClock.system());
  }

  /**
   * As {@link #InputFetcher(KafkaInput.Settings, int, int)}, timed by {@code clock}: the records'
   * read time, how often new query partitions are looked for.
   */
  InputFetcher(KafkaInput.Settings settings, int subtask, int readers, SpyglassClock clock) {
    this.clock = clock;
    this.settings = settings;
    this.subtask = subtask;
    this.readers = readers;
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafka());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, settings.recordsGroup());
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.group() + "-input-" + subtask);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteBufferDeserializer.class);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
    // The socket's receive buffer as the OS sizes it (Linux grows it with the flow), as the
    // embedded engine's Kafka source has it, rather than the consumer's 64 KiB: reading a backlog,
    // fewer system calls read the socket.
    c.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, -1);
    c.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        settings.readCommitted() ? "read_committed" : "read_uncommitted");
    c.putAll(settings.consumer());
    this.consumer = new KafkaConsumer<>(c);
  }

  @Override
  public void handleSplitsChanges(SplitsChange<InputSplit> change) {
    if (!(change instanceof SplitsAddition)) {
      return;
    }
    List<TopicPartition> added = new ArrayList<>();
    Map<TopicPartition, Long> seek = new HashMap<>();
    List<TopicPartition> toStart = new ArrayList<>();
    List<TopicPartition> toEnd = new ArrayList<>();
    List<TopicPartition> toCommitted = new ArrayList<>();
    for (InputSplit s : change.splits()) {
      if (s.isQueries()) {
        querySplit = s.splitId();
        oneShotBelow = s.oneShotBelow;
        helloOwed = true;
        for (Map.Entry<Integer, Long> e : s.offsets.entrySet()) {
          TopicPartition tp = new TopicPartition(s.topic, e.getKey());
          added.add(tp);
          seek.put(tp, e.getValue());
          splitOf.put(tp, querySplit);
          queriesHanded.put(e.getKey(), e.getValue());
        }
        nextQueryCheckNanos = clock.nanos();
      } else {
        TopicPartition tp = new TopicPartition(s.topic, s.partition);
        added.add(tp);
        splitOf.put(tp, s.splitId());
        long at = s.offset();
        if (at >= 0) {
          seek.put(tp, at);
        } else if (at == InputSplit.EARLIEST) {
          toStart.add(tp);
        } else if (at == InputSplit.COMMITTED) {
          toCommitted.add(tp);
        } else {
          toEnd.add(tp);
        }
      }
    }
    assigned.addAll(added);
    consumer.assign(new ArrayList<>(assigned));
    seek.forEach(consumer::seek);
    if (!toStart.isEmpty()) {
      consumer.seekToBeginning(toStart);
    }
    if (!toEnd.isEmpty()) {
      consumer.seekToEnd(toEnd);
    }
    if (!toCommitted.isEmpty()) {
      Map<TopicPartition, OffsetAndMetadata> committed;
      try {
        committed = consumer.committed(new HashSet<>(toCommitted));
      } catch (WakeupException e) {
        // a wake-up meant for a poll
        committed = consumer.committed(new HashSet<>(toCommitted));
      }
      for (TopicPartition tp : toCommitted) {
        OffsetAndMetadata o = committed.get(tp);
        if (o != null) {
          consumer.seek(tp, o.offset());
        } else {
          consumer.seekToEnd(List.of(tp));
        }
      }
    }
    LOG.info("Reading {}", change.splits());
    release();
  }

  @Override
  public RecordsWithSplitIds<Fetched> fetch() {
    if (helloOwed) {
      helloOwed = false;
      return new RecordsBySplits<>(
          Map.of(querySplit, List.of(new Fetched(Fetched.Kind.HELLO, null, -1, -1, 0))), Set.of());
    }
    if (!released.isEmpty()) {
      List<Fetched> queries = new ArrayList<>(released);
      released.clear();
      return new RecordsBySplits<>(Map.of(querySplit, queries), Set.of());
    }
    ConsumerRecords<byte[], ByteBuffer> polled;
    try {
      if (querySplit != null && clock.nanos() - nextQueryCheckNanos >= 0) {
        nextQueryCheckNanos = clock.nanos() + QUERY_PARTITIONS_CHECK_MS * 1_000_000;
        readNewQueryPartitions();
      }
      polled = consumer.poll(POLL);
    } catch (WakeupException e) {
      // woken for new splits or a commit
      return new RecordsBySplits<>(Map.of(), Set.of());
    }
    if (polled.isEmpty()) {
      return new RecordsBySplits<>(Map.of(), Set.of());
    }
    long now = clock.getAsLong();
    // the query topic's messages first: a query sent before records reaches them
    Map<String, Collection<Fetched>> out = new LinkedHashMap<>();
    for (TopicPartition tp : polled.partitions()) {
      if (tp.topic().equals(settings.queriesTopic()) && querySplit != null) {
        List<Fetched> queries = new ArrayList<>();
        for (ConsumerRecord<byte[], ByteBuffer> r : polled.records(tp)) {
          QueryStart.Placed placed = placed(r);
          if (placed != null) {
            // held until the records partitions here reach its marks; what follows it waits
            heldQueries.put(new QueryStart(r.partition(), r.offset()), new Held(r, placed));
            consumer.seek(tp, r.offset() + 1);
            consumer.pause(List.of(tp));
            break;
          }
          queries.add(oneShotBefore(r) ? skip(r) : query(r));
          queriesHanded.put(r.partition(), r.offset() + 1);
        }
        out.computeIfAbsent(querySplit, k -> new ArrayList<>()).addAll(queries);
      }
    }
    for (TopicPartition tp : polled.partitions()) {
      String split = splitOf.get(tp);
      if (split != null && !split.equals(querySplit)) {
        out.put(split, records(tp.partition(), polled.records(tp), now));
      }
    }
    release();
    return new RecordsBySplits<>(out, Set.of());
  }

  /**
   * Where the marks of a placed query message are; null for a message that is not placed (it is
   * handed on as it comes).
   */
  private static QueryStart.Placed placed(ConsumerRecord<byte[], ByteBuffer> r) {
    Header h = r.headers().lastHeader(QueryStart.PLACED);
    if (h == null) {
      return null;
    }
    try {
      return QueryStart.Placed.parse(h.value());
    } catch (MessageFormatException e) {
      LOG.warn(
          "handing on the query at {}-{}@{} as it comes: {}",
          r.topic(),
          r.partition(),
          r.offset(),
          e.getMessage());
      return null;
    }
  }

  /**
   * Whether a records partition here, not held at a mark, reads after {@code before} already: its
   * mark (there, or after commit markers only) is behind it.
   */
  private boolean past(TopicPartition tp, long before) {
    if (!assigned.contains(tp) || heldAt.containsKey(tp)) {
      return false;
    }
    try {
      return consumer.position(tp, Duration.ZERO) > before;
    } catch (RuntimeException e) {
      return false; // not known yet: the next fetch looks again
    }
  }

  /** Whether the query of a start mark was handed on here already (the mark is passed). */
  private boolean handed(QueryStart at) {
    return queriesHanded.getOrDefault(at.partition(), 0L) > at.offset();
  }

  /**
   * Lets go the partitions held at marks of queries handed on, and the held queries whose marks
   * every records partition here has reached (handed on at the next fetch).
   */
  private void release() {
    for (Iterator<Map.Entry<TopicPartition, QueryStart>> it = heldAt.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<TopicPartition, QueryStart> e = it.next();
      if (handed(e.getValue())) {
        consumer.resume(List.of(e.getKey()));
        it.remove();
      }
    }
    for (Iterator<Map.Entry<QueryStart, Held>> it = heldQueries.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<QueryStart, Held> e = it.next();
      QueryStart at = e.getKey();
      // every records partition of this reader that carries the marks: held at its mark, or
      // past it already (a reader that started after it); those not assigned yet (a reader
      // starting) hold the query too
      boolean reached = querySplit != null;
      QueryStart.Placed placed = e.getValue().placed();
      for (int p = subtask; p < placed.partitions(); p += readers) {
        TopicPartition tp = new TopicPartition(settings.recordsTopic(), p);
        if (!at.equals(heldAt.get(tp)) && !past(tp, placed.before()[p])) {
          reached = false;
          break;
        }
      }
      if (!reached) {
        continue;
      }
      it.remove();
      released.add(query(e.getValue().record()));
      queriesHanded.put(at.partition(), at.offset() + 1);
      consumer.resume(List.of(new TopicPartition(settings.queriesTopic(), at.partition())));
      for (Iterator<Map.Entry<TopicPartition, QueryStart>> h = heldAt.entrySet().iterator();
          h.hasNext(); ) {
        Map.Entry<TopicPartition, QueryStart> p = h.next();
        if (p.getValue().equals(at)) {
          consumer.resume(List.of(p.getKey()));
          h.remove();
        }
      }
    }
  }

  /**
   * Whether {@code r} is a one-shot request ({@code inspect}) sent before the job first started:
   * its reader had its answer from a former job, or is gone. Standing and other queries, kills and
   * ends are not: they make the filters' state.
   */
  private boolean oneShotBefore(ConsumerRecord<byte[], ByteBuffer> r) {
    Long below = oneShotBelow.get(r.partition());
    if (below == null || r.offset() >= below || r.value() == null) {
      return false;
    }
    ByteBuffer v = r.value();
    byte[] json = new byte[v.remaining()];
    v.get(v.position(), json);
    try {
      return ControlMessage.parse(json).type() == ControlMessage.Type.INSPECT;
    } catch (RuntimeException e) {
      return false; // the filter says what is wrong with it
    }
  }

  private static Fetched skip(ConsumerRecord<byte[], ByteBuffer> r) {
    return new Fetched(Fetched.Kind.SKIP, null, r.partition(), r.offset() + 1, 0);
  }

  private static Fetched query(ConsumerRecord<byte[], ByteBuffer> r) {
    ByteBuffer v = r.value();
    if (v == null) {
      return new Fetched(Fetched.Kind.SKIP, null, r.partition(), r.offset() + 1, 0);
    }
    byte[] json = new byte[v.remaining()];
    v.get(v.position(), json);
    return new Fetched(
        Fetched.Kind.QUERY,
        RecordBatch.query(json, r.partition(), r.offset()),
        r.partition(),
        r.offset() + 1,
        r.timestamp());
  }

  /** One partition's records of a poll, in batches. */
  private List<Fetched> records(
      int partition, List<ConsumerRecord<byte[], ByteBuffer>> rs, long readTimeMs) {
    List<Fetched> out = new ArrayList<>();
    int n = rs.size();
    int i = 0;
    while (i < n) {
      ConsumerRecord<byte[], ByteBuffer> first = rs.get(i);
      Header start = first.headers().lastHeader(QueryStart.HEADER);
      if (start != null) {
        QueryStart at;
        try {
          at = QueryStart.parse(start.value());
        } catch (MessageFormatException e) {
          LOG.warn(
              "skipping a bad query start mark at {}-{}@{}: {}",
              first.topic(),
              partition,
              first.offset(),
              e.getMessage());
          at = null;
        }
        if (at == null || handed(at)) {
          out.add(new Fetched(Fetched.Kind.SKIP, null, partition, first.offset() + 1, 0));
          i++;
          continue;
        }
        // held here until the query is handed on: the records after the mark wait
        TopicPartition tp = new TopicPartition(first.topic(), partition);
        consumer.seek(tp, first.offset());
        consumer.pause(List.of(tp));
        heldAt.put(tp, at);
        break;
      }
      if (first.headers().lastHeader(Mark.HEADER) != null) {
        out.add(mark(first));
        i++;
        continue;
      }
      if (first.value() == null) {
        // a record without a value (a tombstone): skipped
        out.add(new Fetched(Fetched.Kind.SKIP, null, partition, first.offset() + 1, 0));
        i++;
        continue;
      }
      int end = i;
      long bytes = 0;
      while (end < n && end - i < BATCH_RECORDS && (bytes < BATCH_BYTES || end == i)) {
        ConsumerRecord<byte[], ByteBuffer> r = rs.get(end);
        if (r.value() == null
            || r.headers().lastHeader(Mark.HEADER) != null
            || r.headers().lastHeader(QueryStart.HEADER) != null
            || (settings.marks() && r.timestamp() != first.timestamp())) {
          break;
        }
        bytes += r.value().remaining();
        end++;
      }
      out.add(batch(partition, rs, i, end, (int) bytes, readTimeMs));
      i = end;
    }
    return out;
  }

  private static Fetched batch(
      int partition,
      List<ConsumerRecord<byte[], ByteBuffer>> rs,
      int from,
      int to,
      int bytes,
      long readTimeMs) {
    int count = to - from;
    RecordBatch b = new RecordBatch();
    b.ends = new int[count];
    b.count = count;
    b.positions = new long[3 * count];
    b.positioned = true;
    b.readTimeMs = readTimeMs;
    byte[] fetched = inOneArray(rs, from, to);
    if (fetched != null) {
      // the values where the consumer fetched them: nothing copied
      b.data = fetched;
      b.starts = new int[count];
      for (int k = 0; k < count; k++) {
        ByteBuffer v = rs.get(from + k).value();
        b.starts[k] = v.arrayOffset() + v.position();
        b.ends[k] = b.starts[k] + v.remaining();
      }
    } else {
      b.data = new byte[bytes];
      int at = 0;
      for (int k = 0; k < count; k++) {
        ByteBuffer v = rs.get(from + k).value();
        int len = v.remaining();
        v.get(v.position(), b.data, at, len);
        at += len;
        b.ends[k] = at;
      }
    }
    for (int k = 0; k < count; k++) {
      ConsumerRecord<byte[], ByteBuffer> r = rs.get(from + k);
      b.positions[3 * k] = partition;
      b.positions[3 * k + 1] = r.offset();
      b.positions[3 * k + 2] = r.timestamp();
    }
    ConsumerRecord<byte[], ByteBuffer> last = rs.get(to - 1);
    return new Fetched(Fetched.Kind.RECORDS, b, partition, last.offset() + 1, last.timestamp());
  }

  /**
   * The array that holds every value of {@code rs[from, to)}, when they are all in one (as the
   * consumer fetched an uncompressed batch: each value a view of the fetch's buffer, which the
   * consumer never reuses); null otherwise.
   */
  private static byte[] inOneArray(List<ConsumerRecord<byte[], ByteBuffer>> rs, int from, int to) {
    byte[] array = null;
    for (int k = from; k < to; k++) {
      ByteBuffer v = rs.get(k).value();
      if (!v.hasArray() || v.isReadOnly() || (array != null && v.array() != array)) {
        return null;
      }
      array = v.array();
    }
    return array;
  }

  private Fetched mark(ConsumerRecord<byte[], ByteBuffer> r) {
    ByteBuffer v = r.value();
    try {
      byte[] json = new byte[v == null ? 0 : v.remaining()];
      if (v != null) {
        v.get(v.position(), json);
      }
      RecordBatch m = RecordBatch.mark(Mark.parse(json));
      return new Fetched(Fetched.Kind.MARK, m, r.partition(), r.offset() + 1, r.timestamp());
    } catch (MessageFormatException e) {
      LOG.warn(
          "skipping a bad mark at {}-{}@{}: {}",
          r.topic(),
          r.partition(),
          r.offset(),
          e.getMessage());
      return new Fetched(Fetched.Kind.SKIP, null, r.partition(), r.offset() + 1, 0);
    }
  }

  /** Reads partitions added to the query topic, from their beginning. */
  private void readNewQueryPartitions() {
    List<PartitionInfo> infos;
    try {
      infos = consumer.partitionsFor(settings.queriesTopic(), Duration.ofSeconds(1));
    } catch (WakeupException e) {
      throw e;
    } catch (RuntimeException e) {
      return; // the cluster is slow to answer: look again at the next check
    }
    List<TopicPartition> added = new ArrayList<>();
    for (PartitionInfo info : infos == null ? List.<PartitionInfo>of() : infos) {
      TopicPartition tp = new TopicPartition(settings.queriesTopic(), info.partition());
      if (!assigned.contains(tp)) {
        added.add(tp);
        splitOf.put(tp, querySplit);
        queriesHanded.putIfAbsent(info.partition(), 0L);
      }
    }
    if (!added.isEmpty()) {
      LOG.info("Reading new partitions of the query topic from their beginning: {}", added);
      assigned.addAll(added);
      consumer.assign(new ArrayList<>(assigned));
      consumer.seekToBeginning(added);
    }
  }

  /** Commits the records partitions' offsets of a completed checkpoint (on the fetcher thread). */
  void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    consumer.commitAsync(
        offsets,
        (done, error) -> {
          if (error != null) {
            LOG.debug("Cannot commit the records' offsets: {}", error.toString());
          }
        });
  }

  @Override
  public void wakeUp() {
    consumer.wakeup();
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
  }
}

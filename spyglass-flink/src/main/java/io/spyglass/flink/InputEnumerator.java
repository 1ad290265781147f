package io.spyglass.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumStateSerializer;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enumerator of {@link KafkaInput}: finds the records topic's partitions (now and every {@code
 * discoveryMs}), resolves where each starts, and gives partition p to reader p modulo the
 * parallelism; gives each reader that asks a split of the query topic.
 *
 * <p>It also keeps the <em>floor</em> of the query topic: per partition, the lowest next offset
 * that every reader has checkpointed (they tell after each completed checkpoint). Every filter's
 * state holds every message below it, so a reader that starts without a split of its own (a new
 * parallelism: the splits of the query topic are one per reader) reads from there and its filter
 * skips what it had. The floor is committed as the offsets of the group {@code GROUP-queries}.
 * Before any reader has told, the floor is where the query topic starts ({@code
 * spyglass.queries.start}).
 *
 * <p>Its state ({@link State}): the records partitions handed out, those found and not yet handed
 * out with their start, and the floor.
 */
final class InputEnumerator implements SplitEnumerator<InputSplit, InputEnumerator.State> {
  private static final Logger LOG = LoggerFactory.getLogger(InputEnumerator.class);
  private static final long ADMIN_TIMEOUT_S = 60;

  private final KafkaInput.Settings settings;
  private final SplitEnumeratorContext<InputSplit> context;

  /** Records partitions handed out: their positions are the readers'. */
  private final Set<Integer> assigned;

  /** Records partitions found and not handed out yet, with their start. */
  private final Map<Integer, Long> pending;

  private volatile boolean initialDone;

  /** Every partition known, for the discovery (read from its thread). */
  private volatile Set<Integer> known;

  /** The query topic's floor; null until resolved. */
  private Map<Integer, Long> floor;

  /**
   * The query topic's end when the floor was first resolved (the job's first start, without a
   * checkpoint): one-shot requests below it were sent before the job, and are passed over.
   */
  private Map<Integer, Long> oneShotBelow;

  private boolean resolvingQueries;

  /** Readers waiting for their split of the query topic. */
  private final Set<Integer> wantQueries = new TreeSet<>();

  /** Each reader's latest checkpointed offsets in the query topic. */
  private final Map<Integer, Map<Integer, Long>> told = new HashMap<>();

  private Admin admin;

  InputEnumerator(
      KafkaInput.Settings settings, SplitEnumeratorContext<InputSplit> context, State state) {
    this.settings = settings;
    this.context = context;
    this.assigned = new TreeSet<>(state.assigned());
    this.pending = new TreeMap<>(state.pending());
    this.initialDone = state.initialDone();
    this.floor = state.floor() == null ? null : new TreeMap<>(state.floor());
    this.oneShotBelow = new TreeMap<>(state.oneShotBelow());
    Set<Integer> all = new TreeSet<>(assigned);
    all.addAll(pending.keySet());
    this.known = Set.copyOf(all);
  }

  @Override
  public void start() {
    Map<String, Object> config = new java.util.HashMap<>(settings.consumer());
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafka());
    admin = Admin.create(config);
    context.callAsync(this::discover, this::discovered, 0, settings.discoveryMs());
  }

  // ---- records partitions

  /** Found partitions not known before, each with its start (on the discovery thread). */
  private Map<Integer, Long> discover() throws Exception {
    Set<Integer> found;
    try {
      TopicDescription d =
          admin
              .describeTopics(List.of(settings.recordsTopic()))
              .allTopicNames()
              .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS)
              .get(settings.recordsTopic());
      found = new TreeSet<>();
      d.partitions().forEach(p -> found.add(p.partition()));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        LOG.warn(
            "The records topic {} does not exist on {}: the job reads it once it is created",
            settings.recordsTopic(),
            settings.kafka());
        return Map.of();
      }
      throw e;
    }
    found.removeAll(known);
    if (found.isEmpty()) {
      return Map.of();
    }
    // partitions added after the job started hold new records only: read from their start
    JobOptions.Start start = initialDone ? JobOptions.Start.EARLIEST : settings.recordsStart();
    return startOf(settings.recordsTopic(), found, start, settings.recordsGroup(), -1);
  }

  private void discovered(Map<Integer, Long> found, Throwable error) {
    if (error != null) {
      LOG.warn("Cannot list the partitions of {}: {}", settings.recordsTopic(), error.toString());
      return;
    }
    initialDone = true;
    Set<Integer> all = new TreeSet<>(known);
    for (Map.Entry<Integer, Long> e : found.entrySet()) {
      if (!assigned.contains(e.getKey()) && !pending.containsKey(e.getKey())) {
        pending.put(e.getKey(), e.getValue());
        all.add(e.getKey());
      }
    }
    known = Set.copyOf(all);
    assignPending();
    if (!wantQueries.isEmpty()) {
      resolveQueries();
    }
  }

  private void assignPending() {
    int readers = context.currentParallelism();
    for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Integer, Long> e = it.next();
      int owner = e.getKey() % readers;
      if (context.registeredReaders().containsKey(owner)) {
        context.assignSplit(
            InputSplit.records(settings.recordsTopic(), e.getKey(), e.getValue()), owner);
        assigned.add(e.getKey());
        it.remove();
      }
    }
  }

  @Override
  public void addReader(int subtask) {
    assignPending();
  }

  @Override
  public void handleSplitRequest(int subtask, String host) {
    // splits are handed out as they are found
  }

  @Override
  public void addSplitsBack(List<InputSplit> splits, int subtask) {
    // the reader failed before a checkpoint held these: they start again where they were given
    for (InputSplit s : splits) {
      if (!s.isQueries()) {
        assigned.remove(s.partition);
        pending.put(s.partition, s.offset());
      }
      // a split of the query topic: the reader asks again when it starts
    }
    assignPending();
  }

  // ---- the query topic

  @Override
  public void handleSourceEvent(int subtask, SourceEvent event) {
    if (event instanceof KafkaInput.QueriesWanted) {
      wantQueries.add(subtask);
      if (floor != null) {
        giveQueries();
      } else {
        resolveQueries();
      }
    } else if (event instanceof KafkaInput.QueriesCheckpointed c) {
      told.put(subtask, c.offsets());
      raiseFloor();
    }
  }

  private void resolveQueries() {
    if (resolvingQueries || floor != null) {
      return;
    }
    resolvingQueries = true;
    context.callAsync(
        () -> {
          Set<Integer> partitions = new TreeSet<>();
          admin
              .describeTopics(List.of(settings.queriesTopic()))
              .allTopicNames()
              .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS)
              .get(settings.queriesTopic())
              .partitions()
              .forEach(p -> partitions.add(p.partition()));
          // the end first: a request sent from then on is after it, and answered
          Map<Integer, Long> end = list(settings.queriesTopic(), partitions, OffsetSpec.latest());
          Map<Integer, Long> start =
              startOf(
                  settings.queriesTopic(),
                  partitions,
                  settings.queriesStart(),
                  settings.queriesGroup(),
                  settings.queriesFromMs());
          return new ResolvedQueries(start, end);
        },
        (resolved, error) -> {
          resolvingQueries = false;
          if (error != null) {
            LOG.warn(
                "Cannot find where to read the query topic {} (tried again in {} ms): {}",
                settings.queriesTopic(),
                settings.discoveryMs(),
                error.toString());
            return;
          }
          if (floor == null) {
            floor = new TreeMap<>(resolved.start());
            oneShotBelow = new TreeMap<>(resolved.end());
            LOG.info(
                "The query topic {} is read from {}; its one-shot requests (inspect) below {}, sent"
                    + " before the job started, are passed over",
                settings.queriesTopic(),
                floor,
                oneShotBelow);
          }
          giveQueries();
        });
  }

  /** Where the query topic starts, and where it ended, when first resolved. */
  private record ResolvedQueries(Map<Integer, Long> start, Map<Integer, Long> end) {}

  private void giveQueries() {
    int readers = context.currentParallelism();
    for (var it = wantQueries.iterator(); it.hasNext(); ) {
      int subtask = it.next();
      if (context.registeredReaders().containsKey(subtask)) {
        context.assignSplit(
            InputSplit.queries(settings.queriesTopic(), floor, oneShotBelow, subtask, readers),
            subtask);
        it.remove();
      }
    }
  }

  /**
   * Once every reader has told its checkpointed offsets, raises the floor to their lowest and
   * commits it.
   */
  private void raiseFloor() {
    int readers = context.currentParallelism();
    if (floor == null || told.size() < readers) {
      return;
    }
    Map<Integer, Long> lowest = new TreeMap<>();
    for (int r = 0; r < readers; r++) {
      Map<Integer, Long> offsets = told.get(r);
      if (offsets == null) {
        return;
      }
      if (r == 0) {
        lowest.putAll(offsets);
      } else {
        lowest.keySet().retainAll(offsets.keySet());
        lowest.replaceAll((p, o) -> Math.min(o, offsets.get(p)));
      }
    }
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    for (Map.Entry<Integer, Long> e : lowest.entrySet()) {
      Long was = floor.get(e.getKey());
      if (was == null || e.getValue() > was) {
        floor.put(e.getKey(), e.getValue());
        commit.put(
            new TopicPartition(settings.queriesTopic(), e.getKey()),
            new OffsetAndMetadata(e.getValue()));
      }
    }
    if (!commit.isEmpty()) {
      context.callAsync(
          () ->
              admin
                  .alterConsumerGroupOffsets(settings.queriesGroup(), commit)
                  .all()
                  .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS),
          (ok, error) -> {
            if (error != null) {
              LOG.debug("Cannot commit the query topic's offsets: {}", error.toString());
            }
          });
    }
  }

  // ---- starts

  /**
   * Where each of {@code partitions} starts: its committed offset (for {@code COMMITTED}, else the
   * end, or with {@code fromMs >= 0} the first message at or after it), its beginning or its end.
   */
  private Map<Integer, Long> startOf(
      String topic,
      Collection<Integer> partitions,
      JobOptions.Start start,
      String group,
      long fromMs)
      throws Exception {
    Map<Integer, Long> out = new TreeMap<>();
    List<Integer> rest = new ArrayList<>(partitions);
    if (start == JobOptions.Start.COMMITTED) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
      for (Integer p : partitions) {
        OffsetAndMetadata o = committed.get(new TopicPartition(topic, p));
        if (o != null && o.offset() >= 0) {
          out.put(p, o.offset());
          rest.remove(p);
        }
      }
      if (fromMs >= 0 && !rest.isEmpty()) {
        Map<Integer, Long> since = list(topic, rest, OffsetSpec.forTimestamp(fromMs));
        for (Map.Entry<Integer, Long> e : since.entrySet()) {
          if (e.getValue() >= 0) {
            out.put(e.getKey(), e.getValue());
            rest.remove(e.getKey());
          }
        }
      }
    }
    if (!rest.isEmpty()) {
      out.putAll(
          list(
              topic,
              rest,
              start == JobOptions.Start.EARLIEST ? OffsetSpec.earliest() : OffsetSpec.latest()));
    }
    return out;
  }

  private Map<Integer, Long> list(String topic, Collection<Integer> partitions, OffsetSpec spec)
      throws InterruptedException, ExecutionException, TimeoutException {
    Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
    for (int p : partitions) {
      ask.put(new TopicPartition(topic, p), spec);
    }
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> got =
        admin.listOffsets(ask).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
    Map<Integer, Long> out = new TreeMap<>();
    got.forEach((tp, info) -> out.put(tp.partition(), info.offset()));
    return out;
  }

  // ---- state

  @Override
  public State snapshotState(long checkpointId) {
    return new State(assigned, pending, initialDone, floor, oneShotBelow);
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close();
    }
  }

  /**
   * The enumerator's state.
   *
   * @param assigned records partitions handed out to readers
   * @param pending records partitions found and not handed out, with their start
   * @param initialDone whether the first look at the records topic was done (later partitions are
   *     read from their beginning)
   * @param floor the query topic's floor, or null when not resolved yet
   * @param oneShotBelow the query topic's end when the floor was first resolved: one-shot requests
   *     below it are passed over (empty: none is)
   */
  record State(
      Set<Integer> assigned,
      Map<Integer, Long> pending,
      boolean initialDone,
      Map<Integer, Long> floor,
      Map<Integer, Long> oneShotBelow) {
    static final State EMPTY = new State(Set.of(), Map.of(), false, null, Map.of());

    State {
      assigned = Set.copyOf(assigned);
      pending = Map.copyOf(pending);
      floor = floor == null ? null : Map.copyOf(floor);
      oneShotBelow = Map.copyOf(oneShotBelow);
    }

    State(
        Set<Integer> assigned,
        Map<Integer, Long> pending,
        boolean initialDone,
        Map<Integer, Long> floor) {
      this(assigned, pending, initialDone, floor, Map.of());
    }
  }

  /**
   * The state's format, version {@value #VERSION}: the records topic; the partitions handed out;
   * those pending with their start; whether the first look was done; whether there is a floor and
   * its offsets; (from version 101) the offsets below which one-shot requests are passed over.
   * Version 100 is read with none passed over. Versions below 100 are the state of Flink's Kafka
   * source (the job's records source up to this version): its partitions are taken, with no floor
   * (the query topic then starts at the job's committed offsets, which that version committed).
   */
  static final class StateSerializer implements SimpleVersionedSerializer<State> {
    static final int VERSION = 101;

    private final String recordsTopic;

    StateSerializer(String recordsTopic) {
      this.recordsTopic = recordsTopic;
    }

    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(State s) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeUTF(recordsTopic);
        out.writeInt(s.assigned().size());
        for (int p : new TreeSet<>(s.assigned())) {
          out.writeInt(p);
        }
        writeOffsets(out, s.pending());
        out.writeBoolean(s.initialDone());
        out.writeBoolean(s.floor() != null);
        if (s.floor() != null) {
          writeOffsets(out, s.floor());
        }
        writeOffsets(out, s.oneShotBelow());
      }
      return bytes.toByteArray();
    }

    @Override
    public State deserialize(int version, byte[] bytes) throws IOException {
      if (version < 100) {
        return fromKafkaSource(new KafkaSourceEnumStateSerializer().deserialize(version, bytes));
      }
      if (version > VERSION) {
        throw new IOException(
            "The job's Kafka input state of version "
                + version
                + " is newer than this job reads ("
                + VERSION
                + "): restore it with the job's version that wrote it");
      }
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
        String topic = in.readUTF();
        Set<Integer> assigned = new TreeSet<>();
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
          assigned.add(in.readInt());
        }
        Map<Integer, Long> pending = readOffsets(in);
        boolean initialDone = in.readBoolean();
        Map<Integer, Long> floor = in.readBoolean() ? readOffsets(in) : null;
        Map<Integer, Long> oneShotBelow = version >= 101 ? readOffsets(in) : Map.of();
        if (!topic.equals(recordsTopic)) {
          LOG.warn(
              "The records topic was {} and is now {}: its partitions are found again",
              topic,
              recordsTopic);
          return new State(Set.of(), Map.of(), false, floor, oneShotBelow);
        }
        return new State(assigned, pending, initialDone, floor, oneShotBelow);
      }
    }

    private State fromKafkaSource(KafkaSourceEnumState k) {
      Set<Integer> assigned = new TreeSet<>();
      for (KafkaPartitionSplit s : k.assignedSplits()) {
        if (s.getTopic().equals(recordsTopic)) {
          assigned.add(s.getPartition());
        }
      }
      Map<Integer, Long> pending = new TreeMap<>();
      for (KafkaPartitionSplit s : k.unassignedSplits()) {
        if (s.getTopic().equals(recordsTopic)) {
          pending.put(s.getPartition(), s.getStartingOffset());
        }
      }
      return new State(assigned, pending, k.initialDiscoveryFinished(), null);
    }

    private static void writeOffsets(DataOutputStream out, Map<Integer, Long> offsets)
        throws IOException {
      out.writeInt(offsets.size());
      for (Map.Entry<Integer, Long> e : new TreeMap<>(offsets).entrySet()) {
        out.writeInt(e.getKey());
        out.writeLong(e.getValue());
      }
    }

    private static Map<Integer, Long> readOffsets(DataInputStream in) throws IOException {
      Map<Integer, Long> out = new TreeMap<>();
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        out.put(in.readInt(), in.readLong());
      }
      return out;
    }
  }
}

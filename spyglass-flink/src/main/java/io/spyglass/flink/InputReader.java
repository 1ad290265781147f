package io.spyglass.flink;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcher;
import org.apache.flink.connector.base.source.reader.fetcher.SplitFetcherTask;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A reader of {@link KafkaInput}: one Kafka consumer on a fetcher thread ({@link InputFetcher}) for
 * its records partitions and the query topic; the batches and query messages are emitted in the
 * task's thread, each moving its split's position.
 *
 * <p>Its split of the query topic: restored from a checkpoint when the job's parallelism is the
 * same (then its filter's state is of the same moment); otherwise (a new job, a new parallelism) it
 * asks the enumerator for one, which starts at the floor every filter has passed. After each
 * completed checkpoint it commits its records partitions' offsets (group {@code GROUP-records}) and
 * tells the enumerator its position in the query topic.
 */
@SuppressWarnings("try") // SourceReaderBase.close may be interrupted; Flink handles it
final class InputReader
    extends SingleThreadMultiplexSourceReaderBase<
        InputFetcher.Fetched, RecordBatch, InputSplit, InputSplit.Position> {
  private final KafkaInput.Settings settings;
  private final List<InputSplit> restoredQueries = new ArrayList<>();
  private boolean started;
  private boolean hasQueries;

  /** Positions of each checkpoint not completed yet: records partitions, and the query topic. */
  private final NavigableMap<Long, Map<TopicPartition, OffsetAndMetadata>> recordsAt =
      new TreeMap<>();

  private final NavigableMap<Long, Map<Integer, Long>> queriesAt = new TreeMap<>();

  InputReader(KafkaInput.Settings settings, SourceReaderContext context) {
    super(
        new Fetchers(
            () ->
                new InputFetcher(
                    settings, context.getIndexOfSubtask(), context.currentParallelism())),
        new Emitter(),
        context.getConfiguration(),
        context);
    this.settings = settings;
  }

  @Override
  public void addSplits(List<InputSplit> splits) {
    List<InputSplit> add = new ArrayList<>();
    for (InputSplit s : splits) {
      if (!s.isQueries()) {
        add.add(s);
      } else if (!started) {
        // restored: kept only if it is this reader's, of the same parallelism (see start)
        restoredQueries.add(s);
      } else if (!hasQueries) {
        hasQueries = true;
        add.add(s);
      }
    }
    if (!add.isEmpty()) {
      super.addSplits(add);
    }
  }

  @Override
  public void start() {
    super.start();
    started = true;
    int subtask = context.getIndexOfSubtask();
    int readers = context.currentParallelism();
    InputSplit own =
        restoredQueries.size() == 1
                && restoredQueries.get(0).reader == subtask
                && restoredQueries.get(0).readers == readers
            ? restoredQueries.get(0)
            : null;
    restoredQueries.clear();
    if (own != null) {
      hasQueries = true;
      super.addSplits(List.of(own));
    } else {
      context.sendSourceEventToCoordinator(new KafkaInput.QueriesWanted());
    }
  }

  @Override
  public List<InputSplit> snapshotState(long checkpointId) {
    List<InputSplit> splits = super.snapshotState(checkpointId);
    Map<TopicPartition, OffsetAndMetadata> records = new HashMap<>();
    Map<Integer, Long> queries = null;
    for (InputSplit s : splits) {
      if (s.isQueries()) {
        queries = s.offsets;
      } else if (s.offset() >= 0) {
        records.put(new TopicPartition(s.topic, s.partition), new OffsetAndMetadata(s.offset()));
      }
    }
    recordsAt.put(checkpointId, records);
    if (queries != null) {
      queriesAt.put(checkpointId, queries);
    }
    return splits;
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    Map<TopicPartition, OffsetAndMetadata> records = recordsAt.get(checkpointId);
    if (records != null && !records.isEmpty()) {
      ((Fetchers) splitFetcherManager).commit(records);
    }
    Map<Integer, Long> queries = queriesAt.get(checkpointId);
    if (queries != null) {
      context.sendSourceEventToCoordinator(
          new KafkaInput.QueriesCheckpointed(checkpointId, queries));
    }
    recordsAt.headMap(checkpointId, true).clear();
    queriesAt.headMap(checkpointId, true).clear();
  }

  @Override
  protected void onSplitFinished(Map<String, InputSplit.Position> finished) {
    // Kafka partitions do not end
  }

  @Override
  protected InputSplit.Position initializedState(InputSplit split) {
    return new InputSplit.Position(split);
  }

  @Override
  protected InputSplit toSplitType(String splitId, InputSplit.Position position) {
    return position.toSplit();
  }

  KafkaInput.Settings settings() {
    return settings;
  }

  /** Emits what the fetcher read, and moves the split's position past it. */
  static final class Emitter
      implements RecordEmitter<InputFetcher.Fetched, RecordBatch, InputSplit.Position> {
    @Override
    public void emitRecord(
        InputFetcher.Fetched f, SourceOutput<RecordBatch> output, InputSplit.Position position) {
      switch (f.kind) {
        case RECORDS, MARK -> output.collect(f.batch, f.timestamp);
        case QUERY -> {
          output.collect(f.batch, f.timestamp);
          // the query topic carries no time: it never holds a watermark back
          output.markIdle();
        }
        case HELLO -> output.markIdle();
        case SKIP -> {}
      }
      if (f.nextOffset >= 0) {
        position.advance(f.partition, f.nextOffset);
      }
    }
  }

  /** The fetcher thread, which also commits offsets (the consumer is confined to it). */
  static final class Fetchers extends SingleThreadFetcherManager<InputFetcher.Fetched, InputSplit> {
    Fetchers(java.util.function.Supplier<InputFetcher> fetcher) {
      super(fetcher::get);
    }

    void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
      SplitFetcher<InputFetcher.Fetched, InputSplit> f = getRunningFetcher();
      if (f == null) {
        return; // nothing read since: nothing new to commit
      }
      InputFetcher reader = (InputFetcher) f.getSplitReader();
      f.enqueueTask(
          new SplitFetcherTask() {
            @Override
            public boolean run() {
              reader.commit(offsets);
              return true;
            }

            @Override
            public void wakeUp() {}
          });
    }
  }
}

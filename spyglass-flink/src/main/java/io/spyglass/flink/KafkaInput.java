package io.spyglass.flink;

import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The job's one source: each reader reads its partitions of the records topic and the whole query
 * topic, with one Kafka consumer, and hands both on in one stream of {@link RecordBatch}es (records
 * in batches of a partition, and each query message as it comes), so that the filter is chained to
 * it and takes the queries in the same thread, between batches of records.
 *
 * <p>Positions are the readers' splits ({@link InputSplit}): each partition of the records topic is
 * one reader's, and every reader has a split of the query topic of its own; a checkpoint holds the
 * offsets of both with the filter's state of the same moment. The enumerator ({@link
 * InputEnumerator}) hands out the records partitions (partition p to reader p modulo the
 * parallelism), resolves where reading starts, and keeps the lowest position of the query topic
 * that every reader has checkpointed: a reader without a split of its own (a new job, a new
 * parallelism) starts there, and its filter skips the messages it had already taken.
 */
final class KafkaInput implements Source<RecordBatch, InputSplit, InputEnumerator.State> {
  private static final long serialVersionUID = 1L;

  /**
   * What the source reads.
   *
   * @param kafka bootstrap servers
   * @param recordsTopic the records topic
   * @param queriesTopic the query topic
   * @param group consumer group prefix: record offsets are committed as {@code GROUP-records}, the
   *     query topic's (the lowest of every reader) as {@code GROUP-queries}
   * @param recordsStart where records are read from without a checkpoint
   * @param queriesStart where query messages are read from without a checkpoint
   * @param queriesFromMs with {@link JobOptions.Start#COMMITTED} and no committed offsets, the
   *     query messages written since this time are read
   * @param readCommitted whether only records of committed transactions are read
   * @param marks whether a batch holds records of one Kafka timestamp only (the clock marks' time)
   * @param discoveryMs how often the records topic is looked at for new partitions
   * @param consumer extra Kafka consumer settings, applied last
   */
  record Settings(
      String kafka,
      String recordsTopic,
      String queriesTopic,
      String group,
      JobOptions.Start recordsStart,
      JobOptions.Start queriesStart,
      long queriesFromMs,
      boolean readCommitted,
      boolean marks,
      long discoveryMs,
      Map<String, String> consumer)
      implements Serializable {
    private static final long serialVersionUID = 1L;

    Settings {
      Objects.requireNonNull(kafka);
      Objects.requireNonNull(recordsTopic);
      Objects.requireNonNull(queriesTopic);
      consumer = Map.copyOf(consumer);
    }

    String recordsGroup() {
      return group + "-records";
    }

    String queriesGroup() {
      return group + "-queries";
    }
  }

  private final Settings settings;

  KafkaInput(Settings settings) {
    this.settings = settings;
  }

  Settings settings() {
    return settings;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<InputSplit, InputEnumerator.State> createEnumerator(
      SplitEnumeratorContext<InputSplit> context) {
    return new InputEnumerator(settings, context, InputEnumerator.State.EMPTY);
  }

  @Override
  public SplitEnumerator<InputSplit, InputEnumerator.State> restoreEnumerator(
      SplitEnumeratorContext<InputSplit> context, InputEnumerator.State state) {
    return new InputEnumerator(settings, context, state);
  }

  @Override
  public SimpleVersionedSerializer<InputSplit> getSplitSerializer() {
    return new InputSplit.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<InputEnumerator.State> getEnumeratorCheckpointSerializer() {
    return new InputEnumerator.StateSerializer(settings.recordsTopic());
  }

  @Override
  public SourceReader<RecordBatch, InputSplit> createReader(SourceReaderContext context) {
    return new InputReader(settings, context);
  }

  /** A reader has no split of the query topic of its own: it asks for one. */
  record QueriesWanted() implements SourceEvent {
    private static final long serialVersionUID = 1L;
  }

  /**
   * A checkpoint completed: the reader's next offsets in the query topic at that checkpoint, which
   * its filter's state holds every message before.
   */
  record QueriesCheckpointed(long checkpointId, Map<Integer, Long> offsets) implements SourceEvent {
    private static final long serialVersionUID = 1L;

    QueriesCheckpointed {
      offsets = Map.copyOf(offsets);
    }
  }
}

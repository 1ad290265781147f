package io.spyglass.flink;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the query topic is read from without a checkpoint: the job's committed offsets, else the
 * messages written since shortly before the job was built. A query sent while a new job starts
 * (before its source knows where the topic ends) is run, not lost; older ones are not read again.
 */
final class QueriesFrom implements OffsetsInitializer {
  private static final long serialVersionUID = 1L;

  /** How far before the job's start the topic is read: the clocks of the senders may differ. */
  static final long MARGIN_MS = 60_000;

  private final long fromMs;

  QueriesFrom(long fromMs) {
    this.fromMs = fromMs;
  }

  /** From {@link #MARGIN_MS} before now. */
  static QueriesFrom now() {
    return new QueriesFrom(System.currentTimeMillis() - MARGIN_MS);
  }

  @Override
  public Map<TopicPartition, Long> getPartitionOffsets(
      Collection<TopicPartition> partitions, PartitionOffsetsRetriever retriever) {
    Map<TopicPartition, Long> out = new HashMap<>();
    Map<TopicPartition, Long> committed = retriever.committedOffsets(partitions);
    Map<TopicPartition, Long> since = new HashMap<>();
    for (TopicPartition tp : partitions) {
      Long c = committed.get(tp);
      if (c != null && c >= 0) {
        out.put(tp, c);
      } else {
        since.put(tp, fromMs);
      }
    }
    if (!since.isEmpty()) {
      Map<TopicPartition, OffsetAndTimestamp> byTime = retriever.offsetsForTimes(since);
      Map<TopicPartition, Long> ends = retriever.endOffsets(since.keySet());
      for (TopicPartition tp : since.keySet()) {
        OffsetAndTimestamp t = byTime.get(tp);
        // nothing written since then: from the end
        out.put(tp, t != null ? t.offset() : ends.get(tp));
      }
    }
    return out;
  }

  @Override
  @SuppressWarnings("deprecation") // the connector's interface still names Kafka's strategy
  public OffsetResetStrategy getAutoOffsetResetStrategy() {
    return OffsetResetStrategy.LATEST;
  }
}

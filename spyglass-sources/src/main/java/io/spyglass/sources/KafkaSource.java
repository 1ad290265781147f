package io.spyglass.sources;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.record.BadRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteBufferDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * A Kafka topic ({@code kafka://host:port/topic}): record values are the JSON records, each with
 * its partition, offset and Kafka timestamp.
 *
 * <p>Without a consumer group the source assigns itself every partition of the topic and seeks to
 * the start position: queries look forward, so nothing is committed. With a group, partitions are
 * shared with the group's other members and each assigned partition is sought to the start
 * position; offsets are not committed either. Partitions added to the topic later are picked up
 * either way: the group rebalances, and a source without a group looks at the topic's partitions
 * (as the consumer's metadata, refreshed every {@code metadata.max.age.ms}, 30 s here by default,
 * knows them) at most once a second and reads new ones from their beginning.
 *
 * <p>Records with a null value (tombstones) are skipped and counted in {@link #badInput()}.
 *
 * <p>Values are not copied: each record handed on is referenced in the buffer the consumer fetched
 * it into (or decompressed it into), which the batch holds until it is cleared, so that the workers
 * scan the bytes as they came off the socket. Keys are not read. The consumer's settings are
 * Kafka's defaults but for these: no auto commit, no topic auto-creation, at most 2,000 records a
 * poll, metadata refreshed every 30 s, and the socket's receive buffer sized by the OS ({@code
 * receive.buffer.bytes=-1}); {@link Options#consumerProperties()} override any of them. CRC checks
 * of fetched batches stay on ({@code check.crcs}): turning them off saved nothing measurable.
 *
 * <p>A broker that stops answering, or a topic deleted, is not an end: the consumer reconnects and
 * reading resumes when they are back. Meanwhile {@link #problem()} says what is wrong: when polls
 * have brought nothing for 2 s, the source asks the cluster for its topics, at most every 2 s.
 *
 * <p>Polled from one thread; {@link #close()} may be called from any: it wakes a poll in progress,
 * which then returns false, and closes the consumer.
 */
public final class KafkaSource implements Source {
  /** How long to wait for the topic's metadata when opening. */
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

  /** How often a source without a group looks for partitions added to its topic. */
  private static final long PARTITION_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** How long polls bring nothing before the source checks that its cluster and topic are there. */
  private static final long HEALTH_CHECK_NANOS = TimeUnit.SECONDS.toNanos(2);

  /** How long closing waits for the cluster (to leave a group). */
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);

  /** How long the check waits for the cluster. */
  private static final Duration HEALTH_CHECK_TIMEOUT = Duration.ofSeconds(2);

  /** Where reading starts. */
  public record StartAt(Kind kind, long timestampMs) {
    public enum Kind {
      /** Records produced after the source opened. */
      LATEST,
      /** Everything the topic retains. */
      EARLIEST,
      /** The first record of each partition with a timestamp at or after {@code timestampMs}. */
      TIMESTAMP
    }

    public StartAt {
      Objects.requireNonNull(kind);
      if (kind == Kind.TIMESTAMP && timestampMs < 0) {
        throw new IllegalArgumentException("Start timestamp must be >= 0, not " + timestampMs);
      }
    }

    public static StartAt latest() {
      return new StartAt(Kind.LATEST, -1);
    }

    public static StartAt earliest() {
      return new StartAt(Kind.EARLIEST, -1);
    }

    public static StartAt timestamp(long epochMs) {
      return new StartAt(Kind.TIMESTAMP, epochMs);
    }

    @Override
    public String toString() {
      return kind == Kind.TIMESTAMP ? Long.toString(timestampMs) : kind.name().toLowerCase();
    }
  }

  /**
   * @param from where reading starts
   * @param group a consumer group to share partitions with, or null to read all partitions
   * @param consumerProperties extra consumer settings, applied last (e.g. security)
   */
  public record Options(StartAt from, String group, Map<String, Object> consumerProperties) {
    public static final Options DEFAULTS = new Options(StartAt.latest(), null, Map.of());

    public Options {
      Objects.requireNonNull(from);
      consumerProperties = Map.copyOf(consumerProperties);
    }

    public Options withFrom(StartAt v) {
      return new Options(v, group, consumerProperties);
    }

    public Options withGroup(String v) {
      return new Options(from, v, consumerProperties);
    }

    public Options withConsumerProperties(Map<String, Object> v) {
      return new Options(from, group, v);
    }
  }

  private final String description;
  private final String topic;
  private final Options options;
  private final KafkaConsumer<Void, ByteBuffer> consumer;
  private final Object lock = new Object();
  private volatile boolean closed;
  private boolean consumerClosed;
  private Iterator<ConsumerRecord<Void, ByteBuffer>> pending;
  private final BadInput badInput = new BadInput();
  private final String bootstrapServers;

  /** What keeps the source from reading now, or null; see {@link #problem()}. */
  private volatile String problem;

  private final SpyglassClock clock;
  private long lastRecordNanos;
  private long nextHealthCheck;

  /** Without a group: the partitions read, and when to look for new ones. */
  private final Set<TopicPartition> assigned = new HashSet<>();

  private long nextPartitionCheck;

  /**
   * Connects and positions the consumer; with {@link StartAt#latest()}, records produced after this
   * returns are read.
   *
   * @throws IllegalArgumentException when the topic does not exist
   * @throws IOException when the cluster does not answer in time
   */
  public KafkaSource(String bootstrapServers, String topic, Options options) throws IOException {
    this(bootstrapServers, topic, options, SpyglassClock.system());
  }

  /**
   * As {@link #KafkaSource(String, String, Options)}, its checks (new partitions, the cluster's
   * health) timed by {@code clock}.
   */
  public KafkaSource(String bootstrapServers, String topic, Options options, SpyglassClock clock)
      throws IOException {
    this.options = Objects.requireNonNull(options);
    this.clock = Objects.requireNonNull(clock);
    this.lastRecordNanos = clock.nanos();
    this.bootstrapServers = bootstrapServers;
    this.description = "kafka://" + bootstrapServers + "/" + topic;
    this.topic = topic;
    // keys are not read; values are handed on where the consumer holds them, not copied
    this.consumer =
        new KafkaConsumer<>(
            config(bootstrapServers, topic, options), new NoKey(), new ByteBufferDeserializer());
    try {
      List<PartitionInfo> infos;
      try {
        infos = consumer.partitionsFor(topic, METADATA_TIMEOUT);
      } catch (TimeoutException e) {
        throw new IOException(
            "Kafka at "
                + bootstrapServers
                + " did not answer within "
                + METADATA_TIMEOUT.toSeconds()
                + " s for topic '"
                + topic
                + "'",
            e);
      }
      if (infos == null || infos.isEmpty()) {
        throw new IllegalArgumentException(
            "Kafka topic '" + topic + "' does not exist on " + bootstrapServers);
      }
      if (options.group() == null) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo info : infos) {
          partitions.add(new TopicPartition(topic, info.partition()));
        }
        consumer.assign(partitions);
        assigned.addAll(partitions);
        nextPartitionCheck = clock.nanos() + PARTITION_CHECK_NANOS;
        seek(partitions);
        for (TopicPartition tp : partitions) {
          // Resolves the lazy seek now, so that "latest" means "after opening", not "after the
          // first poll".
          consumer.position(tp, METADATA_TIMEOUT);
        }
      } else {
        consumer.subscribe(
            List.of(topic),
            new ConsumerRebalanceListener() {
              @Override
              public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

              @Override
              public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                seek(partitions);
              }
            });
      }
    } catch (IOException | RuntimeException e) {
      consumer.close();
      throw e;
    }
  }

  private static Map<String, Object> config(String bootstrap, String topic, Options options) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    config.put(ConsumerConfig.CLIENT_ID_CONFIG, "spyglass-source-" + topic);
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
    // The socket's receive buffer as the OS sizes it (Linux grows it with the flow, up to
    // net.ipv4.tcp_rmem's maximum) rather than the consumer's 64 KiB: reading a backlog, a third to
    // half fewer CPU-seconds go to the system calls that read the socket (kafka-vs-file.sh).
    config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, -1);
    // how soon partitions added to the topic are seen
    config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 30_000);
    // Where to go when a sought offset is no longer retained.
    config.put(
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
        options.from().kind() == StartAt.Kind.EARLIEST ? "earliest" : "latest");
    if (options.group() != null) {
      config.put(ConsumerConfig.GROUP_ID_CONFIG, options.group());
    }
    config.putAll(options.consumerProperties());
    return config;
  }

  private void seek(Collection<TopicPartition> partitions) {
    switch (options.from().kind()) {
      case EARLIEST -> consumer.seekToBeginning(partitions);
      case LATEST -> consumer.seekToEnd(partitions);
      case TIMESTAMP -> {
        Map<TopicPartition, Long> query = new HashMap<>();
        for (TopicPartition tp : partitions) {
          query.put(tp, options.from().timestampMs());
        }
        Map<TopicPartition, OffsetAndTimestamp> found =
            consumer.offsetsForTimes(query, METADATA_TIMEOUT);
        List<TopicPartition> none = new ArrayList<>();
        for (TopicPartition tp : partitions) {
          OffsetAndTimestamp at = found.get(tp);
          if (at == null) {
            none.add(tp); // nothing at or after the time yet
          } else {
            consumer.seek(tp, at.offset());
          }
        }
        if (!none.isEmpty()) {
          consumer.seekToEnd(none);
        }
      }
    }
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs) {
    synchronized (lock) {
      if (closed) {
        return false;
      }
      if (pending == null || !pending.hasNext()) {
        try {
          if (options.group() == null && clock.nanos() - nextPartitionCheck >= 0) {
            nextPartitionCheck = clock.nanos() + PARTITION_CHECK_NANOS;
            assignNewPartitions();
          }
          pending = consumer.poll(Duration.ofMillis(maxWaitMs)).iterator();
          if (pending.hasNext()) {
            lastRecordNanos = clock.nanos();
            problem = null;
          } else {
            checkHealth();
          }
        } catch (WakeupException e) {
          return !closed;
        } catch (InterruptException e) {
          if (closed) {
            return false; // interrupted by an engine that closes the source
          }
          throw e;
        }
      }
      int n = 0;
      while (n < maxRecords && pending.hasNext()) {
        ConsumerRecord<Void, ByteBuffer> r = pending.next();
        ByteBuffer value = r.value();
        if (value == null) {
          badInput.add(BadRecord.NO_VALUE, "partition " + r.partition() + " offset " + r.offset());
          continue;
        }
        if (value.hasArray()) {
          // the value where the consumer fetched it: nothing is copied on the way to the workers
          batch.addReferenced(
              value.array(),
              value.arrayOffset() + value.position(),
              value.remaining(),
              r.partition(),
              r.offset(),
              r.timestamp());
        } else {
          batch.add(value, r.partition(), r.offset(), r.timestamp());
        }
        n++;
      }
      return true;
    }
  }

  /**
   * After polls brought nothing for a while, asks the cluster whether it answers and still has the
   * topic, at most every 2 s; sets or clears {@link #problem}.
   */
  private void checkHealth() {
    long now = clock.nanos();
    if (now - lastRecordNanos < HEALTH_CHECK_NANOS || now - nextHealthCheck < 0) {
      return;
    }
    if (options.group() != null && consumer.assignment().isEmpty()) {
      return; // still joining the group: nothing to read yet
    }
    nextHealthCheck = now + HEALTH_CHECK_NANOS;
    try {
      Map<String, List<PartitionInfo>> topics = consumer.listTopics(HEALTH_CHECK_TIMEOUT);
      problem =
          topics.containsKey(topic)
              ? null
              : "Kafka topic '" + topic + "' does not exist any more on " + bootstrapServers;
    } catch (TimeoutException e) {
      problem = "Kafka at " + bootstrapServers + " does not answer";
    } catch (WakeupException | InterruptException e) {
      throw e;
    } catch (KafkaException e) {
      problem = "Kafka at " + bootstrapServers + " refuses to list topics: " + e.getMessage();
    }
  }

  /**
   * What keeps the source from reading now, for people (a broker that does not answer, a topic that
   * was deleted), or null when it reads, or has nothing new to read. Cleared as soon as records
   * come again.
   */
  @Override
  public String problem() {
    return problem;
  }

  /** Adds partitions the consumer's metadata knows and this source does not read yet. */
  private void assignNewPartitions() {
    List<PartitionInfo> infos;
    try {
      infos = consumer.partitionsFor(topic, Duration.ofSeconds(1));
    } catch (TimeoutException e) {
      return; // the cluster is slow to answer: look again at the next check
    }
    List<TopicPartition> added = new ArrayList<>();
    for (PartitionInfo info : infos == null ? List.<PartitionInfo>of() : infos) {
      TopicPartition tp = new TopicPartition(topic, info.partition());
      if (!assigned.contains(tp)) {
        added.add(tp);
      }
    }
    if (!added.isEmpty()) {
      assigned.addAll(added);
      consumer.assign(new ArrayList<>(assigned));
      // created after the source opened: everything in them is new
      consumer.seekToBeginning(added);
    }
  }

  /** A key deserializer that reads nothing: records' keys are not used. */
  private static final class NoKey implements Deserializer<Void> {
    @Override
    public Void deserialize(String topic, byte[] data) {
      return null;
    }

    @Override
    public Void deserialize(String topic, Headers headers, ByteBuffer data) {
      return null;
    }
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public BadInput.Snapshot badInput() {
    return badInput.snapshot();
  }

  public Options options() {
    return options;
  }

  @Override
  public void close() {
    closed = true;
    consumer.wakeup();
    synchronized (lock) {
      if (!consumerClosed) {
        consumerClosed = true;
        // nothing to commit: a cluster that does not answer must not hold up the close
        consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
      }
    }
  }
}

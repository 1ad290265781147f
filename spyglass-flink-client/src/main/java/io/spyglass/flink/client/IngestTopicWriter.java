package io.spyglass.flink.client;

import io.spyglass.core.SpyglassClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes the documents {@code serve --runtime flink --kafka HOST:PORT --source http} accepts to the
 * job's records topic before it answers 202: each request's documents in one Kafka transaction
 * (keyed by their ids), committed with acknowledgements from every in-sync replica ({@code
 * acks=all}, an idempotent producer), so that a document is in the topic once when {@link #write}
 * returns and in it not at all (for readers of committed records) when it throws. The job reads the
 * topic with {@code spyglass.records.read-committed true}, so a request that failed (503: nothing
 * kept, the client sends it again) is never counted.
 *
 * <p>{@link #define} places a standing query among the documents (its message and a start mark in
 * every partition, one transaction: see {@link QueryStart}); {@link #control} sends another message
 * (a kill) to the query topic in order with them.
 *
 * <p>One transaction at a time: {@link #write} is synchronized. The transactional id ({@code
 * spyglass-ingest-INSTANCE}) fences an older producer of the same instance (a service restarted
 * while its former process still lingers).
 */
public final class IngestTopicWriter implements AutoCloseable {
  /**
   * Where and how to write.
   *
   * @param bootstrap Kafka bootstrap servers
   * @param topic the job's records topic
   * @param instance the service instance's name: its transactional id is {@code
   *     spyglass-ingest-INSTANCE}
   * @param timeout longest a request waits for Kafka before it fails
   * @param kafkaProperties extra Kafka client settings (TLS, SASL), applied after the writer's own
   *     but for its guarantees (acks, idempotence, transactions), which they may not change
   */
  public record Settings(
      String bootstrap,
      String topic,
      String instance,
      Duration timeout,
      Map<String, Object> kafkaProperties) {
    public Settings {
      Objects.requireNonNull(bootstrap, "bootstrap");
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(instance, "instance");
      Objects.requireNonNull(timeout, "timeout");
      kafkaProperties = Map.copyOf(kafkaProperties);
    }

    /** Writes to {@code topic} as instance {@code instance}, waiting up to 30 s. */
    public static Settings of(String bootstrap, String topic, String instance) {
      return new Settings(bootstrap, topic, instance, Duration.ofSeconds(30), Map.of());
    }
  }

  /** A document: its id (the Kafka key) and its JSON. */
  public record Doc(String id, byte[] json) {}

  /**
   * The header of each document naming the instance that wrote it (UTF-8), so that the ids one
   * instance wrote can be read back from a records topic that several write to ({@link #readBack}).
   */
  public static final String INSTANCE_HEADER = FlinkQueryClient.INSTANCE_HEADER;

  private final Settings settings;
  private final SpyglassClock clock;
  private KafkaProducer<String, byte[]> producer;

  private IngestTopicWriter(Settings settings, SpyglassClock clock) {
    this.settings = settings;
    this.clock = clock;
  }

  /**
   * Connects and fences any former producer of this instance: open it once whatever makes the
   * instance one process (the service's data folder lock) is held, so that a second process stops
   * there rather than fence a running one.
   *
   * @throws IOException when Kafka does not answer within the timeout, or refuses (the message says
   *     what)
   */
  public static IngestTopicWriter open(Settings settings) throws IOException {
    return open(settings, SpyglassClock.system());
  }

  /**
   * As {@link #open(Settings)}, the timeout of each request timed by {@code clock}'s monotonic
   * clock.
   */
  public static IngestTopicWriter open(Settings settings, SpyglassClock clock) throws IOException {
    IngestTopicWriter w = new IngestTopicWriter(settings, clock);
    w.connect();
    return w;
  }

  /**
   * A consumer's settings that read the records topic's committed records only, {@code maxPoll} at
   * a time, committing nothing.
   */
  private Map<String, Object> readCommitted(int maxPoll) {
    Map<String, Object> c = new HashMap<>(settings.kafkaProperties());
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPoll);
    return c;
  }

  /** The producer settings: the guarantees last, so that no extra setting weakens them. */
  Map<String, Object> producerConfig() {
    Map<String, Object> c = new HashMap<>(settings.kafkaProperties());
    c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "spyglass-ingest-" + settings.instance());
    c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    long ms = settings.timeout().toMillis();
    c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, ms);
    c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(ms, 1_000));
    c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(Math.max(ms, 1_000), 30_000));
    c.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16 << 20);
    return c;
  }

  private void connect() throws IOException {
    KafkaProducer<String, byte[]> p =
        new KafkaProducer<>(producerConfig(), new StringSerializer(), new ByteArraySerializer());
    try {
      p.initTransactions();
    } catch (KafkaException e) {
      p.close(Duration.ZERO);
      throw new IOException(
          "Kafka at "
              + settings.bootstrap()
              + " did not take this instance's transactions ("
              + e.getMessage()
              + "): check that it runs, that the topic "
              + settings.topic()
              + " exists and that this user may write transactions",
          e);
    }
    producer = p;
  }

  /**
   * Writes the documents in one transaction and returns once it is committed on every in-sync
   * replica: then answer 202.
   *
   * @throws IOException when it could not be written (nothing of it is visible to the job: answer
   *     503, the client sends it again)
   */
  public void write(List<Doc> docs) throws IOException, InterruptedException {
    write(docs, (partition, offset) -> {});
  }

  /**
   * Told where a transaction's first record is, once every record of it is on the broker and before
   * it is committed: what {@link #committed} later asks about.
   */
  @FunctionalInterface
  public interface BeforeCommit {
    /**
     * @throws IOException to abort the transaction (nothing of it becomes visible)
     */
    void sent(int partition, long offset) throws IOException;
  }

  /**
   * As {@link #write(List)}, telling {@code before} where the transaction's first record is before
   * it commits. When this throws after {@code before} returned, the commit may or may not have
   * happened (a commit that timed out completes later, or not): {@link #committed} tells.
   */
  public synchronized void write(List<Doc> docs, BeforeCommit before)
      throws IOException, InterruptedException {
    if (docs.isEmpty()) {
      return;
    }
    if (producer == null) {
      connect();
    }
    try {
      producer.beginTransaction();
      List<Future<RecordMetadata>> sent = new ArrayList<>(docs.size());
      byte[] instance = settings.instance().getBytes(StandardCharsets.UTF_8);
      for (Doc d : docs) {
        ProducerRecord<String, byte[]> r = new ProducerRecord<>(settings.topic(), d.id(), d.json());
        r.headers().add(INSTANCE_HEADER, instance);
        sent.add(producer.send(r));
      }
      long deadline = clock.nanos() + settings.timeout().toNanos();
      RecordMetadata first = null;
      for (Future<RecordMetadata> f : sent) {
        RecordMetadata m = f.get(Math.max(0, deadline - clock.nanos()), TimeUnit.NANOSECONDS);
        first = first == null ? m : first;
      }
      try {
        before.sent(first.partition(), first.offset());
      } catch (IOException e) {
        abort();
        throw e;
      }
      producer.commitTransaction();
    } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
      // the producer cannot go on: a new one is made for the next request
      dropProducer();
      throw new IOException("the documents could not be written to Kafka: " + e.getMessage(), e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      abort();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IOException(
          "the documents could not be written to Kafka topic " + settings.topic() + ": " + cause,
          cause);
    }
  }

  /**
   * Whether the transaction whose first record {@link BeforeCommit} was told of was committed. Any
   * transaction of this writer still open is ended first (a new producer fences the former one: its
   * commit completes if it had begun, else it is aborted), so the answer is final. A record removed
   * by the topic's retention since reads as not committed.
   *
   * @throws IOException when Kafka does not tell within the timeout
   */
  public synchronized boolean committed(int partition, long offset)
      throws IOException, InterruptedException {
    dropProducer();
    connect();
    Map<String, Object> c = readCommitted(1);
    TopicPartition tp = new TopicPartition(settings.topic(), partition);
    long deadline = clock.nanos() + settings.timeout().toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, offset);
      while (clock.nanos() < deadline) {
        ConsumerRecords<byte[], byte[]> got = consumer.poll(Duration.ofMillis(200));
        if (!got.isEmpty()) {
          // read committed: the record itself when its transaction committed, a later one if not
          return got.records(tp).get(0).offset() == offset;
        }
        if (consumer.position(tp) > offset) {
          return false; // passed over: aborted (or only markers after it)
        }
      }
    } catch (KafkaException e) {
      throw new IOException(
          "Kafka at "
              + settings.bootstrap()
              + " could not tell whether a request's documents were committed to "
              + tp
              + ": "
              + e.getMessage(),
          e);
    }
    throw new IOException(
        "Kafka at "
            + settings.bootstrap()
            + " did not tell within "
            + settings.timeout().toSeconds()
            + " s whether a request's documents at "
            + tp
            + " offset "
            + offset
            + " were committed");
  }

  /** A document read back from the records topic ({@link #readBack}). */
  @FunctionalInterface
  public interface Written {
    /**
     * @param timestampMs its Kafka timestamp: when it was written, epoch ms
     * @param id its id (the record's key)
     */
    void doc(int partition, long offset, long timestampMs, String id);
  }

  /**
   * Reads back the ids of the committed documents of the records topic whose timestamps are {@code
   * sinceMs} or later, up to the topic's end when it is called, each partition in order: the
   * documents this instance wrote, and those without {@link #INSTANCE_HEADER} (written before it
   * existed). Start marks, aborted records and other instances' documents are passed over.
   *
   * @return how many documents {@code out} was given
   * @throws IOException when Kafka does not give the records, or gives none for the timeout
   */
  public synchronized long readBack(long sinceMs, Written out)
      throws IOException, InterruptedException {
    Map<String, Object> c = readCommitted(10_000);
    c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    Deserializer<byte[]> none = (topic, data) -> null;
    byte[] mine = settings.instance().getBytes(StandardCharsets.UTF_8);
    Duration timeout = settings.timeout();
    long given = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), none)) {
      List<TopicPartition> all = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(settings.topic(), timeout)) {
        all.add(new TopicPartition(settings.topic(), p.partition()));
      }
      Map<TopicPartition, Long> since = new HashMap<>();
      all.forEach(tp -> since.put(tp, sinceMs));
      Map<TopicPartition, OffsetAndTimestamp> from = consumer.offsetsForTimes(since, timeout);
      // read committed: the end is the last stable offset
      Map<TopicPartition, Long> end = consumer.endOffsets(all, timeout);
      Map<TopicPartition, Long> left = new HashMap<>();
      for (TopicPartition tp : all) {
        OffsetAndTimestamp f = from.get(tp);
        if (f != null && f.offset() < end.get(tp)) {
          left.put(tp, f.offset());
        }
      }
      consumer.assign(left.keySet());
      left.forEach(consumer::seek);
      long deadline = clock.nanos() + timeout.toNanos();
      while (!left.isEmpty()) {
        ConsumerRecords<byte[], byte[]> got = consumer.poll(Duration.ofMillis(200));
        for (ConsumerRecord<byte[], byte[]> r : got) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (r.offset() >= end.get(tp) || r.key() == null) {
            continue; // written since, or a start mark
          }
          Header h = r.headers().lastHeader(INSTANCE_HEADER);
          if (h != null && !Arrays.equals(h.value(), mine)) {
            continue;
          }
          out.doc(
              r.partition(),
              r.offset(),
              r.timestamp(),
              new String(r.key(), StandardCharsets.UTF_8));
          given++;
        }
        for (var it = left.keySet().iterator(); it.hasNext(); ) {
          TopicPartition tp = it.next();
          if (consumer.position(tp) >= end.get(tp)) {
            consumer.pause(List.of(tp));
            it.remove();
          }
        }
        if (!got.isEmpty()) {
          deadline = clock.nanos() + timeout.toNanos();
        } else if (clock.nanos() > deadline) {
          throw new IOException(
              "Kafka at "
                  + settings.bootstrap()
                  + " gave none of the records topic "
                  + settings.topic()
                  + "'s documents for "
                  + timeout.toSeconds()
                  + " s while they were read back (partitions left: "
                  + left.keySet()
                  + ")");
        }
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while reading back " + settings.topic());
        }
      }
    } catch (KafkaException e) {
      throw new IOException(
          "Kafka at "
              + settings.bootstrap()
              + " could not give back the documents of the records topic "
              + settings.topic()
              + ": "
              + e.getMessage(),
          e);
    }
    return given;
  }

  /**
   * Defines a standing query among the documents: in one transaction, its message ({@code
   * ControlMessage} JSON) to partition 0 of {@code queryTopic} with the header {@value
   * QueryStart#PLACED}, and a start mark to every partition of the records topic (see {@link
   * QueryStart}). Requests written before this call are before the marks, those written after it
   * after them: the query counts the documents of the requests acknowledged after it returns.
   *
   * @return the query message's place in the query topic
   * @throws IOException when it could not be written (nothing of it is visible to the job)
   */
  public synchronized QueryStart define(String queryTopic, String queryId, byte[] queryMessage)
      throws IOException, InterruptedException {
    if (producer == null) {
      connect();
    }
    try {
      long deadline = clock.nanos() + settings.timeout().toNanos();
      int partitions = producer.partitionsFor(settings.topic()).size();
      long[] before = endOffsets(partitions, deadline);
      producer.beginTransaction();
      ProducerRecord<String, byte[]> q = new ProducerRecord<>(queryTopic, 0, queryId, queryMessage);
      q.headers().add(QueryStart.PLACED, new QueryStart.Placed(partitions, before).encode());
      RecordMetadata at =
          producer.send(q).get(Math.max(0, deadline - clock.nanos()), TimeUnit.NANOSECONDS);
      QueryStart start = new QueryStart(at.partition(), at.offset());
      List<Future<RecordMetadata>> sent = new ArrayList<>(partitions);
      for (int p = 0; p < partitions; p++) {
        ProducerRecord<String, byte[]> mark =
            new ProducerRecord<>(settings.topic(), p, null, new byte[0]);
        mark.headers().add(QueryStart.HEADER, start.encode());
        sent.add(producer.send(mark));
      }
      for (Future<RecordMetadata> f : sent) {
        f.get(Math.max(0, deadline - clock.nanos()), TimeUnit.NANOSECONDS);
      }
      producer.commitTransaction();
      return start;
    } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
      dropProducer();
      throw new IOException("the query could not be written to Kafka: " + e.getMessage(), e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      abort();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IOException(
          "the query could not be written to Kafka topics "
              + queryTopic
              + " and "
              + settings.topic()
              + ": "
              + cause,
          cause);
    }
  }

  /** The records topic's end offsets now (nothing of this writer's is open: the marks go there). */
  private long[] endOffsets(int partitions, long deadline)
      throws ExecutionException, TimeoutException, InterruptedException {
    Map<String, Object> c = new HashMap<>(settings.kafkaProperties());
    c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    Map<TopicPartition, OffsetSpec> want = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      want.put(new TopicPartition(settings.topic(), p), OffsetSpec.latest());
    }
    try (Admin admin = Admin.create(c)) {
      var got =
          admin
              .listOffsets(want)
              .all()
              .get(Math.max(0, deadline - clock.nanos()), TimeUnit.NANOSECONDS);
      long[] out = new long[partitions];
      for (int p = 0; p < partitions; p++) {
        out[p] = got.get(new TopicPartition(settings.topic(), p)).offset();
      }
      return out;
    }
  }

  /**
   * Sends one message ({@code ControlMessage} JSON, e.g. a kill) to partition 0 of {@code
   * queryTopic}, committed when it returns, in order with the queries {@link #define} wrote.
   */
  public synchronized void control(String queryTopic, String queryId, byte[] message)
      throws IOException, InterruptedException {
    if (producer == null) {
      connect();
    }
    try {
      producer.beginTransaction();
      producer
          .send(new ProducerRecord<>(queryTopic, 0, queryId, message))
          .get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
      producer.commitTransaction();
    } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
      dropProducer();
      throw new IOException("the message could not be written to Kafka: " + e.getMessage(), e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      abort();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IOException(
          "the message could not be written to Kafka topic " + queryTopic + ": " + cause, cause);
    }
  }

  private void abort() {
    try {
      producer.abortTransaction();
    } catch (KafkaException e) {
      dropProducer();
    }
  }

  private void dropProducer() {
    if (producer != null) {
      producer.close(Duration.ZERO);
      producer = null;
    }
  }

  @Override
  public synchronized void close() {
    if (producer != null) {
      producer.close(settings.timeout());
      producer = null;
    }
  }
}

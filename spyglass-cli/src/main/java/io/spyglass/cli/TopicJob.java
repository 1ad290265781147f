package io.spyglass.cli;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.IngestTopicWriter;
import io.spyglass.flink.client.ReplyTopicReader;
import io.spyglass.service.metering.JobReplies;
import io.spyglass.service.metering.JobStanding;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standing queries of {@code serve --runtime flink --kafka HOST:PORT --source http} on the
 * Spyglass job on a Flink cluster, which reads the records topic the service writes the accepted
 * documents to ({@link IngestTopicWriter}).
 *
 * <p>A query is defined with {@link IngestTopicWriter#define}: its message to the query topic and a
 * start mark to every partition of the records topic in one Kafka transaction, so that on the job
 * it counts exactly the documents acknowledged after its definition (the log positions {@link
 * JobStanding} gives are not used). Its replies go to the instance's standing topic ({@code
 * spyglass-standing-INSTANCE}), read as a consumer group whose offsets are committed once each
 * reply is in the database: a service started again reads what the job sent meanwhile. The job
 * keeps the query in its checkpoints; a deletion kills it through the query topic.
 *
 * <p>A look at a query's open windows ({@link #inspect}: a report's, or the measure of its state at
 * each of the service's checkpoints for {@code --max-standing-state}) is an {@code inspect} message
 * to the query topic, sent without a transaction (it need not be in order with the documents); the
 * job answers on the standing topic ({@code OPEN} or {@code SAVED}, then {@code INSPECTED}). A look
 * is in the query topic, so a job that restores reads it again and answers it. Looks are numbered
 * from a random start: an answer to a look of a former process, read again after a restart, is not
 * taken for one of this process's.
 */
final class TopicJob implements JobStanding.Job {
  private static final Logger LOG = LoggerFactory.getLogger(TopicJob.class);

  /** How long a look waits for Kafka to take it: a report waits 20 s for the answer. */
  static final Duration LOOK_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Least time between two measures of one query's state ({@code --max-standing-state}): each is a
   * message in the query topic, which keeps it.
   */
  static final long MEASURE_EVERY_NANOS = 10_000_000_000L;

  private final TopicIngest ingest;
  private final IngestTopicWriter writer;
  private final String queryTopic;
  private final String standingTopic;
  private final String bootstrap;
  private final ReplyTopicReader replies;
  private final KafkaProducer<String, byte[]> looks;
  private final SpyglassClock clock;
  private final AtomicLong lookNumbers =
      new AtomicLong(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 60));

  /** When each query's state was last measured (the clock's nanoseconds), by id on the job. */
  private final Map<String, Long> measured = new ConcurrentHashMap<>();

  private TopicJob(
      TopicIngest ingest,
      IngestTopicWriter writer,
      String bootstrap,
      String queryTopic,
      String standingTopic,
      ReplyTopicReader replies,
      KafkaProducer<String, byte[]> looks,
      SpyglassClock clock) {
    this.ingest = ingest;
    this.writer = writer;
    this.bootstrap = bootstrap;
    this.queryTopic = queryTopic;
    this.standingTopic = standingTopic;
    this.replies = replies;
    this.looks = looks;
    this.clock = clock;
  }

  /** The topic of instance {@code instance}'s standing queries' replies. */
  static String standingTopicOf(String instance) {
    return "spyglass-standing-" + instance;
  }

  /**
   * Opens the writer of the records topic ({@code writerSettings}, timed by {@code clock}) and the
   * id journal under the data folder into {@code ingest}, once the folder is locked (the writer
   * fences the former producer of its instance: a second service on the same folder must fail at
   * the lock before it does), for writing documents once per id within {@code horizonMs}, and
   * starts reading the replies of the standing queries of {@code instance}, which are defined and
   * killed through the writer on {@code queryTopic}; times from {@code clock}; {@code ifLost} says
   * what to do when the journal was lost. The writer and the journal are closed with the job.
   */
  static JobStanding.Starter starter(
      AtomicReference<TopicIngest> ingest,
      long horizonMs,
      SpyglassClock clock,
      TopicIngest.IfJournalLost ifLost,
      IngestTopicWriter.Settings writerSettings,
      String bootstrap,
      String queryTopic,
      String instance,
      Map<String, Object> kafkaProperties) {
    return (Path ingestDir,
        Path jobDir,
        Consumer<JobReplies.Reply> out,
        LongSupplier committedEnd) -> {
      IngestTopicWriter writer = IngestTopicWriter.open(writerSettings, clock);
      TopicIngest ids;
      try {
        ids = TopicIngest.open(writer, ingestDir.getParent(), horizonMs, clock::millis, ifLost);
      } catch (IOException | RuntimeException | InterruptedException e) {
        writer.close();
        throw e;
      }
      String topic = standingTopicOf(instance);
      KafkaProducer<String, byte[]> looks = null;
      try {
        looks = lookProducer(bootstrap, kafkaProperties);
        ReplyTopicReader reader =
            ReplyTopicReader.start(
                bootstrap, topic, topic, kafkaProperties, r -> MeteringJob.forward(r, out));
        ingest.set(ids);
        return new TopicJob(ids, writer, bootstrap, queryTopic, topic, reader, looks, clock);
      } catch (RuntimeException e) {
        if (looks != null) {
          looks.close(Duration.ZERO);
        }
        ids.close();
        writer.close();
        throw e;
      }
    };
  }

  /** The producer of looks: no transaction, durable once sent ({@code acks=all}). */
  private static KafkaProducer<String, byte[]> lookProducer(
      String bootstrap, Map<String, Object> kafkaProperties) {
    Map<String, Object> c = new HashMap<>(kafkaProperties);
    c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    int ms = (int) LOOK_TIMEOUT.toMillis();
    // a look is sent under the lock of the looks waiting for answers: block it briefly
    c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000);
    c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, ms);
    c.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    return new KafkaProducer<>(c, new StringSerializer(), new ByteArraySerializer());
  }

  /** Defines the query among the documents: {@code fromPosition} is not used (see the class). */
  @Override
  public void submit(String id, CheckedQuery query, long receiveTimeMs, long fromPosition)
      throws IOException {
    byte[] json =
        ControlMessage.query(id, query.text(), receiveTimeMs, standingTopic, null)
            .withLimits(query.limits())
            .toJson();
    try {
      writer.define(queryTopic, id, json);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while defining " + id, e);
    }
  }

  @Override
  public void kill(String id) throws IOException {
    measured.remove(id);
    try {
      writer.control(queryTopic, id, ControlMessage.kill(id).toJson());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while deleting " + id, e);
    }
  }

  /**
   * Sends the look to the query topic and returns at once: its answer comes on the standing topic.
   * A look Kafka does not take gets no answer (the report waiting for it answers 503). A measure of
   * the query's state (without windows) is sent at most every 10 s per query: -1 for one not sent.
   */
  @Override
  public long inspect(String id, boolean windows) {
    if (!windows) {
      long now = clock.nanos();
      Long last = measured.get(id);
      if (last != null && now - last < MEASURE_EVERY_NANOS) {
        return -1;
      }
      measured.put(id, now);
    }
    long n = lookNumbers.incrementAndGet();
    byte[] json = ControlMessage.inspect(id, n, standingTopic, windows).toJson();
    try {
      looks.send(
          new ProducerRecord<>(queryTopic, 0, id, json),
          (at, e) -> {
            if (e != null) {
              LOG.warn("a look at standing query {} was not sent to {}: {}", id, queryTopic, e);
            }
          });
    } catch (KafkaException e) {
      LOG.warn("a look at standing query {} was not sent to {}: {}", id, queryTopic, e.toString());
    }
    return n;
  }

  /** No ingest log: the job's checkpoints hold the positions in the records topic. */
  @Override
  public long checkpointedPosition() {
    return -1;
  }

  @Override
  public String describe() {
    return "the Flink job via Kafka at " + bootstrap + " (replies on " + standingTopic + ")";
  }

  /**
   * Stops reading replies and closes the writer: the job goes on, and a start reads what it sent
   * meanwhile.
   */
  @Override
  public void close() throws IOException {
    replies.close();
    looks.close(Duration.ofSeconds(5));
    try {
      ingest.close();
    } finally {
      writer.close();
    }
  }
}

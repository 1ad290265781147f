package io.spyglass.flink.client;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.core.syntax.BqlException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits queries to a running Spyglass job on Flink through its query topic and reads their
 * replies from this instance's own result topic (created here when missing, one partition), so
 * several instances share one job and each sees only its own queries' results.
 *
 * <pre>{@code
 * try (FlinkQueryClient c = FlinkQueryClient.connect(FlinkQueryClient.Settings.of("127.0.0.1:9092", "a"))) {
 *   RemoteQuery q = c.submit("a-1", "SELECT COUNT(*) FROM STREAM(5s, TIME)");
 *   Result r = q.poll(10, TimeUnit.SECONDS);
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class FlinkQueryClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlinkQueryClient.class);

  /** The job's query topic unless configured otherwise. */
  public static final String DEFAULT_QUERY_TOPIC = "spyglass-queries";

  /** The Kafka header of each reply naming the instance that submitted the query. */
  public static final String INSTANCE_HEADER = "spyglass-instance";

  /**
   * @param bootstrap Kafka bootstrap servers, HOST:PORT[,HOST:PORT...]
   * @param queryTopic the job's query topic
   * @param instance this instance's name, unique among the instances sharing a job
   * @param resultTopic where the job sends this instance's replies
   * @param statusTopic the job's status topic, read for {@link #jobStatus()}; null not to read it
   * @param kafkaProperties extra Kafka client settings (e.g. security), applied last
   * @param resultQueue results a reader may leave unread before it is cut off
   * @param limits the job's query limits, to check queries before sending them
   * @param clock the client's clock: its wall clock gives the receive time of a query (epoch ms),
   *     its monotonic clock times the waits
   */
  public record Settings(
      String bootstrap,
      String queryTopic,
      String instance,
      String resultTopic,
      String statusTopic,
      Map<String, Object> kafkaProperties,
      int resultQueue,
      QueryLimits limits,
      SpyglassClock clock) {
    public Settings {
      Objects.requireNonNull(bootstrap, "bootstrap");
      Objects.requireNonNull(queryTopic, "queryTopic");
      Objects.requireNonNull(instance, "instance");
      Objects.requireNonNull(resultTopic, "resultTopic");
      kafkaProperties = Map.copyOf(kafkaProperties);
      if (resultQueue < 1) {
        throw new IllegalArgumentException("resultQueue must be at least 1: " + resultQueue);
      }
    }

    /**
     * The default topics: {@value #DEFAULT_QUERY_TOPIC}, {@code spyglass-results-INSTANCE}, and no
     * status topic.
     */
    public static Settings of(String bootstrap, String instance) {
      return new Settings(
          bootstrap,
          DEFAULT_QUERY_TOPIC,
          instance,
          resultTopicOf(instance),
          null,
          Map.of(),
          1_024,
          QueryLimits.DEFAULTS,
          SpyglassClock.system());
    }

    public Settings withQueryTopic(String topic) {
      return new Settings(
          bootstrap,
          topic,
          instance,
          resultTopic,
          statusTopic,
          kafkaProperties,
          resultQueue,
          limits,
          clock);
    }

    /** Also reads the job's status topic (see {@link #jobStatus()}). */
    public Settings withStatusTopic(String topic) {
      return new Settings(
          bootstrap,
          queryTopic,
          instance,
          resultTopic,
          topic,
          kafkaProperties,
          resultQueue,
          limits,
          clock);
    }

    /** The Kafka clients with {@code properties} applied last (e.g. TLS or SASL settings). */
    public Settings withKafkaProperties(Map<String, Object> properties) {
      return new Settings(
          bootstrap,
          queryTopic,
          instance,
          resultTopic,
          statusTopic,
          properties,
          resultQueue,
          limits,
          clock);
    }

    /** The wall clock {@code c} (the receive time of queries), the machine's monotonic clock. */
    public Settings withClock(LongSupplier c) {
      return withClock(SpyglassClock.ofWall(c));
    }

    public Settings withClock(SpyglassClock c) {
      return new Settings(
          bootstrap,
          queryTopic,
          instance,
          resultTopic,
          statusTopic,
          kafkaProperties,
          resultQueue,
          limits,
          c);
    }
  }

  /** The default result topic of an instance. */
  public static String resultTopicOf(String instance) {
    return "spyglass-results-" + instance;
  }

  private final Settings settings;
  private final KafkaProducer<byte[], byte[]> producer;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Replies replies;
  private final Thread reader;
  private final Map<Integer, JobStatus> statuses = new ConcurrentHashMap<>();
  private volatile Consumer<byte[]> samples;
  private volatile boolean closed;

  private FlinkQueryClient(Settings settings) throws TimeoutException {
    this.settings = settings;
    Map<String, Object> common = new HashMap<>();
    common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    common.putAll(settings.kafkaProperties());
    try (Admin admin = Admin.create(common)) {
      requireCluster(admin, settings.bootstrap());
      requireTopic(admin, settings.queryTopic());
      try {
        admin
            .createTopics(List.of(new NewTopic(settings.resultTopic(), 1, (short) -1)))
            .all()
            .get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw new IllegalStateException(
              "cannot create result topic " + settings.resultTopic() + ": " + e.getCause(), e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while connecting to Kafka", e);
    }
    Map<String, Object> p = new HashMap<>(common);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.putAll(settings.kafkaProperties());
    this.producer = new KafkaProducer<>(p);
    Map<String, Object> c = new HashMap<>(common);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.putAll(settings.kafkaProperties());
    this.consumer = new KafkaConsumer<>(c);
    List<TopicPartition> parts =
        new ArrayList<>(partitionsOf(consumer, settings.resultTopic(), settings.clock()));
    if (settings.statusTopic() != null) {
      consumer
          .partitionsFor(settings.statusTopic(), Duration.ofSeconds(30))
          .forEach(i -> parts.add(new TopicPartition(i.topic(), i.partition())));
    }
    consumer.assign(parts);
    consumer.seekToEnd(parts);
    // resolve the positions now: a reply written after this point is never skipped
    parts.forEach(tp -> consumer.position(tp, Duration.ofSeconds(30)));
    this.replies =
        new Replies(settings.resultQueue(), this::sendKill, this::sendFinish, settings.clock());
    this.reader = new Thread(this::read, "spyglass-flink-replies-" + settings.instance());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Connects to the job's Kafka: checks that the query topic exists, creates this instance's result
   * topic when it is missing, and starts reading it from its end.
   *
   * @throws IllegalStateException when Kafka does not answer or the query topic is missing; the
   *     message says which
   */
  public static FlinkQueryClient connect(Settings settings) {
    try {
      return new FlinkQueryClient(settings);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at " + settings.bootstrap() + " did not answer: " + e.getMessage(), e);
    }
  }

  /** How long Kafka has to answer the first request before the client gives up. */
  static final int ANSWER_SECONDS = 10;

  /**
   * Whether {@code topic} exists on the job's Kafka now (within {@value #ANSWER_SECONDS} s); false
   * when Kafka does not say so in time.
   */
  public boolean topicExists(String topic) {
    Map<String, Object> common = new HashMap<>();
    common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrap());
    common.putAll(settings.kafkaProperties());
    try (Admin admin = Admin.create(common)) {
      admin.describeTopics(List.of(topic)).allTopicNames().get(ANSWER_SECONDS, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException | TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void requireCluster(Admin admin, String bootstrap) throws InterruptedException {
    try {
      admin.describeCluster().clusterId().get(ANSWER_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      admin.close(Duration.ZERO); // not waiting for the requests still trying
      throw new IllegalStateException(
          "Kafka at "
              + bootstrap
              + " did not answer within "
              + ANSWER_SECONDS
              + " s: check that it runs and that --kafka names its listener (see docs/flink.md)",
          e);
    }
  }

  private static void requireTopic(Admin admin, String topic)
      throws TimeoutException, InterruptedException {
    try {
      admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "The query topic "
              + topic
              + " does not exist: create it (see docs/flink.md) and start the job first",
          e);
    }
  }

  /**
   * The partitions of a topic just created: a broker's metadata may not show them yet (a consumer
   * assigned no partition fails at its first poll), so ask again until it does.
   */
  private static List<TopicPartition> partitionsOf(
      KafkaConsumer<byte[], byte[]> consumer, String topic, SpyglassClock clock) {
    long deadline = clock.nanos() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      List<PartitionInfo> info = consumer.partitionsFor(topic, Duration.ofSeconds(30));
      if (info != null && !info.isEmpty()) {
        return info.stream().map(i -> new TopicPartition(i.topic(), i.partition())).toList();
      }
      if (clock.nanos() > deadline) {
        throw new IllegalStateException(
            "Kafka shows no partition of the result topic "
                + topic
                + " 30 s after creating it: check the broker's logs");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while connecting to Kafka", e);
      }
    }
  }

  public Settings settings() {
    return settings;
  }

  /** {@link #submit(String, String, boolean)} without progress replies. */
  public RemoteQuery submit(String id, String bql) {
    return submit(id, bql, false);
  }

  /**
   * Checks and sends a query; it runs once the job has it ({@link RemoteQuery#awaitRunning}).
   *
   * @param progress whether the job sends progress replies for it, about once a second
   * @throws BqlException when the text is not a valid query (with positions and resolutions)
   * @throws IllegalArgumentException when a query with this id runs here already
   * @throws IllegalStateException when the query could not be sent to Kafka
   */
  public RemoteQuery submit(String id, String bql, boolean progress) {
    return submit(id, bql, progress, List.of());
  }

  /**
   * As {@link #submit(String, String, boolean)}, the job also writing each result to {@code
   * kafkaSinkTopics} (topics on its own cluster, which must exist) as the documents of sinks keyed
   * by {@code id}, with its replies: in the same transaction when the job delivers exactly once.
   * The text is checked under {@link Settings#limits()}.
   */
  public RemoteQuery submit(String id, String bql, boolean progress, List<String> kafkaSinkTopics) {
    return submit(id, CheckedQuery.check(bql, settings.limits()), progress, kafkaSinkTopics);
  }

  /**
   * Sends a checked query with its limits: the job runs it under them (not its defaults), as it
   * would run here. Its results also go to {@code kafkaSinkTopics} as {@link #submit(String,
   * String, boolean, List)} says.
   *
   * @throws IllegalArgumentException when a query with this id runs here already
   * @throws IllegalStateException when the query could not be sent to Kafka
   */
  public RemoteQuery submit(
      String id, CheckedQuery checked, boolean progress, List<String> kafkaSinkTopics) {
    long now = settings.clock().getAsLong();
    Query query = checked.toQuery(id, now);
    String jobId = jobId(id);
    RemoteQuery q = replies.register(query, jobId);
    ControlMessage m =
        ControlMessage.query(
                jobId, checked.text(), now, settings.resultTopic(), settings.instance())
            .withProgress(progress)
            .withLimits(checked.limits())
            .withSinks(
                kafkaSinkTopics.isEmpty() ? null : new ControlMessage.Sinks(id, kafkaSinkTopics));
    try {
      send(m);
    } catch (RuntimeException e) {
      replies.fail(jobId, "could not send the query: " + e.getMessage());
      throw e;
    }
    return q;
  }

  /**
   * A query's id in the job: the instance's name, a colon, the id given here, so that instances
   * sharing a job may use the same ids.
   */
  public String jobId(String id) {
    return settings.instance() + ":" + id;
  }

  /** Stops a query at once, without a final result. */
  public void kill(String id) {
    sendKill(jobId(id));
  }

  private void sendKill(String jobId) {
    send(ControlMessage.kill(jobId));
  }

  /** Ends a query now; it emits its final result. */
  public void finish(String id) {
    sendFinish(jobId(id));
  }

  private void sendFinish(String jobId) {
    send(ControlMessage.finish(jobId));
  }

  /**
   * The latest status of each filter subtask of the job, by subtask (empty without a status topic,
   * or before the job told anything).
   */
  public Map<Integer, JobStatus> jobStatus() {
    return Map.copyOf(statuses);
  }

  /**
   * Hands {@code sampler} the sample record of each status the job sends (about one a second per
   * filter subtask), on the thread that reads replies; null stops it.
   */
  public void onSample(Consumer<byte[]> sampler) {
    this.samples = sampler;
  }

  /** Queries submitted here that have not ended. */
  public Collection<RemoteQuery> running() {
    return replies.running();
  }

  private void send(ControlMessage m) {
    if (closed) {
      throw new IllegalStateException("The client is closed");
    }
    try {
      producer
          .send(
              new ProducerRecord<>(
                  settings.queryTopic(), m.queryId().getBytes(StandardCharsets.UTF_8), m.toJson()))
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending to " + settings.queryTopic(), e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot send to " + settings.queryTopic() + ": " + e.getMessage(), e);
    }
  }

  private void read() {
    try {
      while (!closed) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          try {
            if (r.topic().equals(settings.resultTopic())) {
              Reply.decodeAll(r.value()).forEach(replies::accept);
            } else {
              JobStatus s = JobStatus.parse(r.value());
              statuses.put(s.subtask(), s);
              Consumer<byte[]> sampler = samples;
              if (sampler != null && s.sample() != null) {
                sampler.accept(s.sample());
              }
            }
          } catch (MessageFormatException e) {
            LOG.warn("skipping a malformed message on {}: {}", r.topic(), e.getMessage());
          }
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("reading replies from {} failed: {}", settings.resultTopic(), e.toString());
      replies.endAll("lost the connection to the job's result topic: " + e.getMessage());
    } finally {
      consumer.close();
    }
  }

  /**
   * Stops reading replies; queries still running here end with an error (they go on in the job).
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    consumer.wakeup();
    try {
      reader.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    replies.endAll("the client closed");
    producer.close(Duration.ofSeconds(5));
  }
}

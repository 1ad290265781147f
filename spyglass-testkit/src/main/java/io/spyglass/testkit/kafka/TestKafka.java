package io.spyglass.testkit.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.common.utils.Exit;

/**
 * A real Kafka broker for tests: one KRaft node (broker and controller in one) in this JVM, on a
 * loopback port, with the settings a single broker needs (internal topics of replication factor 1,
 * no initial rebalance delay: without them a consumer group never forms) and no topic created
 * automatically ({@link #createTopic}).
 *
 * <p>{@link #shared()} is one broker for every test class of the JVM, started on first use and
 * stopped when the JVM exits; {@link #start()} (or {@link #builder()}) starts one of the caller's
 * own, which it closes (a test may stop it on purpose: {@link #close()} may be called twice).
 *
 * <p>A module that uses it declares {@code org.apache.kafka:kafka-test-common-runtime} (test scope)
 * itself: the test kit holds it as an optional dependency, so that what depends on the test kit for
 * its driver does not get a broker. The methods use only what Kafka 4.2 and 4.3 both have (the
 * Flink job's tests run a 4.2 broker).
 */
public final class TestKafka implements AutoCloseable {
  private static volatile TestKafka shared;

  private final KafkaClusterTestKit cluster;
  private final String bootstrap;
  private boolean closed;

  private TestKafka(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    this.bootstrap = cluster.bootstrapServers();
  }

  /**
   * The broker shared by every test class of this JVM (test classes of a module run in one JVM):
   * started on first use, with its group and transaction coordinators loaded before it is handed
   * out, and stopped when the JVM exits. Its {@link #close()} does nothing.
   */
  public static synchronized TestKafka shared() {
    if (shared == null) {
      TestKafka k = builder().internalTopicPartitions(4).warmedUp().start();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    keepKafkaFromEndingTheJvm();
                    try {
                      k.stop();
                    } catch (RuntimeException e) {
                      // the JVM exits anyway
                    }
                  },
                  "test-kafka-stop"));
      shared = k;
    }
    return shared;
  }

  /** A broker of the caller's own, with the default settings: the caller closes it. */
  public static TestKafka start() {
    return builder().start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** How a broker of one's own is started. */
  public static final class Builder {
    private final Map<String, String> config = new LinkedHashMap<>();
    private boolean warmUp;

    private Builder() {
      config.put("offsets.topic.replication.factor", "1");
      config.put("transaction.state.log.replication.factor", "1");
      config.put("transaction.state.log.min.isr", "1");
      config.put("share.coordinator.state.topic.replication.factor", "1");
      config.put("share.coordinator.state.topic.min.isr", "1");
      config.put("group.initial.rebalance.delay.ms", "0");
      config.put("auto.create.topics.enable", "false");
      // the internal topics' 50 default partitions take long to create on a busy machine, and the
      // first consumer group or transaction waits for them
      internalTopicPartitions(1);
    }

    /** The partitions of the group offsets topic and of the transaction log (1 unless told). */
    public Builder internalTopicPartitions(int n) {
      config.put("offsets.topic.num.partitions", Integer.toString(n));
      config.put("transaction.state.log.num.partitions", Integer.toString(n));
      return this;
    }

    /** One more broker setting (a name of Kafka's broker configuration). */
    public Builder config(String name, String value) {
      config.put(name, value);
      return this;
    }

    /**
     * Loads the group and transaction coordinators (their internal topics are created on first use)
     * before the broker is handed out: on a busy machine a first offset commit or transaction can
     * otherwise wait past a test's own deadline for a coordinator.
     */
    public Builder warmedUp() {
      warmUp = true;
      return this;
    }

    /**
     * Starts the broker (3 to 8 s, about 250 MB) and waits until it is ready.
     *
     * @throws IllegalStateException when it cannot start
     */
    public TestKafka start() {
      KafkaClusterTestKit c = null;
      try {
        KafkaClusterTestKit.Builder b =
            new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build());
        config.forEach(b::setConfigProp);
        c = b.build();
        c.format();
        c.startup();
        c.waitForReadyBrokers();
        TestKafka k = new TestKafka(c);
        if (warmUp) {
          k.warmUp();
        }
        return k;
      } catch (Exception e) {
        if (c != null) {
          try {
            c.close();
          } catch (Exception suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("cannot start the test Kafka broker", e);
      }
    }
  }

  /** The broker's address on loopback, {@code HOST:PORT}, for {@code bootstrap.servers}. */
  public String bootstrap() {
    return bootstrap;
  }

  /** An admin client of the broker; the caller closes it. */
  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  /** Creates a topic (replication factor 1); one that exists already is left as it is. */
  public void createTopic(String name, int partitions) {
    createTopics(Map.of(name, partitions));
  }

  /**
   * Creates topics at once, partitions by name (replication factor 1); those that exist already are
   * left as they are.
   */
  public void createTopics(Map<String, Integer> partitionsByName) {
    List<NewTopic> topics = new ArrayList<>();
    partitionsByName.forEach((name, n) -> topics.add(new NewTopic(name, n, (short) 1)));
    try (Admin admin = admin()) {
      var created = admin.createTopics(topics).values();
      for (var f : created.values()) {
        try {
          f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException("cannot create the topics " + topics, e.getCause());
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the broker did not create the topics " + topics, e);
    }
  }

  /**
   * A producer of byte arrays that waits for the broker's acknowledgement ({@code acks=all}) and
   * sends at once ({@code linger.ms=0}); the caller closes it.
   */
  public KafkaProducer<byte[], byte[]> producer() {
    return producer(Map.of());
  }

  /** As {@link #producer()}, with {@code settings} over its own (Kafka's producer settings). */
  public KafkaProducer<byte[], byte[]> producer(Map<String, Object> settings) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.putAll(settings);
    return new KafkaProducer<>(p);
  }

  /**
   * Reads {@code topic} from its start, committed records only ({@code read_committed}), until
   * {@code count} records are read or {@code timeout} has passed: what a downstream reader sees.
   *
   * @return the records read, in each partition's order (fewer than {@code count} on a timeout)
   */
  public List<ConsumerRecord<byte[], byte[]>> read(String topic, int count, Duration timeout) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic, timeout)
          .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (out.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(100)).forEach(out::add);
      }
    }
    return out;
  }

  /** Stops the broker (a broker of one's own; the shared one stops when the JVM exits). */
  @Override
  public void close() {
    if (this != shared) {
      stop();
    }
  }

  private synchronized void stop() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      cluster.close();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("the test Kafka broker did not stop cleanly", e);
    }
  }

  /**
   * While the JVM exits (every test has run and reported), a broker stopping late can take a write
   * for a log it has closed as a failed log directory and halt the JVM with status 1 ({@link
   * Exit#halt}), which turns a passed test run into a failed one. From here on, Kafka's halt and
   * exit print what Kafka asked for instead.
   */
  private static void keepKafkaFromEndingTheJvm() {
    Exit.setHaltProcedure(
        (status, message) ->
            System.err.printf(
                "the test Kafka broker asked to halt the exiting JVM (status %d: %s); ignored%n",
                status, message));
    Exit.setExitProcedure(
        (status, message) ->
            System.err.printf(
                "the test Kafka broker asked to exit the exiting JVM (status %d: %s); ignored%n",
                status, message));
  }

  /** See {@link Builder#warmedUp()}. */
  private void warmUp() throws Exception {
    String topic = "spyglass-warm-up";
    createTopic(topic, 1);
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "spyglass-warm-up");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 120_000);
    try (KafkaProducer<byte[], byte[]> producer = producer(p)) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, new byte[] {1}));
      producer.commitTransaction();
    }
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "spyglass-warm-up");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 120_000);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.commitSync(Map.of(tp, new OffsetAndMetadata(1)), Duration.ofSeconds(120));
    }
  }
}

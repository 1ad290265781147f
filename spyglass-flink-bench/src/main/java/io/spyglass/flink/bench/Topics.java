package io.spyglass.flink.bench;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The topics of the bench's runs, created for each run and deleted after it. */
final class Topics implements AutoCloseable {
  private final String bootstrap;
  private final Admin admin;

  Topics(String bootstrap) {
    this.bootstrap = bootstrap;
    this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  String bootstrap() {
    return bootstrap;
  }

  /**
   * Creates a topic and waits until the broker serves its metadata, every partition with a leader:
   * a consumer started right after finds it.
   */
  void create(String topic, int partitions) {
    try {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!served(topic, partitions)) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException("the broker does not serve its metadata after 60 s");
        }
        Thread.sleep(20);
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create topic " + topic + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + topic, e);
    }
  }

  /** Whether the broker gives the topic's partitions, each with a leader. */
  private boolean served(String topic, int partitions) throws InterruptedException {
    try {
      TopicDescription d =
          admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
      return d != null
          && d.partitions().size() == partitions
          && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
    } catch (ExecutionException | TimeoutException e) {
      return false; // not known yet
    }
  }

  /** Deletes topics (their data leaves the broker's disk); a failure is only reported. */
  void delete(Collection<String> topics) {
    try {
      admin.deleteTopics(topics).all().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      System.err.println("bench: could not delete topics " + topics + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * A producer of raw bytes; with {@code transactionalId}, transactional (its records become
   * visible to readers of committed records only when the transaction commits).
   */
  KafkaProducer<byte[], byte[]> producer(String transactionalId, int lingerMs) {
    Map<String, Object> p =
        new java.util.HashMap<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                lingerMs,
                ProducerConfig.BATCH_SIZE_CONFIG,
                512 * 1024,
                ProducerConfig.BUFFER_MEMORY_CONFIG,
                128L << 20));
    if (transactionalId != null) {
      p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
      // the broker's longest: setting up 10,000 queries may take minutes on a loaded machine
      p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 900_000);
      // one request in flight: a batch refused by a partition whose leader is not ready yet (a
      // topic just created) is sent again before the next, never after it, which the broker
      // answered with OUT_OF_ORDER_SEQUENCE_NUMBER until the batches expired and the producer
      // failed ("Cannot execute transactional method because we are in an error state")
      p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    }
    return new KafkaProducer<>(p);
  }

  @Override
  public void close() {
    admin.close();
  }
}

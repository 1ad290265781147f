package io.spyglass.flink.client;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the replies the job sends to one topic (the standing queries' of a service instance), as a
 * consumer group: each reply goes to a listener, and the group's offsets are committed once the
 * listener has taken every reply of a poll. A reader started again (the service restarted) goes on
 * from the last commit: the replies the job sent meanwhile are read, and some before may come again
 * (at least once: the listener writes each once). Only committed replies are read. The reader is
 * the group's static member {@code group}: one started again takes the topic back at once, and a
 * second one reading the same group at the same time fences the first (its reading stops).
 */
public final class ReplyTopicReader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplyTopicReader.class);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Consumer<Reply> listener;
  private final Thread thread;
  private volatile boolean closed;

  private ReplyTopicReader(KafkaConsumer<byte[], byte[]> consumer, Consumer<Reply> listener) {
    this.consumer = consumer;
    this.listener = listener;
    this.thread = new Thread(this::read, "spyglass-standing-replies");
    thread.setDaemon(true);
  }

  /**
   * Creates {@code topic} when it is missing (one partition) and reads it as group {@code group},
   * from its beginning the first time.
   *
   * @param listener gets each reply, on the reader's thread; a reply is committed once it returns
   * @throws IllegalStateException when Kafka does not answer in time
   */
  public static ReplyTopicReader start(
      String bootstrap,
      String topic,
      String group,
      Map<String, Object> kafkaProperties,
      Consumer<Reply> listener) {
    Map<String, Object> common = new HashMap<>(kafkaProperties);
    common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(common)) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) -1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + topic + ": " + e.getCause(), e);
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at " + bootstrap + " did not answer within 30 s: check that it runs", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while connecting to Kafka", e);
    }
    Map<String, Object> c = new HashMap<>(common);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    // a static member: a reader started again (after a kill -9) takes the partition back at once,
    // rather than after the session timeout of the former one (45 s of replies, and of answers to
    // looks, unread)
    c.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, group);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c);
    consumer.subscribe(List.of(topic));
    ReplyTopicReader r = new ReplyTopicReader(consumer, listener);
    r.thread.start();
    return r;
  }

  private void read() {
    try {
      while (!closed) {
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(500));
        for (ConsumerRecord<byte[], byte[]> r : polled) {
          List<Reply> replies;
          try {
            replies = Reply.decodeAll(r.value());
          } catch (MessageFormatException e) {
            LOG.warn("skipping a malformed reply at offset {}: {}", r.offset(), e.getMessage());
            continue;
          }
          try {
            for (Reply reply : replies) {
              listener.accept(reply);
            }
          } catch (RuntimeException e) {
            // not taken (e.g. the database is busy): read again from the last commit, later
            LOG.warn("a standing query's reply was not taken, reading it again: {}", e.toString());
            rewind();
            polled = ConsumerRecords.empty();
            break;
          }
        }
        if (!polled.isEmpty()) {
          consumer.commitSync();
        }
      }
    } catch (WakeupException e) {
      // closed
    } catch (RuntimeException e) {
      LOG.error("reading the standing queries' replies stopped", e);
    } finally {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  /** Goes back to the last committed offsets, after a pause. */
  private void rewind() {
    try {
      Thread.sleep(1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
      return;
    }
    var committed = consumer.committed(consumer.assignment());
    for (var tp : consumer.assignment()) {
      var at = committed.get(tp);
      if (at != null) {
        consumer.seek(tp, at.offset());
      } else {
        consumer.seekToBeginning(List.of(tp));
      }
    }
  }

  /** Stops reading; what was not committed is read again by the next reader of the group. */
  @Override
  public void close() {
    closed = true;
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

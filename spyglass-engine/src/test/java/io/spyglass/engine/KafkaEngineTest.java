package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.record.BadRecord;
import io.spyglass.core.result.Result;
import io.spyglass.sources.BadInput;
import io.spyglass.sources.KafkaSource;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine reading a Kafka topic, against a real single-node KRaft broker of its own ({@link
 * TestKafka}): the source's own tests are spyglass-sources' {@code KafkaSourceTest}.
 */
class KafkaEngineTest {
  private static final long T0 = 1_700_000_000_000L;
  private static TestKafka kafka;
  private static KafkaProducer<byte[], byte[]> producer;
  private static String bootstrap;

  @BeforeAll
  static void startBroker() {
    kafka = TestKafka.start();
    bootstrap = kafka.bootstrap();
    kafka.createTopics(Map.of("engine", 2));
    producer = kafka.producer();
  }

  @AfterAll
  static void stopBroker() {
    if (producer != null) {
      producer.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void anEngineScansValuesWhereTheConsumerHoldsThemAndTellsBadOnesByPartitionAndOffset()
      throws Exception {
    send("engine", 0, "{\"id\":\"a\",\"n\":1}");
    RecordMetadata bad = send("engine", 1, "{\"id\": oops}");
    RecordMetadata tombstone =
        producer
            .send(new ProducerRecord<>("engine", 0, T0, "k".getBytes(), (byte[]) null))
            .get(30, TimeUnit.SECONDS);
    RecordMetadata b = send("engine", 1, "{\"id\":\"b\",\"n\":2}");
    send("engine", 0, "{\"id\":\"c\",\"n\":3}");
    try (Engine engine =
        Engine.startPaused(
            new KafkaSource(
                bootstrap,
                "engine",
                KafkaSource.Options.DEFAULTS.withFrom(KafkaSource.StartAt.earliest())),
            EngineConfig.defaults().withWorkers(2).withTickMs(20))) {
      QueryHandle needle =
          engine.submit(
              "SELECT id, n, _kafka_partition AS p, _kafka_offset AS o FROM STREAM(MAX, TIME)"
                  + " WHERE id = 'b' LIMIT 1");
      QueryHandle count = engine.submit("SELECT COUNT(*) AS n, SUM(n) AS s FROM STREAM(MAX, TIME)");
      assertThat(needle.awaitRunning(30, TimeUnit.SECONDS)).isTrue();
      assertThat(count.awaitRunning(30, TimeUnit.SECONDS)).isTrue();
      engine.resume();
      Result found = needle.poll(60, TimeUnit.SECONDS);
      assertThat(found).isNotNull();
      assertThat(found.records())
          .containsExactly(Map.of("id", "b", "n", 2L, "p", 1L, "o", b.offset()));
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (engine.badInput().total() < 2 && System.nanoTime() < end) {
        Thread.sleep(20);
      }
      BadInput.Snapshot skipped = engine.badInput();
      assertThat(skipped.counts())
          .isEqualTo(Map.of(BadRecord.MALFORMED_JSON, 1L, BadRecord.NO_VALUE, 1L));
      assertThat(skipped.places().get(BadRecord.MALFORMED_JSON))
          .containsExactly("partition 1 offset " + bad.offset());
      assertThat(skipped.places().get(BadRecord.NO_VALUE))
          .containsExactly("partition 0 offset " + tombstone.offset());
      // every good record is counted once the count query has seen them all
      end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (engine.metrics().recordsProcessed() < 3 && System.nanoTime() < end) {
        Thread.sleep(20);
      }
      engine.finishAll();
      Result last = null;
      for (Result r = count.poll(30, TimeUnit.SECONDS);
          r != null;
          r = r.meta().isFinal() ? null : count.poll(30, TimeUnit.SECONDS)) {
        last = r;
      }
      assertThat(last).isNotNull();
      assertThat(last.meta().isFinal()).isTrue();
      assertThat(last.records()).containsExactly(Map.of("n", 3L, "s", 6.0));
    }
  }

  private static RecordMetadata send(String topic, int partition, String value) throws Exception {
    return producer
        .send(
            new ProducerRecord<>(
                topic, partition, T0, null, value.getBytes(StandardCharsets.UTF_8)))
        .get(30, TimeUnit.SECONDS);
  }
}

package io.spyglass.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Kafka sinks against a real single-node KRaft broker, read back by a consumer. */
class KafkaDeliveryTest {
  private static String bootstrap;

  @BeforeAll
  static void startBroker() throws Exception {
    TestKafka kafka = TestKafka.shared();
    bootstrap = kafka.bootstrap();
    kafka.createTopic("results", 2);
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int n) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                "reader-" + topic + "-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      c.subscribe(List.of(topic));
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (out.size() < n && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      // nothing more than was sent
      c.poll(Duration.ofMillis(500)).forEach(out::add);
    }
    return out;
  }

  @Test
  void eachDocumentIsOneMessageKeyedByItsKey() throws Exception {
    try (Sinks sinks =
        new Sinks(DeliverySettings.DEFAULTS, SinkPolicy.of(List.of(), null, List.of(bootstrap)))) {
      QuerySinks q = sinks.forQuery("q7", List.of(SinkSpec.kafka(null, "results")));
      for (int i = 1; i <= 5; i++) {
        q.offer(Results.window("q7", i, i == 5));
      }
      assertThat(sinks.awaitIdle(60_000)).isTrue();
      assertThat(q.stats().get(0).delivered()).isEqualTo(5);
      assertThat(sinks.count(SinkSpec.Type.KAFKA, Sinks.Count.DELIVERED)).isEqualTo(5);
    }
    List<ConsumerRecord<byte[], byte[]>> read = readAll("results", 5);
    assertThat(read).hasSize(5);
    assertThat(read)
        .extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
        .containsExactlyInAnyOrder("q7:1", "q7:2", "q7:3", "q7:4", "q7:5");
    assertThat(read)
        .allSatisfy(
            r ->
                assertThat(new String(r.value(), StandardCharsets.UTF_8))
                    .startsWith(
                        "{\"key\":\""
                            + new String(r.key(), StandardCharsets.UTF_8)
                            + "\",\"query\":\"q7\""));
  }

  @Test
  void aTopicMissingForAWhileIsWrittenOnceItExists() throws Exception {
    DeliverySettings quick =
        DeliverySettings.DEFAULTS.withRetries(100, 120_000, 10, 200).withRequestTimeoutMs(2_000);
    try (Sinks sinks = new Sinks(quick, SinkPolicy.unrestricted())) {
      QuerySinks q = sinks.forQuery("late", List.of(SinkSpec.kafka(bootstrap, "created-later")));
      q.offer(Results.whole("late"));
      Await.until("a failed attempt", () -> q.stats().get(0).retried() >= 1);
      assertThat(q.stats().get(0).failing()).isTrue();
      TestKafka.shared().createTopic("created-later", 1);
      Await.until("delivered", () -> q.stats().get(0).delivered() == 1);
      assertThat(q.stats().get(0).failing()).isFalse();
    }
    assertThat(readAll("created-later", 1))
        .singleElement()
        .extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
        .isEqualTo("late:1");
  }
}

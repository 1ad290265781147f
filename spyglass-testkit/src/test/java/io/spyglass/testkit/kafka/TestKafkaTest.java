package io.spyglass.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The test broker as the modules' tests use it. */
class TestKafkaTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void aBrokerOfOnesOwnTakesRecordsAndStopsWhenClosed() throws Exception {
    TestKafka kafka = TestKafka.start();
    try {
      assertThat(kafka.bootstrap()).matches("[^,]+:\\d+"); // one loopback address
      kafka.createTopic("events", 2);
      kafka.createTopic("events", 2); // one that exists is left as it is
      try (KafkaProducer<byte[], byte[]> p = kafka.producer()) {
        for (int i = 0; i < 4; i++) {
          p.send(new ProducerRecord<>("events", i % 2, null, bytes("r" + i)))
              .get(30, TimeUnit.SECONDS);
        }
      }
      assertThat(values(kafka.read("events", 4, WAIT)))
          .containsExactlyInAnyOrder("r0", "r1", "r2", "r3");
    } finally {
      kafka.close();
    }
    kafka.close(); // a test may stop its broker before its end: closing again does nothing
  }

  @Test
  void theSharedBrokerIsOneAndTakesTransactions() throws Exception {
    TestKafka kafka = TestKafka.shared();
    assertThat(TestKafka.shared()).isSameAs(kafka);
    kafka.createTopics(Map.of("committed", 1, "other", 3));
    try (KafkaProducer<byte[], byte[]> p =
        kafka.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "test-kafka-test"))) {
      p.initTransactions();
      p.beginTransaction();
      p.send(new ProducerRecord<>("committed", bytes("aborted")));
      p.abortTransaction();
      p.beginTransaction();
      p.send(new ProducerRecord<>("committed", bytes("kept")));
      p.commitTransaction();
    }
    // read_committed: what a downstream reader sees
    assertThat(values(kafka.read("committed", 1, WAIT))).containsExactly("kept");
    kafka.close(); // the shared broker stays for the other test classes
    assertThat(kafka.read("committed", 1, WAIT)).hasSize(1);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records) {
    List<String> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      out.add(new String(r.value(), StandardCharsets.UTF_8));
    }
    return out;
  }
}

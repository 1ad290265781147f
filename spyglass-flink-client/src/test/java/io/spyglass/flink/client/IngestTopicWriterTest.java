package io.spyglass.flink.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.testkit.kafka.TestKafka;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * The writer of accepted documents to the job's records topic, on a real broker: a request is
 * committed whole before {@code write} returns (what {@code read_committed} readers such as the job
 * see), and a request that fails leaves nothing of it visible.
 */
class IngestTopicWriterTest {
  private static IngestTopicWriter.Doc doc(String id, String json) {
    return new IngestTopicWriter.Doc(id, json.getBytes(StandardCharsets.UTF_8));
  }

  private static String text(ConsumerRecord<byte[], byte[]> r) {
    return new String(r.key(), StandardCharsets.UTF_8)
        + "="
        + new String(r.value(), StandardCharsets.UTF_8);
  }

  @Test
  void aRequestIsInTheTopicOnceWriteReturnsKeyedByItsIds() throws Exception {
    TestKafka kafka = TestKafka.shared();
    kafka.createTopic("ingest-written", 2);
    try (IngestTopicWriter w =
        IngestTopicWriter.open(
            IngestTopicWriter.Settings.of(kafka.bootstrap(), "ingest-written", "a"))) {
      w.write(List.of(doc("u-1", "{\"id\": \"u-1\"}"), doc("u-2", "{\"id\": \"u-2\"}")));
      w.write(List.of(doc("u-3", "{\"id\": \"u-3\"}")));
    }
    List<String> read =
        kafka.read("ingest-written", 3, Duration.ofSeconds(30)).stream()
            .map(IngestTopicWriterTest::text)
            .sorted()
            .toList();
    assertThat(read)
        .containsExactly("u-1={\"id\": \"u-1\"}", "u-2={\"id\": \"u-2\"}", "u-3={\"id\": \"u-3\"}");
  }

  @Test
  void aRequestThatFailsLeavesNothingOfItForTheJob() throws Exception {
    TestKafka kafka = TestKafka.shared();
    try (Admin admin = kafka.admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic("ingest-small", 1, (short) 1)
                      .configs(Map.of("max.message.bytes", "2000"))))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
    IngestTopicWriter.Settings settings =
        new IngestTopicWriter.Settings(
            kafka.bootstrap(),
            "ingest-small",
            "b",
            Duration.ofSeconds(30),
            // an extra setting may not weaken the guarantees
            Map.of(ProducerConfig.ACKS_CONFIG, "0"));
    try (IngestTopicWriter w = IngestTopicWriter.open(settings)) {
      assertThat(w.producerConfig()).containsEntry(ProducerConfig.ACKS_CONFIG, "all");
      String big = "{\"id\": \"big\", \"pad\": \"" + "x".repeat(5000) + "\"}";
      assertThatThrownBy(
              () -> w.write(List.of(doc("small", "{\"id\": \"small\"}"), doc("big", big))))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("could not be written to Kafka topic ingest-small");
      w.write(List.of(doc("after", "{\"id\": \"after\"}")));
    }
    List<String> read =
        kafka.read("ingest-small", 2, Duration.ofSeconds(5)).stream()
            .map(IngestTopicWriterTest::text)
            .toList();
    assertThat(read)
        .as("the failed request's small document is not visible")
        .containsExactly("after={\"id\": \"after\"}");
  }

  /**
   * Where a transaction's first record is tells how it ended: committed, aborted, or left open by a
   * process that stopped in the middle (then a new writer of the instance ends it: aborted).
   */
  @Test
  void committedTellsHowARequestEnded() throws Exception {
    TestKafka kafka = TestKafka.shared();
    kafka.createTopic("ingest-told", 2);
    IngestTopicWriter.Settings settings =
        IngestTopicWriter.Settings.of(kafka.bootstrap(), "ingest-told", "told");
    long[] at = new long[2];
    try (IngestTopicWriter w = IngestTopicWriter.open(settings)) {
      w.write(List.of(doc("c-1", "{}"), doc("c-2", "{}")), (p, o) -> place(at, p, o));
      assertThat(w.committed((int) at[0], at[1])).as("committed").isTrue();

      assertThatThrownBy(
              () ->
                  w.write(
                      List.of(doc("a-1", "{}")),
                      (p, o) -> {
                        place(at, p, o);
                        throw new IOException("the journal's disk is full");
                      }))
          .hasMessageContaining("disk is full");
      assertThat(w.committed((int) at[0], at[1])).as("aborted").isFalse();
      w.write(List.of(doc("c-3", "{}")), (p, o) -> place(at, p, o));
      assertThat(w.committed((int) at[0], at[1])).as("committed after an abort").isTrue();
    }
    IngestTopicWriter open = IngestTopicWriter.open(settings);
    try {
      // the process stops between the records and the commit: the transaction stays open
      assertThatThrownBy(
              () ->
                  open.write(
                      List.of(doc("o-1", "{}")),
                      (p, o) -> {
                        place(at, p, o);
                        throw new IllegalStateException("stopped");
                      }))
          .hasMessage("stopped");
      try (IngestTopicWriter next = IngestTopicWriter.open(settings)) {
        assertThat(next.committed((int) at[0], at[1])).as("left open, then fenced").isFalse();
      }
    } finally {
      open.close();
    }
  }

  private static void place(long[] at, int partition, long offset) {
    at[0] = partition;
    at[1] = offset;
  }
}

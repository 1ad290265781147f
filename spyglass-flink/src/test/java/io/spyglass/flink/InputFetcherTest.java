package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The job's Kafka consumer hands on records where it fetched them, from a real broker: a batch
 * refers to the values in the consumer's own buffer (no copy of each record), and the records read
 * from it are the ones produced, each at its place; a record without a value is skipped. A batch
 * that crosses the network still travels as the records alone, back to back.
 */
class InputFetcherTest {
  private static KafkaInput.Settings settings(String topic) {
    return new KafkaInput.Settings(
        TestKafka.shared().bootstrap(),
        topic,
        topic + "-queries",
        "fetcher-test",
        JobOptions.Start.EARLIEST,
        JobOptions.Start.EARLIEST,
        0,
        false,
        false,
        10_000,
        Map.of());
  }

  @Test
  void aBatchRefersToTheRecordsWhereTheConsumerFetchedThem() throws Exception {
    String topic = "fetcher-in-place";
    TestKafka.shared().createTopic(topic, 1);
    List<String> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer()) {
      for (int i = 0; i < 50; i++) {
        String json = "{\"id\":\"r" + i + "\",\"pad\":\"" + "x".repeat(i) + "\"}";
        sent.add(json);
        producer.send(new ProducerRecord<>(topic, 0, null, json.getBytes(StandardCharsets.UTF_8)));
        if (i == 24) {
          producer.send(new ProducerRecord<>(topic, 0, null, null)); // a tombstone, offset 25
        }
      }
      producer.flush();
    }
    List<String> read = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    List<RecordBatch> batches = new ArrayList<>();
    try (InputFetcher fetcher = new InputFetcher(settings(topic), 0)) {
      InputSplit split = InputSplit.records(topic, 0, InputSplit.EARLIEST);
      fetcher.handleSplitsChanges(new SplitsAddition<>(List.of(split)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (read.size() < sent.size() && System.nanoTime() < deadline) {
        RecordsWithSplitIds<InputFetcher.Fetched> got = fetcher.fetch();
        while (got.nextSplit() != null) {
          InputFetcher.Fetched f;
          while ((f = got.nextRecordFromSplit()) != null) {
            if (f.kind != InputFetcher.Fetched.Kind.RECORDS) {
              continue;
            }
            RecordBatch b = f.batch;
            batches.add(b);
            for (int i = 0; i < b.count; i++) {
              read.add(
                  new String(b.data, b.start(i), b.ends[i] - b.start(i), StandardCharsets.UTF_8));
              offsets.add(b.positions[3 * i + 1]);
            }
          }
        }
      }
    }
    assertThat(read).isEqualTo(sent);
    List<Long> expectedOffsets = new ArrayList<>();
    for (long o = 0; o <= 50; o++) {
      if (o != 25) {
        expectedOffsets.add(o);
      }
    }
    assertThat(offsets).isEqualTo(expectedOffsets);
    for (RecordBatch b : batches) {
      // the fetch's buffer, Kafka's record headers between the values: not a copy of the values
      assertThat(b.starts).as("records referenced in place").isNotNull();
      assertThat(b.data.length).isGreaterThan(b.ends[b.count - 1] - b.starts[0]);
      RecordBatch copy = RecordBatchSerializer.INSTANCE.copy(b);
      assertThat(copy.starts).isNull();
      assertThat(copy.data.length).isEqualTo(Arrays.stream(lengths(b)).sum());
      for (int i = 0; i < b.count; i++) {
        assertThat(Arrays.copyOfRange(copy.data, copy.start(i), copy.ends[i]))
            .isEqualTo(Arrays.copyOfRange(b.data, b.start(i), b.ends[i]));
      }
    }
  }

  private static int[] lengths(RecordBatch b) {
    int[] out = new int[b.count];
    for (int i = 0; i < b.count; i++) {
      out[i] = b.ends[i] - b.start(i);
    }
    return out;
  }
}

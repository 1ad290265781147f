package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A query's Kafka sink written by the job, exactly once, with its replies: a consumer that reads
 * committed messages finds one document per result, keyed by the query's id where it was submitted
 * and its window, holding the result the client received.
 */
@OnMiniCluster
class KafkaSinksITCase {
  @Test
  void theJobWritesEachResultToTheSinkTopicInItsTransaction() throws Exception {
    KafkaJobs.Job j =
        KafkaJobs.prepare(
            "sinks",
            1,
            Map.of(
                "records.start", "LATEST",
                "checkpoint-ms", "200",
                "results.delivery", "EXACTLY_ONCE"));
    TestKafka.shared().createTopic("sinks-out", 1);
    JobClient job = KafkaJobs.start(j, 1);
    try (KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer();
        FlinkQueryClient client =
            FlinkQueryClient.connect(
                FlinkQueryClient.Settings.of(TestKafka.shared().bootstrap(), "sinks-a")
                    .withQueryTopic(j.queriesTopic()))) {
      RemoteQuery q =
          client.submit(
              "q1",
              "SELECT COUNT(*) AS n FROM STREAM(4000, TIME) WINDOWING TUMBLING(1000, TIME)",
              false,
              List.of("sinks-out"));
      assertThat(q.awaitRunning(60, TimeUnit.SECONDS)).isTrue();
      List<Result> received = new ArrayList<>();
      long i = 0;
      while (true) {
        boolean done = q.isDone(); // before the poll: nothing queued is missed
        Result r = q.poll(20, TimeUnit.MILLISECONDS);
        if (r != null) {
          received.add(r);
        } else if (done) {
          break;
        }
        producer.send(
            new ProducerRecord<>(
                j.recordsTopic(), ("{\"id\": \"r" + i++ + "\"}").getBytes(StandardCharsets.UTF_8)));
      }
      assertThat(received).hasSizeGreaterThanOrEqualTo(3);
      List<ConsumerRecord<byte[], byte[]>> docs = readCommitted("sinks-out", received.size());
      assertThat(docs).hasSize(received.size());
      for (int k = 0; k < docs.size(); k++) {
        String d = new String(docs.get(k).value(), StandardCharsets.UTF_8);
        Result r = received.get(k);
        long window = r.meta().window().orElseThrow().number();
        assertThat(new String(docs.get(k).key(), StandardCharsets.UTF_8)).isEqualTo("q1:" + window);
        assertThat(d)
            .startsWith(
                "{\"key\":\"q1:"
                    + window
                    + "\",\"query\":\"q1\",\"window\":"
                    + window
                    + ",\"final\":"
                    + r.meta().isFinal()
                    + ",\"records\":")
            .contains(records(r.toJson()));
      }
    } finally {
      job.cancel().get(30, TimeUnit.SECONDS);
    }
  }

  /** {@code "records":[...]} of a result's JSON. */
  private static String records(String json) {
    return json.substring(json.indexOf("\"records\":"), json.indexOf(",\"meta\":"));
  }

  /** The committed messages of a one-partition topic, waiting for at least {@code atLeast}. */
  private static List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic, int atLeast) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.shared().bootstrap(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class))) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (out.size() < atLeast && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
      // nothing more than the results
      c.poll(Duration.ofMillis(1_000)).forEach(out::add);
    }
    return out;
  }
}

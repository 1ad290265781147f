package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.flink.client.Reply;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The job on the wall clock while records stream in: queries of two instances come and go, each
 * instance reads only its own replies, a killed query stops, a needle query ends at its LIMIT,
 * event-time windows close, a bad query is refused with its position, and garbage on the query
 * topic or in the records hurts nothing else.
 */
@OnMiniCluster
class LiveQueriesITCase {
  @Test
  void queriesComeAndGoWhileRecordsStreamIn() throws Exception {
    KafkaJobs.Job j = KafkaJobs.prepare("live", 2, Map.of("records.start", "LATEST"));
    JobClient job = KafkaJobs.start(j, 2);
    AtomicBoolean streaming = new AtomicBoolean(true);
    KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer();
    Thread feeder = new Thread(() -> feed(producer, j.recordsTopic(), streaming), "feeder");
    feeder.start();
    try (FlinkQueryClient a =
            FlinkQueryClient.connect(
                FlinkQueryClient.Settings.of(TestKafka.shared().bootstrap(), "live-a")
                    .withQueryTopic(j.queriesTopic()));
        FlinkQueryClient b =
            FlinkQueryClient.connect(
                FlinkQueryClient.Settings.of(TestKafka.shared().bootstrap(), "live-b")
                    .withQueryTopic(j.queriesTopic()))) {
      RemoteQuery count =
          a.submit(
              "a-count",
              "SELECT COUNT(*) AS n FROM STREAM(60000, TIME) WINDOWING TUMBLING(500, TIME)",
              true);
      assertThat(count.awaitRunning(60, TimeUnit.SECONDS)).isTrue();
      // windows follow each other; once the records source has its partitions, they count records
      long counted = 0;
      for (int w = 1; counted == 0 && w <= 60; w++) {
        Result r = count.poll(30, TimeUnit.SECONDS);
        assertThat(r).as("window " + w).isNotNull();
        assertThat(r.meta().window().orElseThrow().number()).isEqualTo(w);
        counted = ((Number) r.records().get(0).get("n")).longValue();
      }
      assertThat(counted).as("records in a window").isPositive();

      // garbage on the query topic, then a query of the other instance: it runs
      producer.send(
          new ProducerRecord<>(j.queriesTopic(), "not json".getBytes(StandardCharsets.UTF_8)));
      RemoteQuery groups =
          b.submit("b-groups", "SELECT k, COUNT(*) AS n FROM STREAM(2000, TIME) GROUP BY k");
      Result g = groups.poll(30, TimeUnit.SECONDS);
      assertThat(g).isNotNull();
      assertThat(g.meta().isFinal()).isTrue();
      assertThat(g.records())
          .extracting(r -> r.get("k"))
          .containsExactlyInAnyOrder("k0", "k1", "k2", "k3", "k4");
      assertThat(groups.awaitDone(30, TimeUnit.SECONDS)).isTrue();
      assertThat(groups.error()).isNull();

      // a needle: the query ends at its LIMIT, with the record and its virtual fields
      RemoteQuery needle =
          a.submit("a-needle", "SELECT * FROM STREAM(30000, TIME) WHERE id = 'needle' LIMIT 1");
      assertThat(needle.awaitRunning(30, TimeUnit.SECONDS)).isTrue();
      producer.send(
          new ProducerRecord<>(
              j.recordsTopic(), "{\"id\": \"needle\", \"v\": 7}".getBytes(StandardCharsets.UTF_8)));
      Result found = needle.poll(30, TimeUnit.SECONDS);
      assertThat(found).isNotNull();
      assertThat(found.meta().isFinal()).isTrue();
      assertThat(found.records()).hasSize(1);
      assertThat(found.records().get(0))
          .containsEntry("id", "needle")
          .containsEntry("v", 7L)
          .containsKeys("_read_ms", "_kafka_partition", "_kafka_offset", "_kafka_timestamp");
      assertThat(needle.awaitDone(30, TimeUnit.SECONDS)).isTrue();

      // event-time windows on the wall clock: each closes at the tick after the records that
      // took the watermark past its end, with the whole metadata of the window and event time
      RemoteQuery events =
          a.submit(
              "a-events",
              "SELECT COUNT(*) AS n FROM STREAM(60000, TIME) WINDOWING TUMBLING(100, EVENT_TIME(v))");
      Result e = events.poll(30, TimeUnit.SECONDS);
      assertThat(e).as("an event-time window").isNotNull();
      Meta.WindowMeta w = e.meta().window().orElseThrow();
      assertThat(w.eventWindow().orElseThrow().isFinal()).isTrue();
      assertThat(w.eventWindow().orElseThrow().endTimeMs()).isEqualTo(w.startTimeMs() + 100);
      assertThat(((Number) e.records().get(0).get("n")).longValue()).isBetween(1L, 100L);
      assertThat(e.meta().eventTime().orElseThrow().watermarkMs().orElseThrow())
          .isGreaterThanOrEqualTo(w.startTimeMs() + 100);
      events.kill();

      // a query refused by the job (sent around the client's own check), with its position
      String raw = "live-raw-replies";
      TestKafka.shared().createTopic(raw, 1);
      producer.send(
          new ProducerRecord<>(
              j.queriesTopic(),
              "bad".getBytes(StandardCharsets.UTF_8),
              ControlMessage.query(
                      "bad", "SELECT FOO(x) FROM STREAM()", System.currentTimeMillis(), raw, "raw")
                  .toJson()));
      producer.flush();
      Reply rejected = readAll(raw, 1).get(0).reply();
      assertThat(rejected.kind()).isEqualTo(Reply.Kind.REJECTED);
      assertThat(rejected.error()).contains("line 1, column 8").contains("FOO");

      // kill: the query ends without error and sends nothing more
      a.kill("a-count");
      assertThat(count.awaitDone(30, TimeUnit.SECONDS)).isTrue();
      assertThat(count.error()).isNull();
      assertThat(count.progress().seen()).isPositive();
      assertThat(count.progress().malformed()).as("malformed records skipped").isPositive();

      // each instance's topic has only its own queries' replies, with its name in a header
      streaming.set(false);
      feeder.join();
      for (Sent s : readAll(FlinkQueryClient.resultTopicOf("live-a"), 1)) {
        assertThat(s.key()).isIn("live-a:a-count", "live-a:a-needle", "live-a:a-events");
        assertThat(s.instance()).isEqualTo("live-a");
      }
      Set<String> keysOfB = new HashSet<>();
      for (Sent s : readAll(FlinkQueryClient.resultTopicOf("live-b"), 1)) {
        keysOfB.add(s.key());
        assertThat(s.instance()).isEqualTo("live-b");
      }
      assertThat(keysOfB).containsExactly("live-b:b-groups");
    } finally {
      streaming.set(false);
      feeder.join();
      producer.close();
      job.cancel().get(30, TimeUnit.SECONDS);
    }
  }

  /** About 2,000 records a second over both partitions; every 50th is not JSON. */
  private static void feed(
      KafkaProducer<byte[], byte[]> producer, String topic, AtomicBoolean streaming) {
    long i = 0;
    try {
      while (streaming.get()) {
        for (int n = 0; n < 20; n++, i++) {
          String json =
              i % 50 == 49
                  ? "{broken"
                  : "{\"id\": \"r" + i + "\", \"k\": \"k" + i % 5 + "\", \"v\": " + i + "}";
          producer.send(new ProducerRecord<>(topic, json.getBytes(StandardCharsets.UTF_8)));
        }
        producer.flush();
        TimeUnit.MILLISECONDS.sleep(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private record Sent(String key, String instance, Reply reply) {}

  /** Every record of a topic so far (waiting for at least {@code atLeast}). */
  private static List<Sent> readAll(String topic, int atLeast) {
    List<Sent> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.shared().bootstrap(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class))) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while ((c.position(tp) < end || out.size() < atLeast) && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          Header h = r.headers().lastHeader(FlinkQueryClient.INSTANCE_HEADER);
          out.add(
              new Sent(
                  new String(r.key(), StandardCharsets.UTF_8),
                  h == null ? null : new String(h.value(), StandardCharsets.UTF_8),
                  Reply.decode(r.value())));
        }
        end = Math.max(end, c.endOffsets(List.of(tp)).get(tp));
      }
    }
    return out;
  }
}

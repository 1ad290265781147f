package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Copies of one query submitted at once share their work in the job (one evaluation, one partial
 * per combiner subtask, one reply message for those that end together), and each still gets exactly
 * its own result: its LIMIT, its meta, and only the records from its own start (a copy submitted
 * later sees none of the records before it).
 */
class SharedQueriesITCase {
  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  private static final String COPY =
      "SELECT * FROM STREAM(60000, TIME) WHERE id = 'needle' LIMIT 3";

  @Test
  void copiesOfOneQueryEachGetTheirOwnResultFromTheirOwnStart() throws Exception {
    KafkaJobs.Job j = KafkaJobs.prepare("shared", 2, Map.of("records.start", "LATEST"));
    JobClient job = KafkaJobs.start(j, 2);
    KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer();
    try (FlinkQueryClient client =
        FlinkQueryClient.connect(
            FlinkQueryClient.Settings.of(TestKafka.shared().bootstrap(), "shared-a")
                .withQueryTopic(j.queriesTopic()))) {
      List<RemoteQuery> copies = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        copies.add(client.submit("copy-" + i, COPY));
      }
      RemoteQuery first =
          client.submit("first", "SELECT * FROM STREAM(60000, TIME) WHERE id = 'needle' LIMIT 1");
      for (RemoteQuery q : copies) {
        assertThat(q.awaitRunning(60, TimeUnit.SECONDS)).as(q.id()).isTrue();
      }
      assertThat(first.awaitRunning(60, TimeUnit.SECONDS)).isTrue();

      send(producer, j.recordsTopic(), 1);
      Result one = first.poll(60, TimeUnit.SECONDS);
      assertThat(one).as("the first needle read").isNotNull();
      assertThat(one.records()).extracting(r -> r.get("n")).containsExactly(1L);

      // a copy submitted after the first needle was read: it must not see it
      RemoteQuery late = client.submit("late", COPY);
      assertThat(late.awaitRunning(60, TimeUnit.SECONDS)).isTrue();
      for (int n = 2; n <= 4; n++) {
        send(producer, j.recordsTopic(), n);
      }

      for (RemoteQuery q : copies) {
        Result r = q.poll(60, TimeUnit.SECONDS);
        assertThat(r).as(q.id()).isNotNull();
        assertThat(r.meta().queryId()).isEqualTo(q.id());
        assertThat(r.meta().isFinal()).isTrue();
        assertThat(r.records())
            .as(q.id())
            .extracting(x -> x.get("n"))
            .containsExactlyInAnyOrder(1L, 2L, 3L);
        assertThat(q.awaitDone(30, TimeUnit.SECONDS)).isTrue();
        assertThat(q.error()).isNull();
      }
      Result l = late.poll(60, TimeUnit.SECONDS);
      assertThat(l).isNotNull();
      assertThat(l.meta().queryId()).isEqualTo("late");
      assertThat(l.records())
          .as("only the needles from its start")
          .extracting(x -> x.get("n"))
          .containsExactlyInAnyOrder(2L, 3L, 4L);
      assertThat(late.awaitDone(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      producer.close();
      job.cancel().get(30, TimeUnit.SECONDS);
    }
  }

  /** A needle, to one partition so that the needles are read in order. */
  private static void send(KafkaProducer<byte[], byte[]> producer, String topic, int n)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                topic,
                0,
                null,
                ("{\"id\":\"needle\",\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8)))
        .get(30, TimeUnit.SECONDS);
  }
}

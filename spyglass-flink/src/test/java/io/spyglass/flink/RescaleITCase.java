package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint taken with 2 subtasks restores with 3, then with 1: the readers' splits of the query
 * topic are one per reader, so after a change of parallelism each reader starts at the lowest place
 * of the query topic every filter has passed, and each filter skips what it had taken. A query that
 * was running goes on with what it had found (its LIMIT spans the three jobs); a query sent after
 * each restore runs on every subtask, a subtask with no records partition included (its clock
 * ticks: the windowed query's windows close).
 */
@OnMiniCluster(slots = 3)
class RescaleITCase {
  @TempDir Path savepoints;

  @Test
  void aSavepointRestoresWithMoreAndFewerSubtasks() throws Exception {
    KafkaJobs.Job j =
        KafkaJobs.prepare(
            "rescale", 2, Map.of("records.start", "EARLIEST", "checkpoint-ms", "500"));
    try (KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer();
        FlinkQueryClient client =
            FlinkQueryClient.connect(
                FlinkQueryClient.Settings.of(TestKafka.shared().bootstrap(), "rescale")
                    .withQueryTopic(j.queriesTopic()))) {
      JobClient job = KafkaJobs.start(j, 2);
      RemoteQuery needles =
          client.submit("needles", "SELECT id FROM STREAM(600000, TIME) WHERE k = 'x' LIMIT 3");
      assertThat(needles.awaitRunning(60, TimeUnit.SECONDS)).isTrue();
      send(producer, j.recordsTopic(), 0, "x", "x1");

      job = restore(job, j, 3);
      assertWindowsCloseWithANewQuery(client, producer, j, "after-3");
      send(producer, j.recordsTopic(), 1, "x", "x2");

      job = restore(job, j, 1);
      assertWindowsCloseWithANewQuery(client, producer, j, "after-1");
      send(producer, j.recordsTopic(), 1, "x", "x3");
      Result r = needles.poll(60, TimeUnit.SECONDS);
      assertThat(r).as("the needles query's result, at its LIMIT").isNotNull();
      assertThat(r.records())
          .extracting(m -> m.get("id"))
          .containsExactlyInAnyOrder("x1", "x2", "x3");
      assertThat(needles.awaitDone(30, TimeUnit.SECONDS)).isTrue();
      job.cancel().get(30, TimeUnit.SECONDS);
    }
  }

  /** Stops {@code job} with a savepoint and starts the job again from it with {@code p}. */
  private JobClient restore(JobClient job, KafkaJobs.Job j, int p) throws Exception {
    String savepoint =
        job.stopWithSavepoint(false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
            .get(120, TimeUnit.SECONDS);
    j.conf().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    return KafkaJobs.start(j, p);
  }

  /** A windowed count sent now runs on every subtask, and its first windows close. */
  private static void assertWindowsCloseWithANewQuery(
      FlinkQueryClient client, KafkaProducer<byte[], byte[]> producer, KafkaJobs.Job j, String id)
      throws Exception {
    RemoteQuery q =
        client.submit(
            id, "SELECT COUNT(*) AS n FROM STREAM(60000, TIME) WINDOWING TUMBLING(300, TIME)");
    assertThat(q.awaitRunning(60, TimeUnit.SECONDS)).as(id + " runs").isTrue();
    for (int i = 0; i < 2; i++) {
      send(producer, j.recordsTopic(), i % 2, "z", id + "-" + i);
    }
    Result w = q.poll(60, TimeUnit.SECONDS);
    assertThat(w).as(id + ": a window").isNotNull();
    assertThat(w.meta().window()).isPresent();
    client.kill(id);
    assertThat(q.awaitDone(60, TimeUnit.SECONDS)).isTrue();
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, int partition, String k, String id) {
    String json = "{\"k\": \"" + k + "\", \"id\": \"" + id + "\"}";
    producer.send(
        new ProducerRecord<>(topic, partition, null, json.getBytes(StandardCharsets.UTF_8)));
    producer.flush();
  }
}

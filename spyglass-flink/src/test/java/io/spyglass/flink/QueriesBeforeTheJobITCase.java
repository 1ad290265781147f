package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * A new job without a checkpoint or committed offsets, started with its defaults: a query sent
 * before the job reads its query topic (a service submits while the job starts) is run, not lost at
 * the end of the topic.
 */
@OnMiniCluster(slots = 1)
class QueriesBeforeTheJobITCase {
  @Test
  void aQuerySentBeforeTheJobStartsRuns() throws Exception {
    KafkaJobs.Job j =
        KafkaJobs.prepare(
            "before", 1, Map.of("queries.start", "COMMITTED", "records.start", "EARLIEST"));
    try (FlinkQueryClient client =
            FlinkQueryClient.connect(
                FlinkQueryClient.Settings.of(TestKafka.shared().bootstrap(), "before")
                    .withQueryTopic(j.queriesTopic()));
        KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer()) {
      RemoteQuery q =
          client.submit("early", "SELECT * FROM STREAM(60000, TIME) WHERE id = 'x' LIMIT 1");
      JobClient job = KafkaJobs.start(j, 1);
      try {
        assertThat(q.awaitRunning(60, TimeUnit.SECONDS)).as("the early query runs").isTrue();
        producer.send(
            new ProducerRecord<>(
                j.recordsTopic(), "{\"id\": \"x\", \"v\": 1}".getBytes(StandardCharsets.UTF_8)));
        producer.flush();
        Result r = q.poll(60, TimeUnit.SECONDS);
        assertThat(r).isNotNull();
        assertThat(r.records()).hasSize(1);
        assertThat(r.records().get(0)).containsEntry("id", "x");
      } finally {
        job.cancel().get(30, TimeUnit.SECONDS);
      }
    }
  }
}

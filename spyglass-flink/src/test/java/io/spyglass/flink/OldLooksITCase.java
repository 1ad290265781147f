package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * A job started without a checkpoint reads its query topic from the start, on a real broker: it
 * starts again the query there, but passes over the looks ({@code inspect}) sent before it started
 * (their readers had their answers from a former job, or are gone), and answers those sent after.
 */
@OnMiniCluster(slots = 1)
class OldLooksITCase {
  static final String QUERY = "SELECT COUNT(*) AS n FROM STREAM(FOREVER)";

  @Test
  void aFreshJobPassesOverTheLooksSentBeforeItAndAnswersTheOthers() throws Exception {
    KafkaJobs.Job j = KafkaJobs.prepare("old-looks", 1, Map.of("queries.start", "EARLIEST"));
    String replies = j.queriesTopic() + "-replies";
    TestKafka.shared().createTopic(replies, 1);
    try (KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer()) {
      send(producer, j, ControlMessage.query("q", QUERY, ControlMessage.JOB_TIME, replies, null));
      // a look of a former job's time, answered then
      send(producer, j, ControlMessage.inspect("q", 1, replies, false));
      JobClient job = KafkaJobs.start(j, 1);
      try {
        List<Reply> got = new ArrayList<>();
        long request = 1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (newest(got) < 2 && System.nanoTime() < deadline) {
          // looks sent while the job starts may come before its start: look again until answered
          send(producer, j, ControlMessage.inspect("q", ++request, replies, false));
          got = read(replies);
        }
        assertThat(newest(got))
            .as("a look sent after the job started is answered: " + got)
            .isGreaterThanOrEqualTo(2);
        int first = -1;
        for (int i = 0; i < got.size(); i++) {
          if (got.get(i).kind() == Reply.Kind.INSPECTED) {
            first = first < 0 ? i : first;
          }
        }
        assertThat(got.subList(0, first))
            .as("the query was started again and measured before the first answer: " + got)
            .anyMatch(r -> r.kind() == Reply.Kind.SAVED && r.queryId().equals("q"));
        assertThat(got)
            .as("the look sent before the job started is not answered")
            .noneMatch(r -> r.kind() == Reply.Kind.INSPECTED && r.sync() == 1);
      } finally {
        job.cancel().get(30, TimeUnit.SECONDS);
      }
    }
  }

  private static void send(KafkaProducer<byte[], byte[]> p, KafkaJobs.Job j, ControlMessage m)
      throws Exception {
    p.send(
            new ProducerRecord<>(
                j.queriesTopic(), 0, "q".getBytes(StandardCharsets.UTF_8), m.toJson()))
        .get(30, TimeUnit.SECONDS);
  }

  /** The highest number of a look answered; 0 while none is. */
  private static long newest(List<Reply> got) {
    return got.stream()
        .filter(r -> r.kind() == Reply.Kind.INSPECTED)
        .mapToLong(Reply::sync)
        .max()
        .orElse(0);
  }

  private static List<Reply> read(String topic) {
    List<Reply> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TestKafka.shared().read(topic, Integer.MAX_VALUE, Duration.ofSeconds(2))) {
      out.addAll(Reply.decodeAll(r.value()));
    }
    return out;
  }
}

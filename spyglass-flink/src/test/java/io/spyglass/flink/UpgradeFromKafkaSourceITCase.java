package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.QueryTestDriver;
import io.spyglass.testkit.kafka.TestKafka;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint of the job before its Kafka input (records and queries read by two of Flink's Kafka
 * sources) restores into this version with {@code --allowNonRestoredState} (the former query
 * source's state is left): the records' positions come from the former records source's splits, the
 * query topic starts at the job's committed offsets, the filters and combiners have their queries,
 * and every window after the savepoint reaches the reader with the records the embedded engine
 * gives.
 */
@OnMiniCluster
class UpgradeFromKafkaSourceITCase {
  @TempDir Path dir;

  @Test
  void aSavepointOfTheFormerSourcesRestores() throws Exception {
    Path savepoint = Files.createDirectories(dir.resolve("savepoint"));
    try (InputStream in = getClass().getResourceAsStream("/savepoints/kafka-source-v0/_metadata")) {
      Files.copy(in, savepoint.resolve("_metadata"));
    }
    TestKafka.shared().createTopic(UpgradeScript.RECORDS, 2);
    TestKafka.shared().createTopic(UpgradeScript.QUERIES, 1);
    try (KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer();
        FlinkQueryClient client = UpgradeScript.client(TestKafka.shared().bootstrap())) {
      // the topics as the former job left them: its records, its two query messages (read and
      // committed by its query source at the savepoint)
      UpgradeScript.start(producer);
      Map<String, RemoteQuery> queries = UpgradeScript.submit(client);
      UpgradeScript.before(producer);
      try (Admin admin = TestKafka.shared().admin()) {
        admin
            .alterConsumerGroupOffsets(
                UpgradeScript.GROUP + "-queries",
                Map.of(new TopicPartition(UpgradeScript.QUERIES, 0), new OffsetAndMetadata(2)))
            .all()
            .get(60, TimeUnit.SECONDS);
      }

      Configuration conf =
          SpyglassJob.parseArgs(UpgradeScript.conf(TestKafka.shared().bootstrap()));
      Configuration envConf = new Configuration(conf);
      envConf.set(PipelineOptions.GENERIC_TYPES, false);
      envConf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toUri().toString());
      envConf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(envConf);
      env.setParallelism(2);
      SpyglassJob.build(env, conf);
      JobClient job = env.executeAsync("upgrade");
      try {
        UpgradeScript.after(producer);
        Map<String, List<String>> expected = expectedAfterWindow1();
        for (Map.Entry<String, RemoteQuery> e : queries.entrySet()) {
          List<String> got = new ArrayList<>();
          Result r;
          while ((r = e.getValue().poll(60, TimeUnit.SECONDS)) != null) {
            got.add(describe(r));
          }
          assertThat(e.getValue().isDone()).as(e.getKey() + " ended").isTrue();
          assertThat(e.getValue().error()).as(e.getKey()).isNull();
          assertThat(got).as(e.getKey()).isEqualTo(expected.get(e.getKey()));
        }
      } finally {
        job.cancel().get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** Each query's windows after the first, on the embedded driver. */
  private static Map<String, List<String>> expectedAfterWindow1() {
    QueryTestDriver d = new QueryTestDriver();
    UpgradeScript.BQL.forEach(d::submit);
    for (int w = 1; w <= 4; w++) {
      d.pipe(UpgradeScript.records(w).toArray(new String[0]));
      d.advance(1000);
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String id : UpgradeScript.BQL.keySet()) {
      List<String> windows = d.results(id).stream().map(r -> describe(r)).toList();
      out.put(id, windows.subList(1, windows.size()));
    }
    return out;
  }

  private static String describe(Result r) {
    return r.meta().window().map(w -> w.number()).orElse(0L)
        + (r.meta().isFinal() ? " final " : " ")
        + r.records();
  }
}

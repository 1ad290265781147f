package io.spyglass.flink;

import io.spyglass.testkit.kafka.TestKafka;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** Starts the Kafka job on the test's mini cluster, each with topics of its own. */
final class KafkaJobs {
  private static final AtomicInteger NEXT = new AtomicInteger();

  private KafkaJobs() {}

  /** Fresh topic names and the settings that point a job at them. */
  record Job(String recordsTopic, String queriesTopic, Configuration conf) {}

  /**
   * A job over a new records topic of {@code partitions} partitions and a new query topic, reading
   * both from their beginning, with {@code settings} on top ({@code --key value} pairs).
   */
  static Job prepare(String name, int partitions, Map<String, String> settings) {
    String prefix = name + "-" + NEXT.incrementAndGet();
    String records = prefix + "-records";
    String queries = prefix + "-queries";
    TestKafka.shared().createTopic(records, partitions);
    TestKafka.shared().createTopic(queries, 1);
    Configuration conf =
        SpyglassJob.parseArgs(
            "--kafka",
            TestKafka.shared().bootstrap(),
            "--records.topic",
            records,
            "--queries.topic",
            queries,
            "--group",
            prefix,
            "--records.start",
            "EARLIEST",
            "--queries.start",
            "EARLIEST",
            "--checkpoint-ms",
            "0");
    settings.forEach((k, v) -> conf.setString(k.startsWith("spyglass.") ? k : "spyglass." + k, v));
    return new Job(records, queries, conf);
  }

  static JobClient start(Job job, int parallelism) throws Exception {
    Configuration conf = new Configuration(job.conf());
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    SpyglassJob.build(env, job.conf());
    return env.executeAsync("spyglass-" + job.recordsTopic());
  }
}

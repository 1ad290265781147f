package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Test;

/**
 * The Kafka job's tasks: the filter runs chained to its source (records and queries in one task)
 * and the sink to the combiner, so a record meets one network hop on its way to a result (filter to
 * combiner, keyed by query). Stages before the filter (the bench's hops) take the queries apart.
 */
class ChainingTest {
  private static final KafkaInput.Settings INPUT =
      new KafkaInput.Settings(
          "127.0.0.1:1",
          "events",
          "spyglass-queries",
          "spyglass",
          JobOptions.Start.LATEST,
          JobOptions.Start.LATEST,
          0,
          false,
          false,
          10_000,
          Map.of());

  @Test
  void theFilterIsChainedToTheSourceAndTheSinkToTheCombiner() {
    List<String> tasks = tasks(UnaryOperator.identity(), false);
    assertThat(tasks)
        .containsExactlyInAnyOrder(
            "Source: spyglass-records -> spyglass-filter", "spyglass-combiner -> results: Writer");
  }

  @Test
  void stagesBeforeTheFilterTakeTheQueriesApart() {
    List<String> tasks = tasks(s -> s.rebalance().map(new PassOn()).name("stage"), false);
    assertThat(tasks)
        .containsExactlyInAnyOrder(
            "Source: spyglass-records -> spyglass-queries-apart",
            "stage",
            "spyglass-filter",
            "spyglass-combiner -> results: Writer");
  }

  @Test
  void recordsSpreadOverTheFiltersTakeTheQueriesApart() {
    assertThat(tasks(UnaryOperator.identity(), true))
        .containsExactlyInAnyOrder(
            "Source: spyglass-records -> spyglass-queries-apart",
            "spyglass-filter",
            "spyglass-combiner -> results: Writer");
  }

  private static List<String> tasks(
      UnaryOperator<DataStream<RecordBatch>> beforeFilter, boolean rebalance) {
    Configuration conf = new Configuration();
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    DataStream<RecordBatch> source =
        env.fromSource(new KafkaInput(INPUT), WatermarkStrategy.noWatermarks(), "spyglass-records")
            .uid(SpyglassJob.RECORDS_UID);
    SpyglassJob.kafkaPipeline(source, beforeFilter, OperatorSettings.defaults(), rebalance)
        .sinkTo(new DiscardingSink<>())
        .name("results");
    JobGraph graph = env.getStreamGraph().getJobGraph();
    List<String> names = new ArrayList<>();
    for (JobVertex v : graph.getVertices()) {
      names.add(v.getName());
    }
    return names;
  }

  /** A stage that hands each batch on. */
  static final class PassOn implements MapFunction<RecordBatch, RecordBatch> {
    private static final long serialVersionUID = 1L;

    @Override
    public RecordBatch map(RecordBatch b) {
      return b;
    }
  }
}

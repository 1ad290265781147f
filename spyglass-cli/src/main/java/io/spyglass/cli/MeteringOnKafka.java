package io.spyglass.cli;

import io.spyglass.core.SpyglassClock;
import io.spyglass.engine.EngineConfig;
import io.spyglass.flink.client.IngestTopicWriter;
import io.spyglass.service.MeteringStart;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.http.Listening;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.runtime.FlinkRuntime;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code serve --runtime flink --kafka HOST:PORT --source http}: the accepted documents written to
 * the job's records topic before the 202, once per id within the id horizon ({@link TopicIngest}
 * over {@link IngestTopicWriter}), the standing queries on the job on the cluster ({@link
 * TopicJob}), the other queries on it too, as {@code serve --runtime flink --kafka} runs them
 * ({@link FlinkRuntime}); the data folder holds the standing queries' database and the id journal.
 * Every part takes its time from the command's clock.
 */
final class MeteringOnKafka {
  /** How long a request waits for Kafka before it is answered 503. */
  static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);

  private MeteringOnKafka() {}

  static SpyglassService start(
      ServiceConfig config,
      Listening listening,
      EngineConfig engine,
      Metering.Settings metering,
      ServeOptions o,
      String instance,
      Map<String, Object> kafkaProperties,
      SpyglassClock clock,
      PrintWriter err)
      throws IOException, InterruptedException {
    err.println("spyglass: connecting to the Spyglass job's Kafka at " + o.kafka + " ...");
    err.flush();
    // checks that Kafka answers and that the query topic is there, first
    FlinkRuntime queries =
        FlinkRuntime.connect(
            o.kafka, instance, o.queryTopic, o.statusTopic, kafkaProperties, clock);
    // the writer fences the former producer of this instance: it is opened with the job, once the
    // data folder is locked, so that a second service on the same folder stops at the lock
    IngestTopicWriter.Settings writer =
        new IngestTopicWriter.Settings(
            o.kafka, o.recordsTopic, instance, WRITE_TIMEOUT, kafkaProperties);
    AtomicReference<TopicIngest> ingest = new AtomicReference<>();
    String bootstrap = o.kafka;
    String topic = o.recordsTopic;
    Metering.Forward forward =
        docs -> {
          try {
            TopicIngest in = ingest.get();
            if (in == null) {
              throw new IOException("the service is starting");
            }
            return in.write(docs);
          } catch (IOException e) {
            throw new Metering.NotWritten(
                "The documents could not be written to the Flink job's records topic "
                    + topic
                    + " on Kafka at "
                    + bootstrap
                    + ": "
                    + e.getMessage(),
                "Send them again later: none of them was acknowledged. If it lasts, check that"
                    + " Kafka runs and takes this instance's transactions (docs/flink.md)",
                e);
          }
        };
    return SpyglassService.startMetering(
        config,
        MeteringStart.of(metering)
            .withListening(listening)
            .withEngine(engine)
            .withRuntime(queries)
            .withForward(forward)
            .withClock(clock)
            .withJob(
                TopicJob.starter(
                    ingest,
                    metering.ingest().horizonMs(),
                    clock,
                    o.rebuildKafkaIds
                        ? TopicIngest.IfJournalLost.REBUILD
                        : o.acceptMissingIds
                            ? TopicIngest.IfJournalLost.ACCEPT
                            : TopicIngest.IfJournalLost.REFUSE,
                    writer,
                    o.kafka,
                    o.queryTopic,
                    instance,
                    kafkaProperties)));
  }
}

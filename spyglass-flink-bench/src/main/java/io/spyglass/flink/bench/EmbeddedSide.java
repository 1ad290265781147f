package io.spyglass.flink.bench;

import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.QueryHandle;
import io.spyglass.engine.source.KafkaSource;
import java.io.IOException;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The embedded engine with {@code workers} filter workers over the records topic (the Kafka source
 * of {@code --source kafka://...}, reading committed records from the start), queries submitted and
 * results read through query handles, as {@code spyglass query} does.
 */
final class EmbeddedSide implements Side {
  private final Engine engine;

  private EmbeddedSide(Engine engine) {
    this.engine = engine;
  }

  static EmbeddedSide start(String bootstrap, String topic, int workers, int queries)
      throws IOException {
    KafkaSource source =
        new KafkaSource(
            bootstrap,
            topic,
            KafkaSource.Options.DEFAULTS
                .withFrom(KafkaSource.StartAt.earliest())
                .withConsumerProperties(
                    Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")));
    return new EmbeddedSide(
        Engine.startPaused(
            source,
            EngineConfig.defaults()
                .withWorkers(workers)
                .withMaxQueries(queries + 16)
                .withResultQueue(4_096)));
  }

  @Override
  public String label() {
    return "embedded";
  }

  @Override
  public Handle submit(Bql query) {
    QueryHandle h = engine.submit(query.id(), query.text());
    return new Handle(h::awaitRunning, h::poll, h::isDone, h::error);
  }

  @Override
  public void go() {
    engine.resume();
  }

  @Override
  public void finishAll() {
    engine.finishAll();
  }

  @Override
  public void close() {
    engine.close();
  }
}

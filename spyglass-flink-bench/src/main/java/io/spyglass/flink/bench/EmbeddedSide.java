package io.spyglass.flink.bench;

import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.QueryHandle;
import io.spyglass.sources.FileSource;
import io.spyglass.sources.KafkaSource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The embedded engine with {@code workers} filter workers over the records topic (the Kafka source
 * of {@code --source kafka://...}, reading committed records from the start), or over a file of
 * JSON lines (the file source of {@code --source file:...}), queries submitted and results read
 * through query handles, as {@code spyglass query} does.
 */
final class EmbeddedSide implements Side {
  /** What the tables call the engine reading a file. */
  static final String FROM_FILE = "embedded, from a file";

  private final Engine engine;
  private final String label;

  private EmbeddedSide(Engine engine, String label) {
    this.engine = engine;
    this.label = label;
  }

  /**
   * The engine over a file, started paused; it goes on taking queries at the file's end (the run
   * ends them), rather than stopping as {@code spyglass query} does.
   */
  static EmbeddedSide fromFile(Path file, int workers, int queries) throws IOException {
    return new EmbeddedSide(
        Engine.startPaused(
            new FileSource(file, FileSource.Options.DEFAULTS),
            config(workers, queries).withStopWhenSourceEnds(false)),
        FROM_FILE);
  }

  private static EngineConfig config(int workers, int queries) {
    return EngineConfig.defaults()
        .withWorkers(workers)
        .withMaxQueries(queries + 16)
        .withResultQueue(4_096);
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
    return new EmbeddedSide(Engine.startPaused(source, config(workers, queries)), "embedded");
  }

  @Override
  public String label() {
    return label;
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

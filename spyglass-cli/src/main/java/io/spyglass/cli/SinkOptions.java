package io.spyglass.cli;

import io.spyglass.sinks.DeliverySettings;
import io.spyglass.sinks.SinkPolicy;
import io.spyglass.sinks.SinkSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options of {@code spyglass serve} about sinks (docs/sinks.md): where users' queries may
 * deliver their results besides their streams, and the bounds of delivery. A picocli mixin of
 * {@link ServeCommand}; each is configurable as the other options are ({@link ServeConfiguration}).
 */
final class SinkOptions {
  @Option(
      names = "--sink-allow",
      paramLabel = "HOST[:PORT]",
      description =
          "a host (any port, or only PORT) that queries' webhook sinks may POST to; give it again"
              + " for more. Compared as written in the URL, before any name is resolved; without"
              + " it no webhook is allowed (default: none)")
  List<String> allow = new ArrayList<>();

  @Option(
      names = "--sink-dir",
      paramLabel = "DIR",
      description =
          "the folder queries' file sinks are written under (their paths relative to it); without"
              + " it no file sink is allowed (default: none)")
  Path dir;

  @Option(
      names = "--sink-kafka",
      paramLabel = "HOST:PORT",
      description =
          "a Kafka cluster queries' Kafka sinks may produce to, the first the default; give it"
              + " again for more (with --runtime flink, --kafka is allowed too) (default: none)")
  List<String> kafka = new ArrayList<>();

  @Option(
      names = "--sink-buffer",
      paramLabel = "N",
      description =
          "results one sink of a query buffers while it cannot deliver; more drop the oldest,"
              + " counted (default: ${DEFAULT-VALUE})")
  int buffer = DeliverySettings.DEFAULTS.maxDocuments();

  @Option(
      names = "--sink-retry-for",
      paramLabel = "TIME",
      description =
          "how long a result is tried again (with backoff) before a sink gives it up, counted as"
              + " dropped (default: ${DEFAULT-VALUE})")
  String retryFor = "5m";

  /**
   * The settings of these options; {@code serviceKafka} (the Kafka of {@code --runtime flink}, or
   * null) is allowed as a cluster too, after those of {@code --sink-kafka}.
   *
   * @throws IllegalArgumentException when a value is not one the option takes, saying which
   */
  SinkSettings settings(String serviceKafka) {
    OptionValues.atLeast("--sink-buffer", buffer, 1);
    long retryMs = OptionValues.duration("--sink-retry-for", retryFor);
    List<String> clusters = new ArrayList<>(kafka);
    if (serviceKafka != null && !clusters.contains(serviceKafka)) {
      clusters.add(serviceKafka);
    }
    DeliverySettings d = DeliverySettings.DEFAULTS;
    return new SinkSettings(
        SinkPolicy.of(allow, dir, clusters),
        d.withBuffers(buffer, d.maxBytes(), d.maxBytesTotal())
            .withRetries(d.maxAttempts(), retryMs, d.initialBackoffMs(), d.maxBackoffMs()));
  }
}

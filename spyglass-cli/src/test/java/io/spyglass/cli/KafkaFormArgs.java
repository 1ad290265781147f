package io.spyglass.cli;

import java.nio.file.Path;
import java.util.List;

/** {@code serve}'s arguments for metering on Flink through Kafka, as the tests start it. */
final class KafkaFormArgs {
  private KafkaFormArgs() {}

  /**
   * The Kafka form ({@code --runtime flink --kafka HOST:PORT --source http}) on the topics {@code
   * name-records}, {@code name-queries} and {@code name-status}, as instance {@code name}, on a
   * free port, over the data folder {@code data}; without the command's name.
   */
  static List<String> of(Path data, String bootstrap, String name) {
    return List.of(
        "--runtime",
        "flink",
        "--kafka",
        bootstrap,
        "--records-topic",
        name + "-records",
        "--query-topic",
        name + "-queries",
        "--status-topic",
        name + "-status",
        "--instance",
        name,
        "--source",
        "http",
        "--port",
        "0",
        "--data",
        data.toString());
  }
}

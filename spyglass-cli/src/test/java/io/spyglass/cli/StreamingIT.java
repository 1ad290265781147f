package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command on sources without an end: a followed file, and the generator stopped by Ctrl-C. */
class StreamingIT {
  /**
   * Exit code after Ctrl-C: the JVM's signal handling ends with 128 + SIGINT once the final results
   * are printed.
   */
  private static final int EXIT_ON_SIGINT = 130;

  @TempDir Path dir;

  @Test
  void followedFileGivesTheLinesAppendedWhileItRuns() throws Exception {
    Path file = dir.resolve("growing.json");
    Files.writeString(file, lines("early", 0, 10));
    Path queries = dir.resolve("queries.bql");
    Files.writeString(
        queries,
        "SELECT COUNT(*) AS n FROM STREAM(60s, TIME) WINDOWING TUMBLING(500, TIME)\n"
            + "SELECT id FROM STREAM(60s, TIME) LIMIT 13\n");
    try (Spyglass.Running cmd =
        Spyglass.start(
            "query",
            "--source",
            "file:" + file + "?follow=true",
            "--format",
            "json",
            "--queries",
            queries.toString())) {
      // the window counts show that the file was read to its end while the command goes on
      cmd.awaitResult("the 10 first lines counted", r -> windowTotal(cmd, "q1") == 10);
      assertThat(cmd.results()).noneMatch(r -> r.at("/meta/query/id").asText().equals("q2"));

      Files.writeString(file, lines("late", 10, 3), StandardOpenOption.APPEND);

      JsonNode raw =
          cmd.awaitResult("the raw query ends", r -> r.at("/meta/query/id").asText().equals("q2"));
      assertThat(raw.at("/meta/final").asBoolean()).isTrue();
      List<String> ids = new ArrayList<>();
      raw.get("records").forEach(row -> ids.add(row.get("id").asText()));
      assertThat(ids).hasSize(13).contains("late-10", "late-11", "late-12");
      cmd.awaitResult("13 lines counted", r -> windowTotal(cmd, "q1") == 13);

      cmd.interrupt();
      assertThat(cmd.awaitExit()).as(cmd.toString()).isEqualTo(EXIT_ON_SIGINT);
      List<JsonNode> windows = results(cmd, "q1");
      assertThat(windows.get(windows.size() - 1).at("/meta/final").asBoolean()).isTrue();
      assertThat(windowTotal(cmd, "q1")).isEqualTo(13);
    }
  }

  @Test
  void ctrlCPrintsTheFinalResultThenExits() throws Exception {
    try (Spyglass.Running cmd =
        Spyglass.start(
            "query",
            "--source",
            "gen?rate=2000",
            "--format",
            "json",
            "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(500, TIME)")) {
      JsonNode first =
          cmd.awaitResult("a first window with records", r -> r.at("/records/0/n").asLong() > 0);
      assertThat(first.at("/meta/final").asBoolean()).isFalse();
      assertThat(first.at("/meta/window/number").asLong()).isEqualTo(1);

      cmd.interrupt();
      assertThat(cmd.awaitExit()).as(cmd.toString()).isEqualTo(EXIT_ON_SIGINT);
      List<JsonNode> all = cmd.results();
      JsonNode last = all.get(all.size() - 1);
      assertThat(last.at("/meta/final").asBoolean()).as(cmd.toString()).isTrue();
      assertThat(last.at("/meta/query/finishTime").asLong()).isPositive();
      assertThat(all.subList(0, all.size() - 1)).noneMatch(r -> r.at("/meta/final").asBoolean());
      for (int i = 0; i < all.size(); i++) {
        assertThat(all.get(i).at("/meta/window/number").asLong()).isEqualTo(i + 1);
      }
    }
  }

  @Test
  void aClosedPipeEndsTheCommandAtOnce() throws Exception {
    for (String format : List.of("json", "table")) {
      // set -o pipefail: the pipeline's status is the command's, once head has its line
      List<String> cmd =
          new ArrayList<>(List.of("bash", "-c", "set -o pipefail; \"$@\" | head -1", "bash"));
      cmd.addAll(
          Spyglass.command(
              "query",
              "--source",
              "gen",
              "--format",
              format,
              "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100, TIME)"));
      Spyglass.Run run = Spyglass.run(new ProcessBuilder(cmd), null);
      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.stdout().lines()).as(run.toString()).hasSize(1);
      assertThat(run.stderr()).as(run.toString()).doesNotContain("Exception", "spyglass:");
    }
  }

  private static String lines(String prefix, int from, int count) {
    StringBuilder sb = new StringBuilder();
    for (int i = from; i < from + count; i++) {
      sb.append("{\"id\": \"")
          .append(prefix)
          .append('-')
          .append(i)
          .append("\", \"i\": ")
          .append(i)
          .append("}\n");
    }
    return sb.toString();
  }

  private static List<JsonNode> results(Spyglass.Running cmd, String id) {
    return cmd.results().stream().filter(r -> r.at("/meta/query/id").asText().equals(id)).toList();
  }

  /** Records counted by all the windows of a query so far. */
  private static long windowTotal(Spyglass.Running cmd, String id) {
    return results(cmd, id).stream().mapToLong(r -> r.at("/records/0/n").asLong()).sum();
  }
}

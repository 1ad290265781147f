package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same jar on Java 17 (DataSketches 6) and Java 25 (DataSketches 9, from the multi-release
 * jar): no warning on either, and the same results from every sketch. The JDK 25 is the one the
 * build compiled the Java 25 classes with ({@code jdk25.home}).
 */
class JavaVersionsIT {
  private static final List<String> QUERIES =
      List.of(
          "SELECT COUNT(DISTINCT ip_address) AS u FROM STREAM(MAX, TIME)",
          "SELECT device, COUNT(DISTINCT demographics.country) AS c, COUNT(*) AS n"
              + " FROM STREAM(MAX, TIME) GROUP BY device",
          "SELECT QUANTILE(duration, MANUAL, 0.1, 0.5, 0.9) FROM STREAM(MAX, TIME)",
          "SELECT FREQ(duration, MANUAL, 1000, 5000) FROM STREAM(MAX, TIME)",
          "SELECT TOP(3, browser_name) AS n FROM STREAM(MAX, TIME)");

  @TempDir Path dir;

  @Test
  void java17And25GiveTheSameResultsWithoutAWarning() throws Exception {
    Path java25 = Path.of(System.getProperty("jdk25.home"), "bin", "java");
    assertThat(java25).as("the JDK 25 of the build (-Djdk25.home)").exists();
    // fewer values than the sketches hold exactly: results do not depend on merge order
    Spyglass.Run gen = Spyglass.run("generate", "--count", "1500", "--seed", "11");
    Path events = dir.resolve("events.json");
    Files.writeString(events, gen.stdout());
    Path queries = dir.resolve("queries.bql");
    Files.write(queries, QUERIES);
    List<String> args =
        List.of(
            "query",
            "--source",
            "file:" + events,
            "--format",
            "json",
            "--queries",
            queries.toString());

    Spyglass.Run on17 = run(Spyglass.javaCommand(), args);
    Spyglass.Run on25 = run(Spyglass.javaCommand(java25), args);
    for (Spyglass.Run run : List.of(on17, on25)) {
      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.stderr()).as(run.toString()).isEmpty();
      assertThat(run.json()).as(run.toString()).hasSize(QUERIES.size());
    }
    for (int q = 1; q <= QUERIES.size(); q++) {
      JsonNode a = on17.results("q" + q).get(0);
      JsonNode b = on25.results("q" + q).get(0);
      assertThat(b.get("records")).as(QUERIES.get(q - 1)).isEqualTo(a.get("records"));
      assertThat(b.at("/meta/sketch/family")).isEqualTo(a.at("/meta/sketch/family"));
    }
    Spyglass.Run help = run(Spyglass.javaCommand(java25), List.of("--version"));
    assertThat(help.stderr()).isEmpty();
  }

  private static Spyglass.Run run(List<String> java, List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(java);
    cmd.addAll(args);
    return Spyglass.run(new ProcessBuilder(cmd), null);
  }
}

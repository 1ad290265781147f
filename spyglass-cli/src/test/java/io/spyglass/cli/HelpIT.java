package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Help texts, their examples run as pasted, and the generator's output. */
class HelpIT {
  @TempDir Path dir;

  @Test
  void everyCommandHasHelpWithExamples() throws Exception {
    for (String command : List.of("", "query", "validate", "explain", "generate")) {
      Spyglass.Run run =
          command.isEmpty() ? Spyglass.run("--help") : Spyglass.run(command, "--help");
      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.stdout())
          .as(command)
          .startsWith("Usage: spyglass" + (command.isEmpty() ? "" : " " + command))
          .containsPattern("Examples?:\n  \\./spyglass ");
    }
  }

  @Test
  void examplesOfQueryHelpWorkWhenPasted() throws Exception {
    Spyglass.Run help = Spyglass.run("query", "--help");
    List<String> examples = examples(help.stdout());
    assertThat(examples).isNotEmpty();
    int ran = 0;
    for (String example : examples) {
      if (example.contains("kafka://")) {
        continue; // needs a broker at a fixed address; KafkaIT runs the same query
      }
      String command = example;
      if (command.contains("query --source gen")) {
        // the generator has no end: stop after a second instead of the query's own duration
        command = command.replace("query --source gen", "query --duration 1s --source gen");
      }
      Spyglass.Run run = runInShell(command);
      assertThat(run.exitCode()).as(example + "\n" + run).isZero();
      assertThat(run.stdout()).as(example).isNotBlank();
      if (example.contains("--format json")) {
        List<JsonNode> results = run.json();
        assertThat(results.get(results.size() - 1).at("/meta/final").asBoolean()).isTrue();
        assertThat(results.get(results.size() - 1).get("records")).isNotEmpty();
      } else {
        assertThat(run.stdout()).startsWith("== result (final) | ");
      }
      ran++;
    }
    assertThat(ran).isPositive();
  }

  @Test
  void readmeExamplesThatLookForOneRecordFindItOnTheGenerator() throws Exception {
    List<String> queries =
        readme().stream()
            .filter(l -> l.startsWith("| ") && l.contains("`SELECT") && l.contains(" = '"))
            .map(l -> l.substring(l.indexOf("`SELECT") + 1, l.lastIndexOf('`')))
            .toList();
    assertThat(queries).hasSize(2);
    for (String q : queries) {
      Spyglass.Run run =
          Spyglass.run("query", "--source", "gen", "--format", "json", "--duration", "3s", q);
      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.json().stream().mapToInt(r -> r.get("records").size()).sum())
          .as(q)
          .isPositive();
    }
  }

  @Test
  void readmeQueriesFileExampleCreatesItsFile() throws Exception {
    List<String> lines = readme();
    StringBuilder script = new StringBuilder();
    boolean inExample = false;
    for (String line : lines) {
      if (line.contains("generate --count 10000 > /tmp/events.json")) {
        script.append(line).append('\n');
      } else if (line.startsWith("printf ") && line.contains("SELECT")
          || inExample && !line.isBlank()) {
        inExample = !line.contains("--queries");
        script.append(line).append('\n');
      }
    }
    assertThat(script.toString()).contains("--queries /tmp/my-queries.bql");
    Spyglass.Run run = runInShell(script.toString().replace("/tmp/", dir + "/"));
    assertThat(run.exitCode()).as(script + "\n" + run).isZero();
    assertThat(run.json()).hasSize(2).allMatch(r -> r.at("/meta/final").asBoolean());
  }

  private static List<String> readme() throws Exception {
    return Files.readAllLines(Path.of("..", "README.md"));
  }

  @Test
  void examplesOfValidateAndExplainWorkWhenPasted() throws Exception {
    for (String command : List.of("validate", "explain")) {
      List<String> examples = examples(Spyglass.run(command, "--help").stdout());
      assertThat(examples).hasSize(1);
      Spyglass.Run run = runInShell(examples.get(0));
      assertThat(run.exitCode()).as(examples.get(0) + "\n" + run).isZero();
      assertThat(run.stdout()).contains("STREAM(");
    }
  }

  @Test
  void generateCountPrintsThatManyRecordsOfAbout1800Bytes() throws Exception {
    Spyglass.Run run = Spyglass.run("generate", "--count", "5");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    List<String> lines = run.stdout().lines().toList();
    assertThat(lines).hasSize(5);
    for (String line : lines) {
      JsonNode record = Spyglass.parse(line);
      assertThat(record.isObject()).isTrue();
      assertThat(record.get("id").isTextual()).isTrue();
      assertThat(line.getBytes(StandardCharsets.UTF_8).length).isBetween(1500, 2100);
    }
    assertThat(lines.stream().map(l -> Spyglass.parse(l).get("id").asText()).distinct()).hasSize(5);
  }

  /** The example commands of a help text, continuation lines joined. */
  static List<String> examples(String help) {
    List<String> out = new ArrayList<>();
    StringBuilder current = null;
    for (String line : help.lines().toList()) {
      String t = line.strip();
      if (current != null) {
        current.append(' ').append(t);
      } else if (t.startsWith("./spyglass ")) {
        current = new StringBuilder(t);
      } else {
        continue;
      }
      if (current.charAt(current.length() - 1) == '\\') {
        current.setLength(current.length() - 1);
      } else {
        out.add(current.toString().replaceAll(" +", " "));
        current = null;
      }
    }
    return out;
  }

  /** Runs an example line in bash, with {@code ./spyglass} being the jar under test. */
  private Spyglass.Run runInShell(String example) throws Exception {
    String java =
        Spyglass.javaCommand().stream().map(a -> "'" + a + "'").collect(Collectors.joining(" "));
    String script =
        "set -o pipefail\nspyglass() { "
            + java
            + " \"$@\"; }\n"
            + example.replace("./spyglass ", "spyglass ")
            + "\n";
    return Spyglass.run(new ProcessBuilder("bash", "-c", script).directory(dir.toFile()), null);
  }
}

package io.spyglass.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every scenario in quick mode (its measured runs shorter than {@code --quick}'s): it runs, finds
 * what it must (every needle, exact metering totals), and writes its tables and charts. Timings are
 * printed, never checked. Then the publication's documents, rewritten from these quick results:
 * every generated block of docs/performance.md and docs/scaling.md must have data behind it and
 * every image they link must be there.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScenariosTest {
  /** The quick runs of the class, one folder per scenario, shared with the documents' check. */
  @TempDir static Path runs;

  private static final Set<String> RUN = ConcurrentHashMap.newKeySet();

  /**
   * Quick mode with shorter measured runs: what is checked (every needle, exact totals, a row in
   * every table) needs the runs, not their length; their numbers are not compared.
   */
  private static final Settings QUICK = Settings.defaults(true).withProbe(400, 150);

  @ParameterizedTest
  @Order(1)
  @ValueSource(
      strings = {
        "latency",
        "find",
        "raw-queries",
        "data-scaling",
        "query-scaling",
        "query-kinds",
        "pipeline",
        "metering",
        "service",
        "versus-bullet",
        "end-to-end"
      })
  void runsQuickAndFindsEverything(String name) throws Exception {
    Report r = runQuick(Scenarios.byName().get(name), QUICK, runs.resolve(name));
    RUN.add(name);
    assertThat(r.problems()).isEmpty();
    assertThat(r.files()).anyMatch(p -> p.toString().endsWith(".csv"));
    for (Path p : r.files()) {
      assertThat(Files.size(p)).isPositive();
    }
  }

  private static Report runQuick(Scenario sc, Settings s, Path out) throws Exception {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    Report r = BenchCommand.run(sc, s, out, new PrintStream(console, true, StandardCharsets.UTF_8));
    String text = console.toString(StandardCharsets.UTF_8);
    System.out.println(text);
    assertThat(text).contains("Machine: ").contains("| ");
    return r;
  }

  /**
   * What {@code spyglass-bench/publish.sh --quick} checks at its end, on this module's part of the
   * run: the committed results overlaid with this class's quick runs of every scenario (and of the
   * publication's other runs of them: metering over HTTP, versus-bullet's further runs), the two
   * documents rewritten from them into a temporary folder, and no block left saying "Not measured"
   * nor an image missing. The parts of other modules (JMH, memory, flink, bullet-kafka,
   * kafka-vs-file) come from the committed results.
   */
  @Test
  @Order(2)
  void everyGeneratedBlockOfThePublishedPagesHasData() throws Exception {
    Path page = runs.resolve("page");
    Path results = page.resolve("bench-results");
    Path docs = Path.of("..", "docs");
    copyTree(docs.resolve("bench-results"), results);
    for (String name : Scenarios.names()) {
      Scenario sc = Scenarios.byName().get(name);
      if (!RUN.contains(name) && isBuiltIn(sc)) {
        runQuick(sc, QUICK, runs.resolve(name));
        RUN.add(name);
      }
      if (RUN.contains(name)) {
        deleteTree(results.resolve(name));
        copyTree(runs.resolve(name), results.resolve(name));
      }
    }
    deleteTree(results.resolve("metering-http"));
    runQuick(new MeteringScenario(UsageIngestion.HTTP), QUICK, results.resolve("metering-http"));
    for (int run = 2; run <= 3; run++) {
      runQuick(
          Scenarios.byName().get("versus-bullet"),
          QUICK.only(List.of("needles", "group-by"), List.of("json")),
          results.resolve("versus-bullet/run-" + run));
    }
    for (String name : List.of("performance.md", "scaling.md")) {
      Path doc = page.resolve(name);
      Files.copy(docs.resolve(name), doc, StandardCopyOption.REPLACE_EXISTING);
      int blocks = new BenchReport(results, doc).regenerate();
      assertThat(blocks).as(name + "'s generated blocks").isPositive();
      assertThat(PageCheck.gaps(doc)).as(name + ": blocks without data").isEmpty();
    }
  }

  @Test
  @Order(3)
  void aGapIsFound() throws Exception {
    Path doc = runs.resolve("gaps.md");
    Files.writeString(
        doc,
        "<!-- generated: csv x/x.csv -->\n"
            + PageCheck.NOT_MEASURED
            + " (x/x.csv missing)._\n<!-- end -->\n\n![chart](nowhere/chart.png)\n"
            + "<!-- generated: targets -->\n| a target | n/a | >= 1 x | not measured |\n"
            + "<!-- end -->\n");
    assertThat(PageCheck.gaps(doc))
        .hasSize(3)
        .anyMatch(g -> g.startsWith("csv x/x.csv: "))
        .anyMatch(g -> g.equals("image nowhere/chart.png: not there"))
        .anyMatch(g -> g.startsWith("targets: "));
  }

  private static boolean isBuiltIn(Scenario sc) {
    return sc.getClass().getPackageName().equals(ScenariosTest.class.getPackageName());
  }

  private static void copyTree(Path from, Path to) throws IOException {
    if (!Files.exists(from)) {
      return;
    }
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Test
  void httpIngestionIsAnExtensionPointNotYetThere() {
    assertThatThrownBy(() -> UsageIngestion.HTTP.open(new UsageDocuments(1, 1, 1)))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("HTTP");
  }

  @Test
  void usageDocumentsKeepExactTotals() throws Exception {
    UsageDocuments d = new UsageDocuments(3, 2, 5);
    io.spyglass.sources.RawBatch b = new io.spyglass.sources.RawBatch();
    while (d.poll(b, 7, 0)) {
      // read to the end
    }
    long docs = 0;
    for (int o = 0; o < 3; o++) {
      for (int r = 0; r < UsageDocuments.RESOURCES.length; r++) {
        docs += d.expectedCount(o, r);
      }
    }
    assertThat(docs).isEqualTo(30).isEqualTo(b.size());
  }
}

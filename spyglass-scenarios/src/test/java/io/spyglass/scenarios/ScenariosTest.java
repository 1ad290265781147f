package io.spyglass.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every scenario in quick mode: it runs, finds what it must (every needle, exact metering totals),
 * and writes its tables and charts. Timings are printed, never checked.
 */
class ScenariosTest {
  @TempDir Path out;

  @ParameterizedTest
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
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    Report r =
        BenchCommand.run(
            Scenarios.byName().get(name),
            Settings.defaults(true),
            out,
            new PrintStream(console, true, StandardCharsets.UTF_8));
    String text = console.toString(StandardCharsets.UTF_8);
    System.out.println(text);
    assertThat(r.problems()).isEmpty();
    assertThat(text).contains("Machine: ").contains("| ");
    assertThat(r.files()).anyMatch(p -> p.toString().endsWith(".csv"));
    for (Path p : r.files()) {
      assertThat(Files.size(p)).isPositive();
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
    io.spyglass.engine.source.RawBatch b = new io.spyglass.engine.source.RawBatch();
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

package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partials;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/flink.md lists the job's options as {@link JobOptions} defines them, and names the versions
 * of the formats its state is written in.
 */
class DocsTest {
  private static final String BEGIN = "<!-- options:begin -->\n";
  private static final String END = "<!-- options:end -->";

  @Test
  void theOptionsTableIsTheOptions() throws Exception {
    String doc = Files.readString(Path.of("../docs/flink.md"));
    int from = doc.indexOf(BEGIN);
    int to = doc.indexOf(END);
    assertThat(from).as("the options markers in docs/flink.md").isPositive();
    assertThat(doc.substring(from + BEGIN.length(), to))
        .as("docs/flink.md: paste the output of JobOptions.main between the markers")
        .isEqualTo(JobOptions.markdownTable());
  }

  @Test
  void theStateTableNamesTheVersionsTheJobWrites() throws Exception {
    String doc = Files.readString(Path.of("../docs/flink.md"));
    // the combiner snapshot's version is the byte after its magic in the golden combiner state
    byte[] state = CombinerStateFormatTest.bytes(CombinerStateFormatTest.GOLDEN);
    int at = new String(state, StandardCharsets.ISO_8859_1).indexOf("SGQC");
    assertThat(at).as("the golden combiner state holds a combiner snapshot").isPositive();
    assertThat(doc)
        .as("docs/flink.md, section State")
        .contains("| `InputSplit` version " + InputSplit.Serializer.VERSION + " |")
        .contains("| `InputEnumerator.State` version " + InputEnumerator.StateSerializer.VERSION)
        .contains(
            "| version "
                + CombinerOperator.STATE_VERSION
                + ", holding the combiner snapshot `SGQC` version "
                + state[at + 4]
                + " and partials `SGPS` version "
                + Partials.FORMAT_VERSION
                + " (version "
                + Partials.JSON_FORMAT_VERSION
                + " for a `SELECT *`, its records kept as their JSON) |");
  }
}

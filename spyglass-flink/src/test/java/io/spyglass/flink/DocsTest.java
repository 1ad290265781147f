package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/flink.md lists the job's options as {@link JobOptions} defines them. */
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
}

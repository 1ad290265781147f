package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpyglassCommandTest {
  @Test
  void javaVersionsOutsideTheSketchLinesAreRefusedClearly() {
    assertThat(SpyglassCommand.unsupportedJava(17, "DataSketches 6")).isNull();
    assertThat(SpyglassCommand.unsupportedJava(21, "DataSketches 6")).isNull();
    assertThat(SpyglassCommand.unsupportedJava(25, "DataSketches 9")).isNull();
    assertThat(SpyglassCommand.unsupportedJava(26, "DataSketches 9")).isNull();
    assertThat(SpyglassCommand.unsupportedJava(23, "DataSketches 6"))
        .contains("Java 17, 21 and 25")
        .contains("not on Java 23");
    assertThat(SpyglassCommand.unsupportedJava(25, "DataSketches 6"))
        .contains("built without a JDK 25")
        .contains("-Djdk25.home");
  }
}

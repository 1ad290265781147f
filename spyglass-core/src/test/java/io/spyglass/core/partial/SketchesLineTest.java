package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The multi-release jar picks the DataSketches line that runs on this JVM: 6 on Java 17 to 24 (and
 * from the classes directory, which is not multi-release), 9 from the jar on Java 25 and later. The
 * other tests of this package run on both (failsafe runs them on Java 25 against the jar).
 */
class SketchesLineTest {
  @Test
  void theLineFitsTheJvm() {
    boolean fromJar =
        Sketches.class
            .getProtectionDomain()
            .getCodeSource()
            .getLocation()
            .getPath()
            .endsWith(".jar");
    boolean java25 = Runtime.version().feature() >= 25;
    assertThat(Sketches.line())
        .as("Java %s, from %s", Runtime.version(), fromJar ? "the jar" : "classes")
        .isEqualTo(java25 && fromJar ? "DataSketches 9" : "DataSketches 6");
  }
}

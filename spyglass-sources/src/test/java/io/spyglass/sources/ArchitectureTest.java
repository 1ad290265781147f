package io.spyglass.sources;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sources' layering: they read records and know nothing of what reads them (the embedded
 * engine, the Flink job, the service), so that both runtimes share them; of Spyglass they use the
 * core's record reading only. Time comes from the clock a source is given, not from reads of the
 * wall clock scattered through the code (today's are listed, to be shrunk). The rules every module
 * shares are the test kit's {@link HouseRules}.
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.sources";

  private static final JavaClasses SOURCES = HouseRules.classesOf(Source.class);

  @Test
  void noPackageCycles() {
    HouseRules.checkNoPackageCycles(SOURCES, ROOT);
  }

  @Test
  void sourcesKnowNothingOfWhatReadsThem() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.spyglass.engine..",
            "io.spyglass.flink..",
            "io.spyglass.service..",
            "io.spyglass.sinks..",
            "io.spyglass.cli..")
        .orShould()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.spyglass.core.syntax..",
            "io.spyglass.core.plan..",
            "io.spyglass.core.exec..",
            "io.spyglass.core.partial..",
            "io.spyglass.core.query..",
            "io.spyglass.core.result..")
        .because(
            "a source hands raw records on (the core's record reading says what a record is); the"
                + " embedded engine and the Flink job both read them, each in its own way")
        .check(SOURCES);
  }

  /**
   * Reads of the wall clock (System.currentTimeMillis and nanoTime, java.time's now, Clock.system*)
   * outside a clock class (a class named *Clock), by class, as they are today: a new read fails
   * this test (take the time from the clock the class is given: a {@code LongSupplier clock}); a
   * class that reads it less than listed fails it too (lower its count, or remove it). To be
   * shrunk, not grown.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY =
      Map.ofEntries(
          Map.entry("io.spyglass.sources.FileSource", 2),
          Map.entry("io.spyglass.sources.GeneratorSource", 1),
          Map.entry("io.spyglass.sources.KafkaSource", 6),
          Map.entry("io.spyglass.sources.Pacer", 3));

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(SOURCES, WALL_CLOCK_READS_TODAY);
  }
}

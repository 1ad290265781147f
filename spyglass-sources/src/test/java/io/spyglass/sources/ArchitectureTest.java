package io.spyglass.sources;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.core.SpyglassClock;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sources' layering: they read records and know nothing of what reads them (the embedded
 * engine, the Flink job, the service), so that both runtimes share them; of Spyglass they use the
 * core's record reading only (and the core's one clock). Time comes from the {@link SpyglassClock}
 * a source is given, never from a read of the machine's clocks. The rules every module shares are
 * the test kit's {@link HouseRules}.
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
   * outside the core's {@link SpyglassClock}: none. A source's time comes from the clock it is
   * given by whoever opens it (a test's, to control time); {@code SpyglassClock.system()} is the
   * one place that reads the machine's clocks. A new read fails this test.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY = Map.of();

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(SOURCES, WALL_CLOCK_READS_TODAY);
  }
}

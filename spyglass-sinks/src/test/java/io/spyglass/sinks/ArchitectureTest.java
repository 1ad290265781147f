package io.spyglass.sinks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.core.SpyglassClock;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sinks' layering: their packages depend one way (no cycle); they deliver results and know
 * nothing of what produces them (the engine, the Flink job, the sources) nor of who uses them (the
 * service, the command line): of Spyglass they use the core's results and their JSON only (and the
 * core's one clock). Time comes from the {@link SpyglassClock} the sinks are given, never from a
 * read of the machine's clocks. The rules every module shares are the test kit's {@link
 * HouseRules}.
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.sinks";

  private static final JavaClasses SINKS = HouseRules.classesOf(Sinks.class);

  @Test
  void noPackageCycles() {
    HouseRules.checkNoPackageCycles(SINKS, ROOT);
  }

  @Test
  void sinksUseTheCoresResultsOnly() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.spyglass.engine..",
            "io.spyglass.flink..",
            "io.spyglass.sources..",
            "io.spyglass.service..",
            "io.spyglass.cli..")
        .orShould()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.spyglass.core.syntax..",
            "io.spyglass.core.plan..",
            "io.spyglass.core.exec..",
            "io.spyglass.core.partial..",
            "io.spyglass.core.query..",
            "io.spyglass.core.record..",
            "io.spyglass.core.run..")
        .because(
            "a sink delivers a query's results as JSON documents (the core's Result and"
                + " ResultJson), whichever runtime ran the query and whoever asked for the sink:"
                + " the service, the command line and the Flink job all use the same sinks")
        .check(SINKS);
  }

  /**
   * Reads of the wall clock (System.currentTimeMillis and nanoTime, java.time's now, Clock.system*)
   * outside the core's {@link SpyglassClock}: none. The sinks' time comes from the clock given to
   * {@link Sinks} (a test's, to control time), its monotonic count alone; {@code
   * SpyglassClock.system()} is the one place that reads the machine's clocks. A new read fails this
   * test.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY = Map.of();

  @Test
  void theWallClockIsReadOnlyInTheClock() {
    HouseRules.checkWallClockReads(SINKS, WALL_CLOCK_READS_TODAY);
  }
}

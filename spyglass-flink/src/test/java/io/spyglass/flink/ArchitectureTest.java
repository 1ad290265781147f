package io.spyglass.flink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Flink job's layering: its packages depend one way (no cycle); the job shares the records'
 * sources with the embedded engine (spyglass-sources: their bad-input counts, their batches, their
 * specs) and nothing of the engine itself (its threads, its queries, its ingest log); time comes
 * from Flink (the processing-time service, watermarks and clock marks), not from reads of the wall
 * clock scattered through the operators (today's are listed, to be shrunk). The rules every module
 * shares are the test kit's {@link HouseRules}.
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.flink";

  private static final JavaClasses JOB = HouseRules.classesOf(SpyglassJob.class);

  @Test
  void noPackageCycles() {
    HouseRules.checkNoPackageCycles(JOB, ROOT);
  }

  @Test
  void theJobNeverTouchesTheEngine() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.spyglass.engine..", "io.spyglass.service..", "io.spyglass.cli..")
        .because(
            "the job runs the core's FilterSet and QueryCombiner itself; it shares the records'"
                + " sources with the embedded engine (spyglass-sources), nothing else of it")
        .check(JOB);
  }

  /**
   * Reads of the wall clock (System.currentTimeMillis and nanoTime, java.time's now, Clock.system*)
   * outside a clock class (a class named *Clock), by class, as they are today: a new read fails
   * this test (take the time from the operator's processing-time service, or the clock marks); a
   * class that reads it less than listed fails it too (lower its count, or remove it). To be
   * shrunk, not grown.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY =
      Map.ofEntries(
          Map.entry("io.spyglass.flink.CombinerWriteAhead", 3),
          Map.entry("io.spyglass.flink.EngineSource", 1),
          Map.entry("io.spyglass.flink.InputFetcher", 3),
          Map.entry("io.spyglass.flink.JobOptions", 1));

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(JOB, WALL_CLOCK_READS_TODAY);
  }
}

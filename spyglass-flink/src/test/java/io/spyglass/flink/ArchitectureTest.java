package io.spyglass.flink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.core.SpyglassClock;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Flink job's layering: its packages depend one way (no cycle); the job shares the records'
 * sources with the embedded engine (spyglass-sources: their bad-input counts, their batches, their
 * specs) and nothing of the engine itself (its threads, its queries, its ingest log); time comes
 * from Flink (the processing-time service, watermarks and clock marks) and, where Flink's is not
 * the time, from the {@link SpyglassClock} it is given, never from a read of the machine's clocks.
 * The rules every module shares are the test kit's {@link HouseRules}.
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
   * outside the core's {@link SpyglassClock}: none. An operator's time is Flink's processing-time
   * service (or the clock marks); elsewhere (a source's reader, the job's set-up, the time a task
   * takes) the clock it is given (a test's, to control time; serializable, so that it ships with
   * the job), whose {@code system()} is the one place that reads the machine's clocks. A new read
   * fails this test.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY = Map.of();

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(JOB, WALL_CLOCK_READS_TODAY);
  }
}

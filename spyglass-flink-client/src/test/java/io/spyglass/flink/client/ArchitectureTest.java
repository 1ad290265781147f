package io.spyglass.flink.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.core.SpyglassClock;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Flink client's layering: its packages depend one way (no cycle); it talks to the job through
 * Kafka topics only, so it holds nothing of the job (its operators, Flink), the engine, the service
 * or the command; time comes from the {@link SpyglassClock} it is given (in its settings, or when a
 * writer is opened), never from a read of the machine's clocks. The rules every module shares are
 * the test kit's {@link HouseRules}.
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.flink.client";

  private static final JavaClasses CLIENT = HouseRules.classesOf(FlinkQueryClient.class);

  @Test
  void noPackageCycles() {
    HouseRules.checkNoPackageCycles(CLIENT, ROOT);
  }

  @Test
  void theClientHoldsNothingOfTheJobNorOfWhoUsesIt() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.spyglass.flink",
            "org.apache.flink..",
            "io.spyglass.engine..",
            "io.spyglass.service..",
            "io.spyglass.cli..")
        .because(
            "the client speaks to the job through its topics (the message formats here), from the"
                + " service or the command, which use it; it runs without Flink")
        .check(CLIENT);
  }

  /**
   * Reads of the wall clock (System.currentTimeMillis and nanoTime, java.time's now, Clock.system*)
   * outside the core's {@link SpyglassClock}: none. The client's time comes from the clock in its
   * {@code Settings} (a query's receive time, its waits), the writer's from the one it is opened
   * with, given by whoever builds them (a test's, to control time); {@code SpyglassClock.system()}
   * is the one place that reads the machine's clocks. A new read fails this test.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY = Map.of();

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(CLIENT, WALL_CLOCK_READS_TODAY);
  }
}

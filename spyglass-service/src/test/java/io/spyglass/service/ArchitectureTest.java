package io.spyglass.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The service's layering: its packages depend one way (no cycle); the HTTP routes ({@code http})
 * reach a running query only through the runtime interface ({@code runtime}), never the engine or
 * the Flink client; time comes from the service's clock (the core's {@code SpyglassClock}, which it
 * gives to the engine it builds too), never from a read of the machine's clocks. The rules every
 * module shares are the test kit's {@link HouseRules}.
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.service";

  private static final JavaClasses SERVICE = HouseRules.classesOf(SpyglassService.class);

  @Test
  void noPackageCycles() {
    HouseRules.checkNoPackageCycles(SERVICE, ROOT);
  }

  @Test
  void routesReachQueriesOnlyThroughTheRuntimeInterface() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".http..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.spyglass.engine..", "io.spyglass.flink..")
        .because(
            "routes reach running queries through service.runtime's QueryRuntime, and ingestion"
                + " and standing queries through service.metering, whichever runtime runs them")
        .check(SERVICE);
  }

  /**
   * Standing queries run through the runtime interface as every query does: their registry, thread
   * and checkpoints never touch the engine (its ingest log aside); {@code Metering} only wraps an
   * engine its caller holds in an {@code EmbeddedRuntime}.
   */
  @Test
  void standingQueriesRunOnlyThroughTheRuntimeInterface() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".metering..")
        .and()
        .doNotHaveSimpleName("Metering")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.spyglass.engine", "io.spyglass.flink..")
        .because(
            "standing queries go through service.runtime's QueryRuntime: submit from a saved state,"
                + " checkpoints whose markers come in each query's result stream, looks at open"
                + " windows")
        .check(SERVICE);
  }

  /**
   * Reads of the wall clock (System.currentTimeMillis and nanoTime, java.time's now, Clock.system*)
   * outside the core's {@code SpyglassClock}: none. The service's time comes from its clock, given
   * by whoever builds the service (a test's, to control time): a part takes it, or its wall clock
   * alone as a {@code LongSupplier clock} (the clock is one). A new read fails this test.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY = Map.of();

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(SERVICE, WALL_CLOCK_READS_TODAY);
  }
}

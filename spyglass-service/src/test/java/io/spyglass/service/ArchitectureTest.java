package io.spyglass.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The service's layering: its packages depend one way (no cycle); the HTTP routes ({@code http})
 * reach a running query only through the runtime interface ({@code runtime}), never the engine or
 * the Flink client; time comes from the injected clock, not from reads of the wall clock scattered
 * through the code (today's are listed, to be shrunk). The rules every module shares are the test
 * kit's {@link HouseRules}.
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
   * outside a clock class (a class named *Clock), by class, as they are today: a new read fails
   * this test (take the time from the clock the class is given: a {@code LongSupplier clock}); a
   * class that reads it less than listed fails it too (lower its count, or remove it). To be
   * shrunk, not grown.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY =
      Map.ofEntries(
          Map.entry("io.spyglass.service.SpyglassService", 8),
          Map.entry("io.spyglass.service.http.ApiServer", 2),
          Map.entry("io.spyglass.service.http.Bodies", 4),
          Map.entry("io.spyglass.service.http.InFlight", 2),
          Map.entry("io.spyglass.service.http.MeteringApi", 1),
          Map.entry("io.spyglass.service.http.QueriesApi", 1),
          Map.entry("io.spyglass.service.http.SlowHeaderGuard", 1),
          Map.entry("io.spyglass.service.http.Tls", 1),
          Map.entry("io.spyglass.service.metering.Metering", 2),
          Map.entry("io.spyglass.service.metering.StandingStore", 1),
          Map.entry("io.spyglass.service.metrics.ServiceMetrics", 1),
          Map.entry("io.spyglass.service.query.QueryManager", 2),
          Map.entry("io.spyglass.service.runtime.FlinkRuntime", 3),
          Map.entry("io.spyglass.service.store.DataFolderLock", 1),
          Map.entry("io.spyglass.service.store.Database", 1));

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(SERVICE, WALL_CLOCK_READS_TODAY);
  }
}

package io.spyglass.engine;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The engine's layering: its packages (the engine's own, {@code ingest}) depend one way (no cycle)
 * (the sources it reads are spyglass-sources', which knows nothing of the engine); time comes from
 * the clock it is given, not from reads of the wall clock scattered through the code (today's are
 * listed, to be shrunk). The rules every module shares are the test kit's {@link HouseRules}.
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.engine";

  private static final JavaClasses ENGINE = HouseRules.classesOf(Engine.class);

  @Test
  void noPackageCycles() {
    HouseRules.checkNoPackageCycles(ENGINE, ROOT);
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
          Map.entry("io.spyglass.engine.EngineConfig", 1),
          Map.entry("io.spyglass.engine.QueryHandle", 2),
          Map.entry("io.spyglass.engine.ingest.IngestLog", 2));

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(ENGINE, WALL_CLOCK_READS_TODAY);
  }
}

package io.spyglass.engine;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.core.SpyglassClock;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The engine's layering: its packages (the engine's own, {@code ingest}) depend one way (no cycle)
 * (the sources it reads are spyglass-sources', which knows nothing of the engine); its parts are
 * given what they use, not the {@link Engine}; time comes from the {@link SpyglassClock} it is
 * given, never from a read of the machine's clocks. The rules every module shares are the test
 * kit's {@link HouseRules}.
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.engine";

  private static final JavaClasses ENGINE = HouseRules.classesOf(Engine.class);

  @Test
  void noPackageCycles() {
    HouseRules.checkNoPackageCycles(ENGINE, ROOT);
  }

  /**
   * No class of the engine's package but {@link Engine} (and the types of its API nested in it)
   * depends on Engine: Engine is the façade that builds the parts and wires them, and each part is
   * given what it uses, named for what it is: the engine's counters ({@code EngineStats}), the
   * batch pool, the combiner's inbox, the running queries, a {@code QueryContext} for each handle,
   * a small interface for a call back ({@code Combiner.WhenDrained}). A part that held the engine
   * could call any of it, from any thread: what each part touches, and so what each thread shares,
   * would be the whole engine again (the hub Worker, Combiner, QueryHandle and Barriers once called
   * through, twenty-odd package-private methods of it). Give the part the object it needs instead.
   */
  @Test
  void partsAreGivenWhatTheyUseNotTheEngine() {
    HouseRules.checkPartsDoNotHoldTheFacade(ENGINE, Engine.class);
  }

  /**
   * Reads of the wall clock (System.currentTimeMillis and nanoTime, java.time's now, Clock.system*)
   * outside the core's {@link SpyglassClock}: none. The engine's time comes from the clock in its
   * config (the ingest log's from the clock it is opened with), given by whoever builds the engine
   * (a test's, to control time); {@code SpyglassClock.system()} is the one place that reads the
   * machine's clocks. A new read fails this test.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY = Map.of();

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(ENGINE, WALL_CLOCK_READS_TODAY);
  }
}

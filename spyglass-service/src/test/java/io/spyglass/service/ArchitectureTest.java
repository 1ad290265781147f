package io.spyglass.service;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The service's layering: its packages depend one way (no cycle); the HTTP routes ({@code http})
 * reach a running query only through the runtime interface ({@code runtime}), never the engine or
 * the Flink client; time comes from the injected clock, not from reads of the wall clock scattered
 * through the code (today's are listed, to be shrunk).
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.service";

  private static final JavaClasses SERVICE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages(ROOT);

  /** Each package under the service one slice, the service's own package one more. */
  private static final SliceAssignment PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          String p = c.getPackageName();
          if (p.equals(ROOT)) {
            return SliceIdentifier.of(ROOT);
          }
          if (!p.startsWith(ROOT + ".")) {
            return SliceIdentifier.ignore();
          }
          return SliceIdentifier.of(p.substring(ROOT.length() + 1).split("\\.")[0]);
        }

        @Override
        public String getDescription() {
          return "the packages of " + ROOT;
        }
      };

  @Test
  void noPackageCycles() {
    slices().assignedFrom(PACKAGES).should().beFreeOfCycles().check(SERVICE);
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
   * Reads of the wall clock (System.currentTimeMillis and nanoTime, java.time's now, Clock.system*)
   * outside a clock class (a class named *Clock), by class, as they are today: a new read fails
   * this test (take the time from the clock the class is given: a {@code LongSupplier clock}); a
   * class that reads it less than listed fails it too (lower its count, or remove it). To be
   * shrunk, not grown.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY =
      Map.ofEntries(
          Map.entry("io.spyglass.service.SpyglassService", 8),
          Map.entry("io.spyglass.service.http.ApiServer", 5),
          Map.entry("io.spyglass.service.http.Bodies", 4),
          Map.entry("io.spyglass.service.http.InFlight", 2),
          Map.entry("io.spyglass.service.http.MeteringApi", 1),
          Map.entry("io.spyglass.service.http.QueriesApi", 1),
          Map.entry("io.spyglass.service.http.SlowHeaderGuard", 1),
          Map.entry("io.spyglass.service.http.SseStream", 2),
          Map.entry("io.spyglass.service.http.Tls", 1),
          Map.entry("io.spyglass.service.http.WebSocketApi", 4),
          Map.entry("io.spyglass.service.metering.Checkpointer", 1),
          Map.entry("io.spyglass.service.metering.Metering", 2),
          Map.entry("io.spyglass.service.metering.StandingQuery", 1),
          Map.entry("io.spyglass.service.metering.StandingStore", 1),
          Map.entry("io.spyglass.service.metrics.ServiceMetrics", 1),
          Map.entry("io.spyglass.service.query.QueryManager", 2),
          Map.entry("io.spyglass.service.runtime.FlinkRuntime", 3),
          Map.entry("io.spyglass.service.store.DataFolderLock", 1),
          Map.entry("io.spyglass.service.store.Database", 1));

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    assertThat(unlisted(wallClockReads(SERVICE), WALL_CLOCK_READS_TODAY)).isEmpty();
  }

  /** Where {@code reads} differ from {@code listed}, said as what to do. */
  static List<String> unlisted(Map<String, Integer> reads, Map<String, Integer> listed) {
    List<String> out = new ArrayList<>();
    Set<String> classes = new TreeSet<>(reads.keySet());
    classes.addAll(listed.keySet());
    for (String c : classes) {
      int now = reads.getOrDefault(c, 0);
      int before = listed.getOrDefault(c, 0);
      if (now > before) {
        out.add(
            c
                + " reads the wall clock "
                + now
                + " times, "
                + before
                + " listed: take the time from the clock it is given (a LongSupplier)");
      } else if (now < before) {
        out.add(
            c
                + " reads the wall clock "
                + now
                + " times, "
                + before
                + " listed: lower (or remove) its entry in WALL_CLOCK_READS_TODAY");
      }
    }
    return out;
  }

  /** The reads of the wall clock outside classes named *Clock, by top-level class. */
  static Map<String, Integer> wallClockReads(JavaClasses classes) {
    Map<String, Integer> out = new TreeMap<>();
    for (JavaClass c : classes) {
      JavaClass top = c;
      while (top.getEnclosingClass().isPresent()) {
        top = top.getEnclosingClass().get();
      }
      if (top.getSimpleName().endsWith("Clock")) {
        continue;
      }
      for (JavaAccess<?> a : c.getAccessesFromSelf()) {
        if (readsTheWallClock(a)) {
          out.merge(top.getName(), 1, Integer::sum);
        }
      }
    }
    return out;
  }

  private static boolean readsTheWallClock(JavaAccess<?> a) {
    String owner = a.getTargetOwner().getName();
    String name = a.getTarget().getName();
    return (owner.equals("java.lang.System")
            && (name.equals("currentTimeMillis") || name.equals("nanoTime")))
        || (owner.startsWith("java.time.") && name.equals("now"))
        || (owner.equals("java.time.Clock") && name.startsWith("system"));
  }
}

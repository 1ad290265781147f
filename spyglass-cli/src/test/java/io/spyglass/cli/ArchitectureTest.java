package io.spyglass.cli;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.spyglass.engine.Engine;
import io.spyglass.engine.QueryHandle;
import io.spyglass.flink.LocalRun;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.arch.HouseRules;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The command's layering: its packages depend one way (no cycle); {@code spyglass serve} hands
 * every query to the service's runtime and never runs one itself; the command reaches the Flink job
 * only through the job's client and {@link LocalRun} (the job on a mini cluster in this process),
 * never its operators; it carries no benchmark (those are spyglass-bench-cli's); its time comes
 * from its clock (the core's {@code SpyglassClock}, which it gives to the engine and the source it
 * builds too), never from a read of the machine's clocks. The rules every module shares are the
 * test kit's {@link HouseRules}.
 */
class ArchitectureTest {
  private static final String ROOT = "io.spyglass.cli";

  private static final JavaClasses COMMAND = HouseRules.classesOf(SpyglassCommand.class);

  @Test
  void noPackageCycles() {
    HouseRules.checkNoPackageCycles(COMMAND, ROOT);
  }

  @Test
  void serveNeverRunsAQueryItself() {
    noClasses()
        .that()
        .haveSimpleNameStartingWith("Serve")
        .should()
        .dependOnClassesThat()
        .belongToAnyOf(Engine.class, QueryHandle.class, RemoteQuery.class, LocalRun.class)
        .because(
            "serve's routes reach running queries through the service's QueryRuntime, whichever"
                + " runtime runs them")
        .check(COMMAND);
  }

  @Test
  void theCommandReachesTheJobOnlyThroughItsClientAndLocalRun() {
    noClasses()
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.spyglass.flink")
                .and(not(belongToAnyOf(LocalRun.class, io.spyglass.flink.MeteringRun.class))))
        .because(
            "the job's operators run on a cluster; the command talks to the job through its topics"
                + " (io.spyglass.flink.client) and starts it in this process only through LocalRun"
                + " (queries) and MeteringRun (standing queries of serve --source http)")
        .check(COMMAND);
  }

  @Test
  void theCommandCarriesNoBenchmarks() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.spyglass.scenarios..", "io.spyglass.flink.bench..", "io.spyglass.bullet..")
        .because(
            "spyglass bench comes in a jar of its own (spyglass-bench-cli): the command's jar and"
                + " the release carry no benchmark, chart library or referee")
        .check(COMMAND);
  }

  /**
   * Reads of the wall clock (System.currentTimeMillis and nanoTime, java.time's now, Clock.system*)
   * outside the core's {@code SpyglassClock}: none. The command's time comes from its clock, which
   * it gives to the engine and the source it builds too (a test gives its own, to control time);
   * {@code SpyglassClock.system()} is the one place that reads the machine's clocks. A new read
   * fails this test.
   */
  private static final Map<String, Integer> WALL_CLOCK_READS_TODAY = Map.of();

  @Test
  void theWallClockIsReadOnlyWhereItWasBefore() {
    HouseRules.checkWallClockReads(COMMAND, WALL_CLOCK_READS_TODAY);
  }
}

package io.spyglass.core;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The layers of the core, one way: record and syntax, then plan, then exec and partial, then result
 * and query, then run. No layer imports one after it; the core imports no threads, and reads the
 * machine's clocks only in {@link SpyglassClock}, the clock of every module.
 */
class ArchitectureTest {
  private static final JavaClasses CORE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.spyglass.core");

  @Test
  void syntaxKnowsNothingOfWhatComesAfter() {
    noClasses()
        .that()
        .resideInAPackage("..core.syntax..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "..core.plan..",
            "..core.exec..",
            "..core.partial..",
            "..core.result..",
            "..core.query..")
        .check(CORE);
  }

  @Test
  void planNeverImportsExecution() {
    noClasses()
        .that()
        .resideInAPackage("..core.plan..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "..core.exec..", "..core.partial..", "..core.result..", "..core.query..")
        .check(CORE);
  }

  @Test
  void executionAndPartialsDoNotImportTheLifecycle() {
    noClasses()
        .that()
        .resideInAnyPackage("..core.exec..", "..core.partial..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..core.result..", "..core.query..")
        .check(CORE);
  }

  @Test
  void recordsDependOnNoOtherLayer() {
    noClasses()
        .that()
        .resideInAPackage("..core.record..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "..core.syntax..",
            "..core.plan..",
            "..core.exec..",
            "..core.partial..",
            "..core.result..",
            "..core.query..")
        .check(CORE);
  }

  @Test
  void resultsAreData() {
    noClasses()
        .that()
        .resideInAPackage("..core.result..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("..core.query..", "..core.exec..", "..core.partial..")
        .check(CORE);
  }

  /**
   * DataSketches has one line per JDK whose classes differ in name: only {@code SketchLine},
   * written once per line (src/main/java and src/main/java25), names those; the rest of the core
   * names only the classes both lines have alike, so that it is written once.
   */
  @Test
  void onlyTheSketchLineAdapterNamesClassesThatDifferByLine() {
    noClasses()
        .that()
        .doNotHaveFullyQualifiedName("io.spyglass.core.partial.SketchLine")
        .and()
        .haveNameNotMatching("io\\.spyglass\\.core\\.partial\\.SketchLine\\$.*")
        .should()
        .dependOnClassesThat(
            resideInAPackage("org.apache.datasketches..")
                .and(
                    not(
                        belongToAnyOf(
                            org.apache.datasketches.thetacommon.BinomialBoundsN.class,
                            org.apache.datasketches.common.ResizeFactor.class,
                            org.apache.datasketches.frequencies.ErrorType.class,
                            org.apache.datasketches.quantilescommon.QuantileSearchCriteria.class,
                            org.apache.datasketches.quantilescommon.QuantilesDoublesAPI.class,
                            org.apache.datasketches.quantilescommon.QuantilesAPI.class,
                            org.apache.datasketches.common.ArrayOfItemsSerDe.class))))
        .check(CORE);
  }

  /** Running a query comes last: no other layer knows of it. */
  @Test
  void runningAQueryIsTheLastLayer() {
    noClasses()
        .that()
        .resideOutsideOfPackage("..core.run..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("..core.run..")
        .check(CORE);
  }

  @Test
  void noCycles() {
    slices().matching("io.spyglass.core.(*)..").should().beFreeOfCycles().check(CORE);
  }

  @Test
  void coreHasNoThreads() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .belongToAnyOf(Thread.class, java.util.concurrent.ExecutorService.class)
        .check(CORE);
  }

  /**
   * A read of the machine's clocks: {@code System.currentTimeMillis} and {@code nanoTime},
   * java.time's {@code now}, {@code Clock.system*}, calls and method references alike (as the test
   * kit's HouseRules says for the other modules, which depend on the core).
   */
  private static final DescribedPredicate<JavaAccess<?>> A_READ_OF_THE_MACHINES_CLOCKS =
      DescribedPredicate.describe(
          "a read of the machine's clocks",
          a -> {
            String owner = a.getTargetOwner().getName();
            String name = a.getTarget().getName();
            return (owner.equals("java.lang.System")
                    && (name.equals("currentTimeMillis") || name.equals("nanoTime")))
                || (owner.startsWith("java.time.") && name.equals("now"))
                || (owner.equals("java.time.Clock") && name.startsWith("system"));
          });

  private static final ArchRule ONLY_THE_CLOCK_READS_THE_CLOCKS =
      noClasses()
          .that()
          .doNotBelongToAnyOf(SpyglassClock.class)
          .should()
          .accessTargetWhere(A_READ_OF_THE_MACHINES_CLOCKS)
          .because(
              "time comes from the SpyglassClock a part is given (a test's, to control it):"
                  + " millis() for a moment, nanos() for a duration");

  /** {@link SpyglassClock} is the one class of the core (and of Spyglass) that reads the clocks. */
  @Test
  void onlyTheClockReadsTheMachinesClocks() {
    ONLY_THE_CLOCK_READS_THE_CLOCKS.check(CORE);
  }

  /** The rule is not empty: the clock itself reads them, which it would fail on. */
  @Test
  void theClockIsWhereTheMachinesClocksAreRead() {
    assertThatThrownBy(
            () ->
                noClasses()
                    .should()
                    .accessTargetWhere(A_READ_OF_THE_MACHINES_CLOCKS)
                    .check(CORE.that(JavaClass.Predicates.belongToAnyOf(SpyglassClock.class))))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("java.lang.System.currentTimeMillis()")
        .hasMessageContaining("java.lang.System.nanoTime()");
  }
}

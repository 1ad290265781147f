package io.spyglass.core;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The layers of the core, one way: record and syntax, then plan, then exec and partial, then result
 * and query, then run. No layer imports one after it; the core imports no threads or clocks.
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
  void coreHasNoThreadsAndNoWallClock() {
    noClasses()
        .should()
        .callMethod(System.class, "currentTimeMillis")
        .orShould()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .dependOnClassesThat()
        .belongToAnyOf(Thread.class, java.util.concurrent.ExecutorService.class)
        .check(CORE);
  }
}

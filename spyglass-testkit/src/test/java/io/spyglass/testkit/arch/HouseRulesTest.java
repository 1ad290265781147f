package io.spyglass.testkit.arch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.spyglass.core.SpyglassClock;
import io.spyglass.testkit.arch.fixture.facade.Hub;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shared rules fail on what they are meant to catch, and say what to do. */
class HouseRulesTest {
  private static final String FIXTURE = "io.spyglass.testkit.arch.fixture";
  private static final String READS = FIXTURE + ".time.ReadsTheTime";
  private static final String NAMED_CLOCK = FIXTURE + ".time.FixtureClock";

  private static final JavaClasses ALL = new ClassFileImporter().importPackages(FIXTURE);
  private static final JavaClasses TIME = new ClassFileImporter().importPackages(FIXTURE + ".time");

  @Test
  void aPackageCycleFails() {
    assertThatThrownBy(() -> HouseRules.checkNoPackageCycles(ALL, FIXTURE))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Cycle detected");
    assertThatCode(() -> HouseRules.checkNoPackageCycles(TIME, FIXTURE)).doesNotThrowAnyException();
  }

  @Test
  void wallClockReadsAreCountedByTopLevelClassOutsideTheClock() {
    // a call, a method reference and java.time's now, and the nested class's call; a class named
    // *Clock is not the clock: its reads count
    assertThat(HouseRules.wallClockReads(TIME)).isEqualTo(Map.of(READS, 4, NAMED_CLOCK, 2));
  }

  @Test
  void theCoresClockIsTheOneClassThatMayReadTheMachinesClocks() {
    JavaClasses clock = new ClassFileImporter().importPackagesOf(SpyglassClock.class);
    assertThat(HouseRules.THE_CLOCK).isEqualTo("io.spyglass.core.SpyglassClock");
    // it reads them (the machine's wall and monotonic clocks, by method reference) ...
    assertThat(
            clock.get(SpyglassClock.class).getAccessesFromSelf().stream()
                .filter(HouseRules::readsTheWallClock)
                .map(a -> a.getTarget().getName()))
        .containsOnly("currentTimeMillis", "nanoTime");
    // ... and only it does, in the core
    assertThat(HouseRules.wallClockReads(clock)).isEmpty();
    assertThatCode(() -> HouseRules.checkWallClockReads(clock, Map.of()))
        .doesNotThrowAnyException();
  }

  @Test
  void aNewReadFailsAndSoDoesAStaleEntry() {
    assertThatCode(() -> HouseRules.checkWallClockReads(TIME, Map.of(READS, 4, NAMED_CLOCK, 2)))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> HouseRules.checkWallClockReads(TIME, Map.of(READS, 3, NAMED_CLOCK, 2)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("The wall clock is read outside SpyglassClock")
        .hasMessageContaining(READS + " reads the wall clock 4 times, 3 listed")
        .hasMessageContaining(
            "take the time from the clock it is given (io.spyglass.core.SpyglassClock: millis()"
                + " for a moment, nanos() for a duration")
        .hasMessageNotContaining("*Clock")
        .hasMessageNotContaining("LongSupplier");
    assertThatThrownBy(() -> HouseRules.checkWallClockReads(TIME, Map.of(READS, 4)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(NAMED_CLOCK + " reads the wall clock 2 times, 0 listed");
    assertThatThrownBy(() -> HouseRules.checkWallClockReads(TIME, Map.of(READS, 5, NAMED_CLOCK, 2)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("lower (or remove) its entry");
    assertThatThrownBy(
            () ->
                HouseRules.checkWallClockReads(
                    TIME, Map.of(READS, 4, NAMED_CLOCK, 2, FIXTURE + ".Gone", 1)))
        .hasMessageContaining(FIXTURE + ".Gone reads the wall clock 0 times, 1 listed");
  }

  @Test
  void aPartThatHoldsTheFacadeFailsAndOnlyIt() {
    JavaClasses facade = new ClassFileImporter().importPackages(FIXTURE + ".facade");
    String bad = FIXTURE + ".facade.BadPart";
    assertThatThrownBy(() -> HouseRules.checkPartsDoNotHoldTheFacade(facade, Hub.class))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(bad)
        .hasMessageContaining("give a part what it uses")
        .hasMessageNotContaining("GoodPart")
        .hasMessageNotContaining("Hub$Options");
    JavaClasses withoutIt =
        facade.that(DescribedPredicate.not(JavaClass.Predicates.simpleName("BadPart")));
    assertThatCode(() -> HouseRules.checkPartsDoNotHoldTheFacade(withoutIt, Hub.class))
        .doesNotThrowAnyException();
  }

  @Test
  void aModulesClassesAreThoseOfItsOwnFolder() {
    // the test kit's own classes, not its dependencies' (the core's) nor its tests
    JavaClasses kit = HouseRules.classesOf(HouseRules.class);
    assertThat(kit.contain(HouseRules.class)).isTrue();
    assertThat(kit.contain(HouseRulesTest.class)).isFalse();
    assertThat(kit.stream().map(c -> c.getPackageName()))
        .allMatch(p -> p.startsWith("io.spyglass.testkit"));
  }
}

package io.spyglass.testkit.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.spyglass.core.SpyglassClock;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The rules every module's {@code ArchitectureTest} checks alike (ArchUnit): its packages depend
 * one way (no cycle), and the machine's clocks are read only in the core's {@link SpyglassClock},
 * apart from the reads a frozen list names, to be shrunk, not grown. Each module's test adds its
 * own rules (which routes may touch the engine, which layer may import which).
 *
 * <p>A module that uses it declares {@code com.tngtech.archunit:archunit-junit5} (test scope)
 * itself: the test kit holds it as an optional dependency.
 */
public final class HouseRules {
  private HouseRules() {}

  /**
   * The classes of one module: those compiled from its sources (the folder or jar {@code
   * anyOfItsClasses} was loaded from), not its tests, nor its dependencies' classes, even those in
   * packages of the same name (the Flink client's {@code io.spyglass.flink.client} beside the job's
   * {@code io.spyglass.flink}).
   */
  public static JavaClasses classesOf(Class<?> anyOfItsClasses) {
    Path where;
    try {
      where = Path.of(anyOfItsClasses.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(anyOfItsClasses + " has no location on the disk", e);
    }
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPath(where);
  }

  /**
   * Each package under {@code root} one slice (by its first name under the root: {@code
   * root.http.sse} belongs to {@code http}), {@code root} itself one more; classes outside it none.
   */
  public static SliceAssignment packagesUnder(String root) {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        String p = c.getPackageName();
        if (p.equals(root)) {
          return SliceIdentifier.of(root);
        }
        if (!p.startsWith(root + ".")) {
          return SliceIdentifier.ignore();
        }
        return SliceIdentifier.of(p.substring(root.length() + 1).split("\\.")[0]);
      }

      @Override
      public String getDescription() {
        return "the packages of " + root;
      }
    };
  }

  /** Fails when two packages under {@code root} (or root itself and one) depend on each other. */
  public static void checkNoPackageCycles(JavaClasses classes, String root) {
    slices().assignedFrom(packagesUnder(root)).should().beFreeOfCycles().check(classes);
  }

  /**
   * Fails when a class of {@code facade}'s package other than {@code facade} (and the classes
   * nested in it) depends on it: the façade builds its parts and wires them, each given what it
   * uses (the objects it works with, small interfaces for the calls it makes back), so that no part
   * reaches the whole through the façade, nor calls what it was not given. The types nested in the
   * façade (its API's records and callbacks) are not the façade: a part may use them.
   */
  public static void checkPartsDoNotHoldTheFacade(JavaClasses classes, Class<?> facade) {
    noClasses()
        .that()
        .resideInAPackage(facade.getPackageName())
        .and()
        .doNotBelongToAnyOf(facade)
        .should()
        .dependOnClassesThat()
        .haveFullyQualifiedName(facade.getName())
        .because(
            facade.getSimpleName()
                + " is the façade that builds its parts and wires them: give a part what it uses"
                + " (an object of its own, or a small interface for a call it makes back), not "
                + facade.getSimpleName())
        .check(classes);
  }

  /**
   * The one class allowed to read the machine's clocks: the core's {@link SpyglassClock} (and the
   * classes nested in it). A class of another name, {@code *Clock} or not, is not a clock.
   */
  public static final String THE_CLOCK = SpyglassClock.class.getName();

  /**
   * Fails unless the wall clock is read ({@link #readsTheWallClock}) outside {@link #THE_CLOCK}
   * exactly as often as {@code listed} says, by top-level class: a new read fails (take the time
   * from the clock the class is given), and so does a class that reads it less than listed (lower
   * its count, or remove it), so that the list only shrinks. The message says, for each class, what
   * to do.
   */
  public static void checkWallClockReads(JavaClasses classes, Map<String, Integer> listed) {
    List<String> wrong = unlisted(wallClockReads(classes), listed);
    if (!wrong.isEmpty()) {
      throw new AssertionError(
          "The wall clock is read outside "
              + SpyglassClock.class.getSimpleName()
              + " where it was not before:\n  "
              + String.join("\n  ", wrong));
    }
  }

  /** Where {@code reads} differ from {@code listed}, each said as what to do; empty when alike. */
  public static List<String> unlisted(Map<String, Integer> reads, Map<String, Integer> listed) {
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
                + " listed: take the time from the clock it is given ("
                + THE_CLOCK
                + ": millis() for a moment, nanos() for a duration; the only class that reads the"
                + " machine's clocks)");
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

  /** The reads of the wall clock outside {@link #THE_CLOCK}, by top-level class. */
  public static Map<String, Integer> wallClockReads(JavaClasses classes) {
    Map<String, Integer> out = new TreeMap<>();
    for (JavaClass c : classes) {
      JavaClass top = c;
      while (top.getEnclosingClass().isPresent()) {
        top = top.getEnclosingClass().get();
      }
      if (top.getName().equals(THE_CLOCK)) {
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

  /**
   * Whether {@code a} reads the wall clock: {@code System.currentTimeMillis} and {@code nanoTime},
   * java.time's {@code now}, {@code Clock.system*} (calls and method references alike).
   */
  public static boolean readsTheWallClock(JavaAccess<?> a) {
    String owner = a.getTargetOwner().getName();
    String name = a.getTarget().getName();
    return (owner.equals("java.lang.System")
            && (name.equals("currentTimeMillis") || name.equals("nanoTime")))
        || (owner.startsWith("java.time.") && name.equals("now"))
        || (owner.equals("java.time.Clock") && name.startsWith("system"));
  }
}

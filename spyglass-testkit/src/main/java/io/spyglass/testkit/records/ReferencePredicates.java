package io.spyglass.testkit.records;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random BQL conditions over the fields of {@link HostileLines} (equality, {@code IN}, ranges,
 * {@code BETWEEN}, a map's member, {@code IS NULL}, and their combinations with {@code AND}, {@code
 * OR}, {@code NOT}), each with a reference evaluation written plainly from docs/bql.md: a missing
 * field or JSON null is NULL; values of different kinds compare as NULL; numbers compare by their
 * exact values across LONG and DOUBLE ({@code -0.0 = 0}, {@code 9007199254740993 !=
 * 9007199254740992.0}), computed here with {@link BigDecimal}; strings by UTF-16 code units; logic
 * is three-valued. Deterministic for a seed.
 */
public final class ReferencePredicates {
  /** A condition: its BQL text, and its value on a record (TRUE, FALSE or null for NULL). */
  public interface Predicate {
    String bql();

    Boolean test(Map<String, Object> record);
  }

  /** String constants, as BQL writes them (no escapes but '' for a quote). */
  private static final String[] STRINGS = {"v", "a", "é", "x y", "", "😀", "中文", "?", "k0", "v\"q"};

  /**
   * Numeric constants as BQL writes them, with the value BQL gives them: INTEGER and LONG literals
   * as Long, DOUBLE literals as Double.
   */
  private static final Object[][] NUMBERS = {
    {"0", 0L},
    {"-0.0", -0.0},
    {"0.0", 0.0},
    {"1", 1L},
    {"-1", -1L},
    {"1.5", 1.5},
    {"100", 100L},
    {"1e2", 100.0},
    {"9007199254740992", 9007199254740992L},
    {"9007199254740993", 9007199254740993L},
    {"9007199254740992.0", 9007199254740992.0},
    {"9223372036854775807", Long.MAX_VALUE},
    {"9223372036854775807.0", 9223372036854775807.0},
    {"1e300", 1e300},
    {"1e-300", 1e-300},
    {"0.1", 0.1}
  };

  private static final String[] TOP_FIELDS = {"id", "n", "s", "m", "b", "z"};

  private final Random random;

  public ReferencePredicates(long seed) {
    this.random = new Random(seed);
  }

  /** A random condition, nested at most {@code depth} deep in AND, OR and NOT. */
  public Predicate next(int depth) {
    int k = random.nextInt(depth > 0 ? 14 : 10);
    switch (k) {
      case 0, 1:
        return stringEquality(pick(new String[] {"id", "s", "id", "m.k"}));
      case 2, 3:
        return numberComparison(pick(new String[] {"n", "n", "id", "m.k"}));
      case 4:
        return between();
      case 5:
        return stringsIn();
      case 6:
        return numbersIn();
      case 7:
        return isNull();
      case 8:
        return stringEquality("id");
      case 9:
        return numberComparison("n");
      case 10:
        return not(next(depth - 1));
      case 11:
        return or(next(depth - 1), next(depth - 1));
      default:
        return and(next(depth - 1), next(depth - 1));
    }
  }

  /** A condition of the form the query index files ({@code id = 'constant'}). */
  public Predicate idEquals(String constant) {
    return compare("id", "=", quote(constant), constant);
  }

  // ------------------------------------------------------------------ shapes

  private Predicate stringEquality(String field) {
    String c = pick(STRINGS);
    return compare(field, random.nextInt(4) == 0 ? "!=" : "=", quote(c), c);
  }

  private Predicate numberComparison(String field) {
    Object[] c = pick(NUMBERS);
    String op = pick(new String[] {"=", "=", "!=", "<", "<=", ">", ">="});
    return compare(field, op, (String) c[0], c[1]);
  }

  private Predicate compare(String field, String op, String constantText, Object constant) {
    String text = field + " " + op + " " + constantText;
    return new Leaf(
        text,
        r -> {
          Object v = value(r, field);
          Integer cmp = compareValues(v, constant);
          if (cmp == null) {
            return null;
          }
          return switch (op) {
            case "=" -> cmp == 0;
            case "!=" -> cmp != 0;
            case "<" -> cmp < 0;
            case "<=" -> cmp <= 0;
            case ">" -> cmp > 0;
            default -> cmp >= 0;
          };
        });
  }

  private Predicate between() {
    Object[] a = pick(NUMBERS);
    Object[] b = pick(NUMBERS);
    String field = random.nextBoolean() ? "n" : "id";
    return new Leaf(
        field + " BETWEEN (" + a[0] + ", " + b[0] + ")",
        r -> {
          Object v = value(r, field);
          Integer lo = compareValues(v, a[1]);
          Integer hi = compareValues(v, b[1]);
          return lo == null || hi == null ? null : lo >= 0 && hi <= 0;
        });
  }

  private Predicate stringsIn() {
    List<String> items = List.of(pick(STRINGS), pick(STRINGS), pick(STRINGS));
    String field = random.nextBoolean() ? "id" : "s";
    return new Leaf(
        field
            + " IN ("
            + String.join(", ", items.stream().map(ReferencePredicates::quote).toList())
            + ")",
        r -> {
          Object v = value(r, field);
          return v instanceof String s ? items.contains(s) : null;
        });
  }

  private Predicate numbersIn() {
    Object[] a = pick(NUMBERS);
    Object[] b = pick(NUMBERS);
    String field = random.nextBoolean() ? "n" : "id";
    return new Leaf(
        field + " IN (" + a[0] + ", " + b[0] + ")",
        r -> {
          Object v = value(r, field);
          if (!(v instanceof Number)) {
            return null;
          }
          return compareValues(v, a[1]) == 0 || compareValues(v, b[1]) == 0;
        });
  }

  private Predicate isNull() {
    String field = pick(TOP_FIELDS);
    boolean negated = random.nextBoolean();
    return new Leaf(
        field + (negated ? " IS NOT NULL" : " IS NULL"), r -> (value(r, field) == null) != negated);
  }

  private static Predicate not(Predicate p) {
    return new Leaf(
        "NOT (" + p.bql() + ")",
        r -> {
          Boolean v = p.test(r);
          return v == null ? null : !v;
        });
  }

  private static Predicate and(Predicate a, Predicate b) {
    return new Leaf(
        "(" + a.bql() + ") AND (" + b.bql() + ")",
        r -> {
          Boolean x = a.test(r);
          Boolean y = b.test(r);
          if (Boolean.FALSE.equals(x) || Boolean.FALSE.equals(y)) {
            return false;
          }
          return x == null || y == null ? null : true;
        });
  }

  /** {@code a OR b}, three-valued. */
  public static Predicate or(Predicate a, Predicate b) {
    return new Leaf(
        "(" + a.bql() + ") OR (" + b.bql() + ")",
        r -> {
          Boolean x = a.test(r);
          Boolean y = b.test(r);
          if (Boolean.TRUE.equals(x) || Boolean.TRUE.equals(y)) {
            return true;
          }
          return x == null || y == null ? null : false;
        });
  }

  /**
   * The same condition in a form the query index cannot file ({@code (p) OR <field> = 1}, on a
   * field no record has, which is NULL): the same records match.
   */
  public static Predicate unindexed(Predicate p) {
    return or(p, new Leaf("__never_present = 1", r -> null));
  }

  // ------------------------------------------------------------------ values

  /** The value a field path reads: a top-level field, or {@code m.k}, a member of a map. */
  private static Object value(Map<String, Object> r, String field) {
    if (field.equals("m.k")) {
      return r.get("m") instanceof Map<?, ?> m ? m.get("k") : null;
    }
    return r.get(field);
  }

  /** Compares a record's value with a constant; null when BQL makes it NULL. */
  private static Integer compareValues(Object v, Object constant) {
    if (v == null) {
      return null;
    }
    if (v instanceof String s && constant instanceof String c) {
      return Integer.signum(s.compareTo(c));
    }
    if (v instanceof Number a && constant instanceof Number b) {
      return compareNumbers(a, b);
    }
    return null;
  }

  /** Two numbers by their exact values; infinities beyond every finite number. */
  static int compareNumbers(Number a, Number b) {
    double da = a.doubleValue();
    double db = b.doubleValue();
    if (Double.isInfinite(da) || Double.isInfinite(db)) {
      return Double.compare(da, db) == 0 ? 0 : Double.compare(da, db) < 0 ? -1 : 1;
    }
    return exact(a).compareTo(exact(b));
  }

  private static BigDecimal exact(Number n) {
    return n instanceof Long l ? BigDecimal.valueOf(l) : new BigDecimal(n.doubleValue());
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  private <T> T pick(T[] items) {
    return items[random.nextInt(items.length)];
  }

  private record Leaf(String bql, java.util.function.Function<Map<String, Object>, Boolean> eval)
      implements Predicate {
    @Override
    public Boolean test(Map<String, Object> record) {
      return eval.apply(record);
    }
  }
}

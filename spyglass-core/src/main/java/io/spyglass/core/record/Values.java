package io.spyglass.core.record;

import java.util.List;
import java.util.Map;

/** Semantics of boxed values shared by evaluation, grouping and sorting. */
public final class Values {
  private Values() {}

  /** The kind code ({@link Record#NULL} ... {@link Record#LIST}) of a boxed value. */
  public static byte kindOf(Object v) {
    if (v == null) {
      return Record.NULL;
    } else if (v instanceof String) {
      return Record.STRING;
    } else if (v instanceof Long) {
      return Record.LONG;
    } else if (v instanceof Double) {
      return Record.DOUBLE;
    } else if (v instanceof Boolean) {
      return Record.BOOLEAN;
    } else if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return Record.INTEGER;
    } else if (v instanceof Float) {
      return Record.FLOAT;
    } else if (v instanceof Map) {
      return Record.MAP;
    } else if (v instanceof List) {
      return Record.LIST;
    }
    return Record.NULL;
  }

  public static boolean isIntegral(byte kind) {
    return kind == Record.INTEGER || kind == Record.LONG;
  }

  public static boolean isNumeric(byte kind) {
    return kind >= Record.INTEGER && kind <= Record.DOUBLE;
  }

  /**
   * Total order for sorting result values: NULL first, then booleans, numbers (compared numerically
   * across types), strings, and other values by their text.
   */
  public static int compare(Object a, Object b) {
    byte ka = kindOf(a);
    byte kb = kindOf(b);
    int ra = rank(ka);
    int rb = rank(kb);
    if (ra != rb) {
      return Integer.compare(ra, rb);
    }
    switch (ra) {
      case 0:
        return 0;
      case 1:
        return Boolean.compare((Boolean) a, (Boolean) b);
      case 2:
        return compareNumbers(ka, (Number) a, kb, (Number) b);
      case 3:
        return ((String) a).compareTo((String) b);
      default:
        return String.valueOf(a).compareTo(String.valueOf(b));
    }
  }

  private static int rank(byte kind) {
    switch (kind) {
      case Record.NULL:
        return 0;
      case Record.BOOLEAN:
        return 1;
      case Record.STRING:
        return 3;
      case Record.MAP:
      case Record.LIST:
        return 4;
      default:
        return 2;
    }
  }

  /**
   * Equality with numbers compared by value across numeric types ({@code 5 == 5L == 5.0}, {@code
   * -0.0 == 0}), exactly: a LONG is not rounded to a DOUBLE first.
   */
  public static boolean equal(Object a, Object b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (a instanceof Number && b instanceof Number) {
      byte ka = kindOf(a);
      byte kb = kindOf(b);
      return isNumeric(ka) && isNumeric(kb)
          ? compareNumbers(ka, (Number) a, kb, (Number) b) == 0
          : a.equals(b);
    }
    return a.equals(b);
  }

  /** {@link #compareNumbers(boolean, long, double, boolean, long, double)} of boxed numbers. */
  private static int compareNumbers(byte ka, Number a, byte kb, Number b) {
    boolean fa = !isIntegral(ka);
    boolean fb = !isIntegral(kb);
    return compareNumbers(
        fa,
        fa ? 0 : a.longValue(),
        fa ? a.doubleValue() : 0,
        fb,
        fb ? 0 : b.longValue(),
        fb ? b.doubleValue() : 0);
  }

  /**
   * Compares two numbers by their exact values, each an integer ({@code floating} false: {@code l})
   * or a floating-point number ({@code d}): -1, 0 or 1. A LONG and a DOUBLE compare as the numbers
   * they are, not as the LONG rounded to a DOUBLE (9007199254740993 > 9007199254740992.0); -0.0
   * equals 0. NaN, which records do not hold but arithmetic can make, is above every number and
   * equal to itself, as in {@link Double#compare}.
   */
  public static int compareNumbers(
      boolean floatingA, long la, double da, boolean floatingB, long lb, double db) {
    if (!floatingA) {
      return floatingB ? compare(la, db) : Long.compare(la, lb);
    }
    return floatingB ? compare(da, db) : -compare(lb, da);
  }

  /** Two doubles by value: -0.0 equals 0.0; NaN as {@link Double#compare} orders it. */
  public static int compare(double a, double b) {
    if (a < b) {
      return -1;
    }
    if (a > b) {
      return 1;
    }
    return a == b ? 0 : Double.compare(a, b);
  }

  /** A long and a double by their exact values; NaN is above every long. */
  public static int compare(long a, double b) {
    if (Double.isNaN(b) || b >= 0x1p63) {
      return -1;
    }
    if (b < -0x1p63) {
      return 1;
    }
    long whole = (long) b; // exact: b is in the range of a long, truncated towards zero
    if (a != whole) {
      return a < whole ? -1 : 1;
    }
    double fraction = b - whole; // exact: the part of b after its whole part
    return fraction > 0 ? -1 : fraction < 0 ? 1 : 0;
  }

  private static final long M1 = 0x9E3779B97F4A7C15L;
  private static final long M2 = 0xC2B2AE3D27D4EB4FL;

  /** A 64-bit mix of a long (the finaliser of SplitMix64). */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A 64-bit hash of a string's characters. */
  public static long hash(CharSequence s) {
    long h = M2 ^ s.length();
    int n = s.length();
    int i = 0;
    for (; i + 3 < n; i += 4) {
      long chunk =
          (long) s.charAt(i)
              | ((long) s.charAt(i + 1) << 16)
              | ((long) s.charAt(i + 2) << 32)
              | ((long) s.charAt(i + 3) << 48);
      h = (h ^ mix(chunk)) * M1;
    }
    for (; i < n; i++) {
      h = (h ^ s.charAt(i)) * M1;
    }
    return mix(h);
  }

  /** A 64-bit hash of an integral number; numbers equal by {@link #equal} hash alike. */
  public static long hash(long v) {
    return mix(v + M1);
  }

  /** A 64-bit hash of a double; integral doubles hash as the equal long (and -0.0 as 0). */
  public static long hash(double v) {
    long asLong = (long) v;
    if (asLong == v && v < 0x1p63) {
      return hash(asLong);
    }
    return mix(Double.doubleToLongBits(v) ^ M2);
  }

  public static long hash(boolean v) {
    return v ? 0x5DEECE66DL : 0x2545F4914F6CDD1DL;
  }

  public static final long NULL_HASH = 0x6A09E667F3BCC909L;

  /** A 64-bit hash of a boxed value, consistent with {@link #equal}. */
  public static long hash(Object v) {
    byte k = kindOf(v);
    switch (k) {
      case Record.NULL:
        return NULL_HASH;
      case Record.BOOLEAN:
        return hash(((Boolean) v).booleanValue());
      case Record.INTEGER:
      case Record.LONG:
        return hash(((Number) v).longValue());
      case Record.FLOAT:
      case Record.DOUBLE:
        return hash(((Number) v).doubleValue());
      case Record.STRING:
        return hash((String) v);
      default:
        return hash(v.toString());
    }
  }

  /** Combines the hash of the next element of a tuple into the running hash. */
  public static long combine(long running, long next) {
    return mix(running * 31 + next);
  }
}

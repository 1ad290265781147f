package io.spyglass.bullet.diff;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The documented differences from Bullet a generated query may meet. Each is an entry of {@code
 * known-differences.txt}, which points at its item in docs/bql.md.
 *
 * <p>A difference that comes from values in the records has a trigger remover: the records with
 * those values taken out or made harmless. A disagreement blamed on such a difference must go away
 * when the query runs again over records without the trigger; otherwise the tag hid something else.
 * Differences that come from the query's text alone have none.
 */
enum Difference {
  /** Bullet casts strings and booleans that SUM and the others meet: {@code x} only numbers. */
  AGGREGATES_SKIP(
      r -> map(r, (name, v) -> name.equals("x") && !(v instanceof Number) ? Fields.DROP : v)),
  CAST_TO_BOOLEAN(null),
  STRING_CONCAT(null),
  /**
   * Bullet turns keys into strings, so {@code 7} and {@code '7'} merge, and a missing key becomes
   * {@code "null"}: no string that reads as a number or a boolean. Key columns are then compared as
   * the strings Bullet makes of them (see {@link DifferentialTest}).
   */
  TYPED_KEYS(r -> deep(r, v -> v instanceof String s && readsAsScalar(s) ? "#" + s : v)),
  /** Bullet drops records whose key is {@code ''}: no empty string. */
  EMPTY_STRING_KEY(r -> deep(r, v -> "".equals(v) ? "_" : v)),
  LIMIT_AFTER_ORDER(null),
  STRICTER(null),
  NULL_LOGIC(null),
  /** Bullet's records cannot hold NULL: no field whose value is NULL. */
  NULL_FIELDS(r -> map(r, (name, v) -> v == null ? Fields.DROP : v)),
  IF_TYPES(null),
  SAME_AGGREGATE_TWICE(null),
  MAP_ORDER(null),
  TOP_K_TIES(null);

  private final UnaryOperator<Map<String, Object>> withoutTrigger;

  Difference(UnaryOperator<Map<String, Object>> withoutTrigger) {
    this.withoutTrigger = withoutTrigger;
  }

  /** Whether records can be rid of what triggers this difference. */
  boolean triggeredByRecords() {
    return withoutTrigger != null;
  }

  /** The records without what triggers this difference (see {@link #triggeredByRecords()}). */
  List<Map<String, Object>> withoutTrigger(List<Map<String, Object>> records) {
    List<Map<String, Object>> out = new ArrayList<>(records.size());
    for (Map<String, Object> r : records) {
      out.add(withoutTrigger.apply(r));
    }
    return out;
  }

  private static boolean readsAsScalar(String s) {
    if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
      return true;
    }
    try {
      Double.parseDouble(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Not in an enum constant's scope, so that its lambdas may refer to it. */
  private static final class Fields {
    static final Object DROP = new Object();
  }

  private interface FieldRule {
    /** The new value of a top-level field, or {@link Fields#DROP}. */
    Object apply(String name, Object value);
  }

  private static Map<String, Object> map(Map<String, Object> record, FieldRule rule) {
    Map<String, Object> out = new LinkedHashMap<>();
    record.forEach(
        (name, v) -> {
          Object w = rule.apply(name, v);
          if (w != Fields.DROP) {
            out.put(name, w);
          }
        });
    return out;
  }

  /** Every value, at any depth, through {@code f}; map keys are left as they are. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> deep(Map<String, Object> record, UnaryOperator<Object> f) {
    return (Map<String, Object>) deepValue(record, f);
  }

  private static Object deepValue(Object v, UnaryOperator<Object> f) {
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, x) -> out.put((String) k, deepValue(x, f)));
      return out;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(x -> out.add(deepValue(x, f)));
      return out;
    }
    return f.apply(v);
  }
}

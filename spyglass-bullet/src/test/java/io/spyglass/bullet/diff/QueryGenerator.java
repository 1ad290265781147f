package io.spyglass.bullet.diff;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * A grammar of BQL generating queries of every kind over {@link RecordGenerator}' fields. Each
 * query says which documented differences it may meet ({@link Difference}), from what it reads: an
 * aggregate of the mixed field {@code x}, a key that is not a string, and so on. Any other
 * disagreement is unexplained.
 */
final class QueryGenerator {
  /**
   * A generated query; {@code ordered} when its records come in an order both must keep; {@code
   * keyColumns} the result columns that hold group keys (Bullet makes them strings).
   */
  record Generated(
      String bql, Set<Difference> mayDiffer, boolean ordered, Set<String> keyColumns) {}

  private final Random random;
  private final Set<Difference> tags = new LinkedHashSet<>();
  private final Set<String> keyColumns = new LinkedHashSet<>();

  QueryGenerator(Random random) {
    this.random = random;
  }

  Generated next() {
    tags.clear();
    keyColumns.clear();
    int kind = random.nextInt(100);
    String bql;
    boolean ordered = false;
    if (kind < 22) {
      bql = raw();
      ordered = true;
    } else if (kind < 30) {
      bql = "SELECT * FROM STREAM(MAX, TIME)" + where() + limit(true);
      tags.add(Difference.NULL_FIELDS);
      ordered = true;
    } else if (kind < 48) {
      bql = group();
    } else if (kind < 54) {
      bql = groupAll();
    } else if (kind < 60) {
      bql = distinct();
    } else if (kind < 65) {
      bql = countDistinct();
    } else if (kind < 70) {
      bql = top();
    } else if (kind < 76) {
      bql = distribution();
    } else if (kind < 82) {
      bql = lateralView();
    } else if (kind < 86) {
      bql = outer();
    } else if (kind < 93) {
      bql = recordWindow();
      ordered = true;
    } else {
      bql = invalid();
    }
    return new Generated(bql, Set.copyOf(tags), ordered, Set.copyOf(keyColumns));
  }

  // ---------------------------------------------------------------- query kinds

  private String raw() {
    List<String> items = new ArrayList<>();
    for (int i = 1 + random.nextInt(4); i > 0; i--) {
      items.add(value(2));
    }
    return "SELECT "
        + String.join(", ", distinctItems(items))
        + " FROM STREAM(MAX, TIME)"
        + where()
        + limit(true);
  }

  private String group() {
    List<String> keys = new ArrayList<>();
    for (int i = 1 + random.nextInt(2); i > 0; i--) {
      keys.add(key());
    }
    keys = distinctItems(keys);
    keyColumns.addAll(keys);
    List<String> items = new ArrayList<>(keys);
    for (int i = 1 + random.nextInt(3); i > 0; i--) {
      items.add(metric());
    }
    sameAggregateTwice(items);
    String having = "";
    if (random.nextInt(4) == 0) {
      having = " HAVING COUNT(*) " + pick(">", ">=", "<") + " " + random.nextInt(4);
    }
    String order = "";
    String limit = "";
    if (random.nextInt(4) == 0) {
      order = " ORDER BY COUNT(*) DESC";
      if (random.nextBoolean()) {
        limit = " LIMIT " + (1 + random.nextInt(4));
        tags.add(Difference.LIMIT_AFTER_ORDER);
      }
    }
    return "SELECT "
        + String.join(", ", distinctItems(items))
        + " FROM STREAM(MAX, TIME)"
        + where()
        + " GROUP BY "
        + String.join(", ", keys)
        + having
        + order
        + limit;
  }

  private String groupAll() {
    List<String> items = new ArrayList<>();
    for (int i = 1 + random.nextInt(4); i > 0; i--) {
      items.add(metric());
    }
    sameAggregateTwice(items);
    return "SELECT "
        + String.join(", ", distinctItems(items))
        + " FROM STREAM(MAX, TIME)"
        + where();
  }

  private String distinct() {
    List<String> keys = new ArrayList<>();
    for (int i = 1 + random.nextInt(2); i > 0; i--) {
      keys.add(key());
    }
    keyColumns.addAll(keys);
    return "SELECT DISTINCT "
        + String.join(", ", distinctItems(keys))
        + " FROM STREAM(MAX, TIME)"
        + where();
  }

  private String countDistinct() {
    List<String> keys = new ArrayList<>();
    for (int i = 1 + random.nextInt(2); i > 0; i--) {
      keys.add(key());
    }
    String alias = random.nextBoolean() ? " AS c" : "";
    return "SELECT COUNT(DISTINCT "
        + String.join(", ", distinctItems(keys))
        + ")"
        + alias
        + " FROM STREAM(MAX, TIME)"
        + where();
  }

  private String top() {
    List<String> keys = new ArrayList<>();
    for (int i = 1 + random.nextInt(2); i > 0; i--) {
      keys.add(key());
    }
    String threshold = random.nextBoolean() ? ", " + (1 + random.nextInt(3)) : "";
    String alias = random.nextBoolean() ? " AS cnt" : "";
    keyColumns.addAll(keys);
    tags.add(Difference.TOP_K_TIES);
    return "SELECT TOP("
        + (1 + random.nextInt(5))
        + threshold
        + ", "
        + String.join(", ", distinctItems(keys))
        + ")"
        + alias
        + " FROM STREAM(MAX, TIME)"
        + where();
  }

  private String distribution() {
    String field = numericField();
    String function = pick("QUANTILE", "FREQ", "CUMFREQ");
    String points;
    if (function.equals("QUANTILE")) {
      points =
          pick(
              "LINEAR, " + (2 + random.nextInt(5)), "REGION, 0, 1, 0.25", "MANUAL, 0, 0.5, 0.9, 1");
    } else {
      points = pick("LINEAR, " + (2 + random.nextInt(5)), "REGION, 0, 30, 5", "MANUAL, 1, 5.5, 20");
    }
    return "SELECT "
        + function
        + "("
        + field
        + ", "
        + points
        + ") FROM STREAM(MAX, TIME)"
        + where();
  }

  private String lateralView() {
    if (random.nextBoolean()) {
      String outer = random.nextBoolean() ? "OUTER " : "";
      return "SELECT id, t FROM STREAM(MAX, TIME) LATERAL VIEW "
          + outer
          + "EXPLODE("
          + pick("l", "ln")
          + ") AS t"
          + where()
          + limit(false);
    }
    String limit = limit(false);
    if (!limit.isEmpty()) {
      tags.add(Difference.MAP_ORDER);
    }
    return "SELECT id, k, v FROM STREAM(MAX, TIME) LATERAL VIEW EXPLODE("
        + pick("ms", "m")
        + ") AS (k, v)"
        + where()
        + limit;
  }

  private String outer() {
    String inner = "SELECT s, COUNT(*) AS c FROM STREAM(MAX, TIME)" + where() + " GROUP BY s";
    tags.add(Difference.EMPTY_STRING_KEY);
    tags.add(Difference.TYPED_KEYS);
    keyColumns.add("s");
    return pick(
        "SELECT COUNT(*) AS groups FROM (" + inner + ")",
        "SELECT SUM(c) AS total, MAX(c) AS most FROM (" + inner + ")",
        "SELECT s FROM (" + inner + ") WHERE c > 1");
  }

  private String recordWindow() {
    int k = 1 + random.nextInt(4);
    String window =
        random.nextBoolean()
            ? "TUMBLING(" + k + ", RECORD)"
            : "EVERY(" + k + ", RECORD, FIRST, " + k + ", RECORD)";
    String select = random.nextBoolean() ? "*" : "id, " + value(1);
    if (select.equals("*")) {
      tags.add(Difference.NULL_FIELDS);
    }
    return "SELECT " + select + " FROM STREAM(MAX, TIME)" + where() + " WINDOWING " + window;
  }

  private String invalid() {
    String bql =
        pick(
            "SELECT COUNT(*), TOP(2, s) FROM STREAM(MAX, TIME)",
            "SELECT FOO(n) FROM STREAM(MAX, TIME)",
            "SELECT FROM STREAM(MAX, TIME)",
            "SELECT n, COUNT(*) FROM STREAM(MAX, TIME) GROUP BY s",
            "SELECT n FROM STREAM(MAX, TIME) WHERE n >",
            "SELECT QUANTILE(n, LINEAR, 3), COUNT(*) FROM STREAM(MAX, TIME)",
            "SELECT 'a' + 1 AS x FROM STREAM(MAX, TIME)",
            "SELECT n FROM STREAM(MAX, TIME) WHERE 'x' = 1",
            "SELECT COUNT(*) FROM STREAM(MAX, TIME) WINDOWING TUMBLING(2, RECORD)",
            "SELECT n FROM STREAM(MAX, TIME) WHERE 1",
            "SELECT TOP(0, s) FROM STREAM(MAX, TIME)",
            "SELECT n FROM STREAM(MAX, TIME) LIMIT 20000",
            "SELECT SUM('a') FROM STREAM(MAX, TIME)");
    if (bql.contains("WHERE 1")
        || bql.contains("TOP(0")
        || bql.contains("20000")
        || bql.contains("SUM('a')")) {
      tags.add(Difference.STRICTER);
    }
    return bql;
  }

  // ---------------------------------------------------------------- pieces

  private String where() {
    return random.nextInt(3) == 0 ? "" : " WHERE " + condition(2);
  }

  private String limit(boolean raw) {
    return random.nextInt(3) == 0 ? " LIMIT " + (1 + random.nextInt(raw ? 30 : 10)) : "";
  }

  /** A key of a group: a field or subfield of primitive values, sometimes missing. */
  private String key() {
    String key = pick("s", "s", "b", "n", "x", "m.k", "ms.k", "ms['j']", "lm[0].k");
    // every key may be missing, which Bullet makes the string "null", or not a string
    tags.add(Difference.TYPED_KEYS);
    tags.add(Difference.EMPTY_STRING_KEY);
    return key;
  }

  /** Tags a list of select items that holds the same aggregate twice under two names. */
  private void sameAggregateTwice(List<String> items) {
    List<String> bare = new ArrayList<>();
    for (String item : items) {
      bare.add(item.replaceAll(" AS v[0-9]$", ""));
    }
    if (new LinkedHashSet<>(bare).size() < new LinkedHashSet<>(items).size()) {
      tags.add(Difference.SAME_AGGREGATE_TWICE);
    }
  }

  private String metric() {
    String field = numericField();
    String metric =
        pick(
            "COUNT(*)",
            "SUM(" + field + ")",
            "AVG(" + field + ")",
            "MIN(" + field + ")",
            "MAX(" + field + ")");
    return random.nextInt(4) == 0 ? metric + " AS " + pick("v1", "v2", "v3") : metric;
  }

  /** A field to aggregate: clean numbers, or the mixed field. */
  private String numericField() {
    String f = pick("n", "n", "d", "d", "x", "m.k");
    if (f.equals("x")) {
      tags.add(Difference.AGGREGATES_SKIP);
    }
    return f;
  }

  /** A boolean condition. */
  private String condition(int depth) {
    if (depth > 0 && random.nextInt(3) == 0) {
      String op = pick("AND", "OR", "XOR", "AND", "OR");
      tags.add(Difference.NULL_LOGIC);
      return paren(condition(depth - 1)) + " " + op + " " + paren(condition(depth - 1));
    }
    if (depth > 0 && random.nextInt(8) == 0) {
      return "NOT (" + condition(depth - 1) + ")";
    }
    return switch (random.nextInt(22)) {
      case 0 -> "n " + cmp() + " " + random.nextInt(20);
      case 1 -> "d " + cmp() + " " + pick("2.5", "0", "5", "1.25");
      case 2 -> "s " + pick("=", "!=") + " '" + pick(RecordGenerator.STRINGS) + "'";
      case 3 -> "s " + cmp() + " '" + pick(RecordGenerator.STRINGS) + "'";
      case 4 -> "b" + pick("", " = true", " = false", " != true");
      case 5 -> "NOT b";
      case 6 ->
          "n IN ("
              + random.nextInt(10)
              + ", "
              + random.nextInt(10)
              + ", "
              + random.nextInt(30)
              + ")";
      case 7 -> "s " + pick("IN", "NOT IN") + " ('a', 'abc', '')";
      case 8 ->
          "n "
              + pick("BETWEEN", "NOT BETWEEN")
              + " ("
              + random.nextInt(5)
              + ", "
              + (5 + random.nextInt(20))
              + ")";
      case 9 ->
          "s "
              + pick("RLIKE", "NOT RLIKE")
              + " '"
              + pick("a.*", ".*c", "[ab]", "a\\.c", ".*")
              + "'";
      case 10 -> pick("n", "s", "m", "l", "x", "m.k") + " IS " + pick("", "NOT ") + "NULL";
      case 11 -> "SIZEOF(" + pick("l", "ln", "m", "s") + ") " + cmp() + " " + random.nextInt(3);
      case 12 ->
          "CONTAINSKEY(" + pick("m", "ms", "mm", "lm") + ", '" + pick("k", "j", "é", "z") + "')";
      case 13 ->
          "CONTAINSVALUE(" + pick("l", "ms", "lm") + ", '" + pick(RecordGenerator.STRINGS) + "')";
      case 14 -> "m.k " + cmp() + " " + random.nextInt(5);
      case 15 -> "ln[0] = " + random.nextInt(5);
      case 16 -> "x " + pick("=", "!=", ">") + " " + pick("7", "'7'", "'abc'", "true", "2.5");
      case 17 -> "n = ANY [1, 2, " + random.nextInt(20) + "]";
      case 18 ->
          "n " + pick("<", ">=") + " ALL [" + random.nextInt(10) + ", " + random.nextInt(20) + "]";
      case 19 -> "SIZEIS(l, " + random.nextInt(3) + ")";
      case 20 -> "mm.a.k " + cmp() + " " + random.nextInt(5);
      default -> "s RLIKE ANY ['a.*', '" + pick("b", "7", "") + "']";
    };
  }

  private static String paren(String s) {
    return "(" + s + ")";
  }

  private String cmp() {
    return pick("=", "!=", "<", "<=", ">", ">=");
  }

  /** A value for the select list. */
  private String value(int depth) {
    if (depth > 0 && random.nextInt(4) == 0) {
      return condition(1);
    }
    return switch (random.nextInt(30)) {
      case 0 -> "n";
      case 1 -> "d";
      case 2 -> "s";
      case 3 -> "b";
      case 4 -> "x";
      case 5 -> "m";
      case 6 -> "l";
      case 7 -> "n + " + random.nextInt(5);
      case 8 -> "n * d";
      case 9 -> "n / " + pick("2", "3", "0", "2.0");
      case 10 -> "n % " + pick("2", "3", "0");
      case 11 -> "ABS(" + pick("n", "d") + ")";
      case 12 -> pick("UPPER", "LOWER", "TRIM") + "(s)";
      case 13 -> "SUBSTRING(s, " + pick("1", "2", "-1", "0") + pick("", ", 1", ", 2") + ")";
      case 14 -> "SIZEOF(" + pick("l", "m", "s", "ln") + ")";
      case 15 ->
          "CAST("
              + pick("n", "d", "b")
              + " AS "
              + pick("DOUBLE", "LONG", "STRING", "INTEGER", "FLOAT", "BOOLEAN")
              + ")";
      case 16 -> castString();
      case 17 -> conditional();
      case 18 -> "HASH(" + pick("s", "n", "b") + ")";
      case 19 -> pick("m.k", "m['j']", "ms.k", "ms['k']", "mm.a.k", "mm['b'].j");
      case 20 -> pick("l[0]", "ln[1]", "lm[0].k", "lm[1]['j']");
      case 21 -> "SIZEIS(" + pick("l", "m") + ", " + random.nextInt(3) + ")";
      case 22 -> "FILTER(l, [true, false, true])";
      case 23 -> "d - " + pick("1", "0.5", "n");
      case 24 -> "(n + 1) * 2";
      case 25 -> "CONTAINSKEY(m, 'k')";
      case 26 -> concatenation();
      case 27 -> "n " + pick("IN", "NOT IN") + " (1, 2, 3)";
      case 28 -> "s RLIKE 'a.*'";
      default -> "x";
    };
  }

  private String conditional() {
    String then = pick("1", "'y'", "n");
    String otherwise = pick("2", "'n'", "n");
    if (then.startsWith("'") != otherwise.startsWith("'")) {
      tags.add(Difference.IF_TYPES);
    }
    tags.add(Difference.NULL_LOGIC); // its condition may compare with a missing value
    return "IF(" + condition(0) + ", " + then + ", " + otherwise + ")";
  }

  private String castString() {
    String type = pick("DOUBLE", "LONG", "BOOLEAN", "STRING", "INTEGER");
    if (type.equals("BOOLEAN")) {
      tags.add(Difference.CAST_TO_BOOLEAN);
    }
    return "CAST(" + pick("s", "x") + " AS " + type + ")";
  }

  private String concatenation() {
    tags.add(Difference.STRING_CONCAT);
    return pick("s + s", "x + n", "s + x");
  }

  private static List<String> distinctItems(List<String> items) {
    return new ArrayList<>(new LinkedHashSet<>(items));
  }

  @SafeVarargs
  private <T> T pick(T... items) {
    return items[random.nextInt(items.length)];
  }
}

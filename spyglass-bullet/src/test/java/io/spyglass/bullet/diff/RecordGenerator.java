package io.spyglass.bullet.diff;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded records of every value shape both engines can hold: numbers, numbers as strings, strings
 * with unicode and the empty string, booleans, NULLs and missing fields, empty and nested maps and
 * lists, lists of maps. Field {@code x} mixes types across records.
 */
final class RecordGenerator {
  static final String[] STRINGS = {"a", "b", "abc", "a.c", "", "é", "漢字", "7", "2.5", "x y", "B"};

  private RecordGenerator() {}

  static List<Map<String, Object>> generate(Random random, int count) {
    List<Map<String, Object>> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("id", (long) i);
      maybe(random, r, "n", () -> (long) (random.nextInt(34) - 3));
      maybe(
          random,
          r,
          "d",
          () ->
              random.nextInt(4) == 0
                  ? (double) random.nextInt(5)
                  : round(random.nextDouble() * 10 - 2));
      maybe(random, r, "s", () -> pick(random, STRINGS));
      maybe(random, r, "b", random::nextBoolean);
      maybe(random, r, "x", () -> mixed(random));
      maybe(random, r, "m", () -> longMap(random));
      maybe(random, r, "ms", () -> stringMap(random));
      maybe(random, r, "l", () -> stringList(random));
      maybe(random, r, "ln", () -> longList(random));
      maybe(
          random,
          r,
          "lm",
          () -> {
            // never empty: Bullet's records type an empty list as a list of strings, not of maps
            List<Object> list = new ArrayList<>();
            for (int k = 1 + random.nextInt(2); k > 0; k--) {
              list.add(stringMap(random));
            }
            return list;
          });
      maybe(
          random,
          r,
          "mm",
          () -> {
            Map<String, Object> map = new LinkedHashMap<>();
            for (String key : List.of("a", "b")) {
              if (random.nextBoolean()) {
                map.put(key, longMap(random));
              }
            }
            return map;
          });
      records.add(r);
    }
    return records;
  }

  private interface Value {
    Object get();
  }

  /** Most often a value, sometimes missing, sometimes NULL. */
  private static void maybe(Random random, Map<String, Object> r, String name, Value value) {
    int roll = random.nextInt(10);
    if (roll == 0) {
      return;
    }
    r.put(name, roll == 1 ? null : value.get());
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }

  private static Object mixed(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> (long) random.nextInt(10);
      case 1 -> round(random.nextDouble() * 10);
      case 2 -> String.valueOf(random.nextInt(10));
      case 3 -> pick(random, STRINGS);
      case 4 -> random.nextBoolean();
      default -> "true";
    };
  }

  private static Map<String, Object> longMap(Random random) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (String key : List.of("k", "j", "é")) {
      if (random.nextInt(3) > 0) {
        map.put(key, (long) random.nextInt(6));
      }
    }
    return map;
  }

  private static Map<String, Object> stringMap(Random random) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (String key : List.of("k", "j")) {
      if (random.nextInt(3) > 0) {
        map.put(key, pick(random, STRINGS));
      }
    }
    return map;
  }

  private static List<Object> stringList(Random random) {
    List<Object> list = new ArrayList<>();
    for (int k = random.nextInt(4); k > 0; k--) {
      list.add(pick(random, STRINGS));
    }
    return list;
  }

  private static List<Object> longList(Random random) {
    List<Object> list = new ArrayList<>();
    for (int k = random.nextInt(4); k > 0; k--) {
      list.add((long) random.nextInt(6));
    }
    return list;
  }

  static <T> T pick(Random random, T[] items) {
    return items[random.nextInt(items.length)];
  }
}

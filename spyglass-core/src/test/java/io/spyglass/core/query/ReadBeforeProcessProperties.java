package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Reading records from their bytes through {@link FilterSet#read} (which rules records out from
 * their raw values before decoding them) gives every query the records, and only the records, that
 * parsing every record first gives it; malformed records are refused the same way.
 */
class ReadBeforeProcessProperties {
  private static final String VIRTUAL = "_v";
  private static long ruledOut;

  @Property(tries = 100)
  void readingRawGivesWhatParsingFirstGives(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 12) int queryCount) {
    Random random = new Random(seed);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < queryCount; i++) {
      String where =
          switch (random.nextInt(8)) {
            case 0 -> VIRTUAL + " = " + random.nextInt(3);
            case 1 -> VIRTUAL + " > " + random.nextInt(3);
            case 2 -> "s = '" + (random.nextBoolean() ? "é\"x" : "a b") + "'";
            default -> QueryIndexProperties.randomPredicate(random);
          };
      texts.add(
          (random.nextBoolean() ? "SELECT * " : "SELECT COUNT(*) ")
              + "FROM STREAM(10000, TIME) WHERE "
              + where
              + (texts.size() % 2 == 0 ? " LIMIT 500" : ""));
    }
    List<byte[]> records = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      records.add(json(random));
    }

    Map<String, List<Object>> parsedFirst = new java.util.HashMap<>();
    Map<String, List<Object>> readRaw = new java.util.HashMap<>();
    FilterSet parsing = filterSet(parsedFirst);
    FilterSet raw = filterSet(readRaw);
    raw.virtualFields(Set.of(VIRTUAL));
    for (int i = 0; i < texts.size(); i++) {
      Query q = Query.parse("q" + i, texts.get(i), QueryLimits.DEFAULTS, 0L);
      parsing.add(q);
      raw.add(q);
    }

    JsonRecordReader reader = new JsonRecordReader();
    Record a = new Record();
    Record b = new Record();
    long malformedParsing = 0;
    long malformedRaw = 0;
    for (int i = 0; i < records.size(); i++) {
      byte[] json = records.get(i);
      long virtual = i % 4;
      reader.select(parsing.referencedFields());
      try {
        reader.read(json, 0, json.length, a);
        a.putLong(VIRTUAL, virtual);
        parsing.process(a);
      } catch (MalformedRecordException e) {
        malformedParsing++;
      }
      try {
        if (raw.read(json, 0, json.length, b)) {
          b.putLong(VIRTUAL, virtual);
          raw.process(b);
        } else {
          ruledOut++;
        }
      } catch (MalformedRecordException e) {
        malformedRaw++;
      }
    }
    parsing.flush();
    raw.flush();

    assertThat(malformedRaw).isEqualTo(malformedParsing);
    assertThat(raw.processed()).isEqualTo(parsing.processed());
    for (int i = 0; i < texts.size(); i++) {
      String id = "q" + i;
      assertThat(raw.stats(id).matched())
          .as("seed %d, %s", seed, texts.get(i))
          .isEqualTo(parsing.stats(id).matched());
      assertThat(readRaw.getOrDefault(id, List.of()))
          .as("seed %d, %s", seed, texts.get(i))
          .isEqualTo(parsedFirst.getOrDefault(id, List.of()));
    }
    assertThat(raw.evaluations()).isLessThanOrEqualTo(parsing.evaluations());
  }

  @AfterContainer
  static void someRecordsWereRuledOutFromTheirBytes() {
    assertThat(ruledOut).isPositive();
  }

  /** A filter set whose flushed partials are collected by query: raw records or counts. */
  private static FilterSet filterSet(Map<String, List<Object>> out) {
    return new FilterSet(
        QueryLimits.DEFAULTS,
        () -> 0L,
        (q, p) -> out.computeIfAbsent(q.id(), k -> new ArrayList<>()).addAll(contents(p)));
  }

  private static List<Object> contents(Partial p) {
    return new ArrayList<>(p.rows());
  }

  /** The JSON of a random record of the index property, written in varied ways, or garbage. */
  private static byte[] json(Random random) {
    Record r = QueryIndexProperties.randomRecord(random);
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < r.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append('"').append(r.nameAt(i)).append("\":");
      value(sb, r.valueAt(i), random);
    }
    if (random.nextInt(5) == 0) {
      sb.append(sb.length() > 1 ? "," : "")
          .append("\"s\":\"")
          .append(random.nextBoolean() ? "é\\\"x" : "a b")
          .append('"');
    }
    if (random.nextInt(6) == 0) {
      sb.append(sb.length() > 1 ? "," : "").append("\"big\":12345678901234567890123");
    }
    sb.append('}');
    if (random.nextInt(20) == 0) {
      sb.setLength(random.nextInt(sb.length()));
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void value(StringBuilder sb, Object v, Random random) {
    if (v instanceof String s) {
      sb.append(random.nextInt(4) == 0 ? escaped(s) : "\"" + s + "\"");
    } else if (v instanceof Double d && random.nextBoolean()) {
      sb.append(d.longValue()).append("e0");
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      String sep = "";
      for (Map.Entry<?, ?> e : m.entrySet()) {
        sb.append(sep).append('"').append(e.getKey()).append("\":");
        value(sb, e.getValue(), random);
        sep = ",";
      }
      sb.append('}');
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        sb.append(i > 0 ? "," : "");
        value(sb, l.get(i), random);
      }
      sb.append(']');
    } else {
      sb.append(v);
    }
  }

  private static String escaped(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      sb.append(String.format("\\u%04x", (int) c));
    }
    return sb.append('"').toString();
  }
}

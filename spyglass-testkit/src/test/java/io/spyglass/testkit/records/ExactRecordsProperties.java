package io.spyglass.testkit.records;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.partial.Partial;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.Query;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.ResultJson;
import io.spyglass.testkit.records.HostileLines.Line;
import io.spyglass.testkit.records.ReferencePredicates.Predicate;
import io.spyglass.testkit.records.StrictJson.Verdict;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Spyglass reads any bytes as a strict JSON reader does and answers every query as a reference
 * evaluation of its condition does (docs/bql.md), however the query runs: alone, beside 1,000
 * indexed queries, with its condition filed by the query index or not, with records read through
 * the filter-before-parse scan ({@link FilterSet#read}, as the embedded workers and the Flink job
 * read them), through {@link JsonRecordReader} whole, or parsed first by the reference. Every
 * refused line is refused once, for the reason the reference gives. Whole records ({@code SELECT
 * *}) are the reference's map, in its order, and are written back as they were read.
 *
 * <p>Lines of every kind {@link HostileLines} makes (the findings S-1 to S-10 among them);
 * conditions of every kind {@link ReferencePredicates} makes. jqwik prints the seed of a failing
 * try.
 */
class ExactRecordsProperties {
  private static final int LINES = 120;
  private static final int OTHERS = 1_000;
  private static final JsonFactory JSON = new JsonFactory();

  /** 1,000 queries the index files under {@code id}, parsed once for every try. */
  private static final List<Query> OTHER_QUERIES = new ArrayList<>();

  private static final Map<String, Integer> KINDS = new TreeMap<>();
  private static final Map<BadRecord, Integer> REASONS = new TreeMap<>();
  private static long matched;

  static {
    ReferencePredicates p = new ReferencePredicates(0);
    for (int i = 0; i < OTHERS; i++) {
      // a few of them match ids the lines have ("k0".."k2", "v", "a")
      String constant = i < 3 ? "k" + i : i == 3 ? "v" : i == 4 ? "a" : "other" + i;
      OTHER_QUERIES.add(
          Query.parse(
              "other" + i,
              "SELECT COUNT(*) AS c FROM STREAM(MAX, TIME) WHERE " + p.idEquals(constant).bql(),
              QueryLimits.DEFAULTS,
              0L));
    }
  }

  /** One query of a try: its condition, and whether it keeps whole records or counts. */
  private record Spec(String id, Predicate where, boolean whole) {
    Query query(Predicate condition) {
      String text =
          (whole ? "SELECT *" : "SELECT COUNT(*) AS c")
              + " FROM STREAM(MAX, TIME) WHERE "
              + condition.bql()
              + (whole ? " LIMIT 1000" : "");
      return Query.parse(id, text, QueryLimits.DEFAULTS, 0L);
    }
  }

  /** What a query gave: how many records matched, and the whole records it kept. */
  private record Answer(long matched, List<Map<String, Object>> records) {}

  /** How the records of a run are read. */
  private enum Path {
    SCAN,
    WHOLE,
    PARSED_FIRST
  }

  @Property(tries = 40)
  void everyWayOfRunningAQueryGivesTheStrictAnswer(@ForAll long seed) {
    List<Line> lines = new HostileLines(seed).lines(LINES);
    StrictJson strict = new StrictJson();
    List<Verdict> verdicts = new ArrayList<>();
    for (Line line : lines) {
      Verdict v = strict.read(line.bytes());
      verdicts.add(v);
      KINDS.merge(line.kind() + (v.accepted() ? "" : " (refused)"), 1, Integer::sum);
      if (!v.accepted()) {
        REASONS.merge(v.refused(), 1, Integer::sum);
      }
    }
    Random random = new Random(seed);
    ReferencePredicates predicates = new ReferencePredicates(seed);
    List<Spec> specs = new ArrayList<>();
    for (int i = 0, n = 1 + random.nextInt(8); i < n; i++) {
      specs.add(new Spec("q" + i, predicates.next(2), random.nextBoolean()));
    }

    Map<String, Answer> expected = new LinkedHashMap<>();
    for (Spec s : specs) {
      List<Map<String, Object>> kept = new ArrayList<>();
      for (Verdict v : verdicts) {
        if (v.accepted() && Boolean.TRUE.equals(s.where().test(v.record()))) {
          kept.add(v.record());
        }
      }
      expected.put(s.id(), new Answer(kept.size(), s.whole() ? kept : List.of()));
      matched += kept.size();
    }

    String context = "seed " + seed + "\n" + describe(specs);
    List<Query> queries = specs.stream().map(s -> s.query(s.where())).toList();
    BadRecord[] refused = new BadRecord[lines.size()];
    check(context + "together", expected, run(queries, lines, verdicts, Path.SCAN, refused));
    for (int i = 0; i < lines.size(); i++) {
      assertThat(refused[i])
          .as("%s\nline %d, %s", context, i, lines.get(i).text())
          .isEqualTo(verdicts.get(i).refused());
    }
    List<Query> beside = new ArrayList<>(queries);
    beside.addAll(OTHER_QUERIES);
    Map<String, Answer> withOthers = run(beside, lines, verdicts, Path.SCAN, null);
    check(context + "beside 1,000 others", expected, withOthers);
    for (int i = 0; i < 5; i++) {
      Predicate p = predicates.idEquals(i < 3 ? "k" + i : i == 3 ? "v" : "a");
      long n =
          verdicts.stream()
              .filter(v -> v.accepted() && Boolean.TRUE.equals(p.test(v.record())))
              .count();
      assertThat(withOthers.get("other" + i).matched()).as(context + p.bql()).isEqualTo(n);
    }
    List<Query> unindexed =
        specs.stream().map(s -> s.query(ReferencePredicates.unindexed(s.where()))).toList();
    check(context + "unindexed", expected, run(unindexed, lines, verdicts, Path.SCAN, null));
    check(context + "read whole", expected, run(queries, lines, verdicts, Path.WHOLE, null));
    check(
        context + "parsed first by the reference",
        expected,
        run(queries, lines, verdicts, Path.PARSED_FIRST, null));
    for (Query q : queries) {
      Map<String, Answer> alone = run(List.of(q), lines, verdicts, Path.SCAN, null);
      assertThat(alone.get(q.id()))
          .as("%salone: %s", context, q.text())
          .isEqualTo(expected.get(q.id()));
    }
  }

  @AfterContainer
  static void everyKindOfLineWasMet() {
    System.out.println("lines by kind: " + KINDS + "\nrefused by reason: " + REASONS);
    for (String kind :
        List.of(
            "utf8Surrogate (refused)",
            "nameFF (refused)",
            "UTF-16BE (refused)",
            "badUtf8 (refused)",
            "escapes",
            "longNumber",
            "longNumber (refused)",
            "longName",
            "longName (refused)",
            "repeated",
            "bom",
            "deep",
            "deep (refused)",
            "truncated (refused)",
            "damaged")) {
      assertThat(KINDS).as("lines of this kind").containsKey(kind);
    }
    assertThat(REASONS)
        .as("refused by reason")
        .containsKeys(
            BadRecord.MALFORMED_JSON,
            BadRecord.TRUNCATED,
            BadRecord.INVALID_UTF8,
            BadRecord.NOT_A_NUMBER,
            BadRecord.NOT_AN_OBJECT,
            BadRecord.BINARY,
            BadRecord.TOO_DEEP,
            BadRecord.NUMBER_TOO_LONG,
            BadRecord.NAME_TOO_LONG);
    assertThat(matched).as("records matched").isPositive();
  }

  /**
   * Runs {@code queries} over the lines in one filter set, as a runtime's worker does; fills {@code
   * refused} (when given) with each line's reason.
   */
  private static Map<String, Answer> run(
      List<Query> queries,
      List<Line> lines,
      List<Verdict> verdicts,
      Path path,
      BadRecord[] refused) {
    Map<String, List<Map<String, Object>>> kept = new HashMap<>();
    FilterSet filters =
        new FilterSet(
            QueryLimits.DEFAULTS,
            () -> 0L,
            (q, p) -> kept.computeIfAbsent(q.id(), k -> new ArrayList<>()).addAll(rows(p)));
    queries.forEach(filters::add);
    JsonRecordReader whole = new JsonRecordReader();
    Record record = new Record();
    long accepted = 0;
    for (int i = 0; i < lines.size(); i++) {
      byte[] b = lines.get(i).bytes();
      switch (path) {
        case SCAN -> {
          try {
            if (filters.read(b, 0, b.length, record)) {
              filters.process(record);
            }
            accepted++;
          } catch (MalformedRecordException e) {
            if (refused != null) {
              assertThat(refused[i]).as("refused twice").isNull();
              refused[i] = e.reason();
            }
          }
        }
        case WHOLE -> {
          try {
            whole.read(b, 0, b.length, record);
            filters.process(record);
            accepted++;
          } catch (MalformedRecordException e) {
            // counted by the scan's run
          }
        }
        default -> {
          if (verdicts.get(i).accepted()) {
            filters.process(Record.fromMap(verdicts.get(i).record()));
            accepted++;
          }
        }
      }
      if (i % 7 == 0) {
        filters.endOfBatch();
      }
    }
    filters.flush();
    assertThat(filters.processed()).isEqualTo(accepted);
    Map<String, Answer> answers = new LinkedHashMap<>();
    for (Query q : queries) {
      boolean whole2 = q.text().startsWith("SELECT *");
      answers.put(
          q.id(),
          new Answer(
              filters.stats(q.id()).matched(),
              whole2 ? kept.getOrDefault(q.id(), List.of()) : List.of()));
    }
    return answers;
  }

  private static List<Map<String, Object>> rows(Partial p) {
    return new ArrayList<>(p.rows());
  }

  /**
   * The answers are the expected ones: the same counts, and the same whole records, with their
   * fields in the same order, written back as JSON that reads as the same record.
   */
  private static void check(
      String context, Map<String, Answer> expected, Map<String, Answer> actual) {
    for (Map.Entry<String, Answer> e : expected.entrySet()) {
      Answer want = e.getValue();
      Answer got = actual.get(e.getKey());
      String as = context + ": " + e.getKey();
      assertThat(got.matched()).as(as).isEqualTo(want.matched());
      assertThat(got.records()).as(as).hasSameSizeAs(want.records());
      for (int i = 0; i < want.records().size(); i++) {
        Map<String, Object> w = want.records().get(i);
        Map<String, Object> g = got.records().get(i);
        assertThat(g).as(as).isEqualTo(w);
        assertThat(new ArrayList<>(g.keySet())).as(as).isEqualTo(new ArrayList<>(w.keySet()));
        byte[] written = write(g).getBytes(StandardCharsets.UTF_8);
        Verdict reread = new StrictJson().read(written);
        assertThat(reread.refused()).as(as + " written as " + write(g)).isNull();
        assertThat(reread.record()).as(as + " written back").isEqualTo(asWritten(w));
      }
    }
  }

  private static String write(Map<String, Object> record) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      ResultJson.writeValue(g, record);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** A record as its JSON reads back: an infinite number is written as its text, a string. */
  @SuppressWarnings("unchecked")
  private static Object asWritten(Object v) {
    if (v instanceof Double d && Double.isInfinite(d)) {
      return Double.toString(d);
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      ((Map<String, Object>) m).forEach((k, x) -> out.put(k, asWritten(x)));
      return out;
    }
    if (v instanceof List<?> l) {
      return l.stream().map(ExactRecordsProperties::asWritten).toList();
    }
    return v;
  }

  private static String describe(List<Spec> specs) {
    StringBuilder sb = new StringBuilder();
    for (Spec s : specs) {
      sb.append(s.id())
          .append(s.whole() ? " (SELECT *): " : ": ")
          .append(s.where().bql())
          .append('\n');
    }
    return sb.toString();
  }
}

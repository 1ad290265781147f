package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.exec.Eval;
import io.spyglass.core.exec.EvalStats;
import io.spyglass.core.exec.ExprCompiler;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The query index routes a record to exactly the queries whose filter matches it. */
class QueryIndexProperties {
  static final String[] IDS = {"a", "b", "c", "d", "e"};

  @Property(tries = 200)
  void indexGivesTheSameMatchesAsEvaluatingEveryQuery(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 60) int queryCount) {
    Random random = new Random(seed);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < queryCount; i++) {
      texts.add("SELECT COUNT(*) FROM STREAM(10000, TIME) WHERE " + randomPredicate(random));
    }
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      records.add(randomRecord(random));
    }

    FilterSet indexed = new FilterSet(QueryLimits.DEFAULTS, () -> 0L, (q, p) -> {});
    List<Query> queries = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      Query q = Query.parse("q" + i, texts.get(i), QueryLimits.DEFAULTS, 0L);
      queries.add(q);
      indexed.add(q);
    }
    records.forEach(indexed::process);

    for (Query q : queries) {
      Eval where = new ExprCompiler(() -> 0L, new EvalStats()).compile(q.plan().where().get());
      long expected =
          records.stream().filter(r -> where.eval(r) == Record.BOOLEAN && where.l == 1).count();
      assertThat(indexed.stats(q.id()).matched())
          .as("seed %d, query %s", seed, q.text())
          .isEqualTo(expected);
    }
  }

  @Example
  void aMemberOfAMapIsIndexedToo() {
    FilterSet set = new FilterSet(QueryLimits.DEFAULTS, () -> 0L, (q, p) -> {});
    for (String country : List.of("US", "DE", "FR", "JP")) {
      for (int i = 0; i < 10; i++) {
        set.add(
            Query.parse(
                country + i,
                "SELECT COUNT(*) FROM STREAM(10000, TIME) WHERE demographics.country = '"
                    + country
                    + "'",
                QueryLimits.DEFAULTS,
                0L));
      }
    }
    Record r = new Record().putMap("demographics", new LinkedHashMap<>(Map.of("country", "DE")));
    set.process(r);
    // the ten queries on DE evaluate the record, the thirty others never see it
    assertThat(set.evaluations()).isEqualTo(10);
    assertThat(set.stats("DE3").matched()).isEqualTo(1);
    assertThat(
            Explain.of(
                Query.parse(
                        "x",
                        "SELECT * FROM STREAM(1s, TIME) WHERE demographics['country'] = 'DE'",
                        QueryLimits.DEFAULTS,
                        0L)
                    .plan(),
                QueryLimits.DEFAULTS))
        .contains("indexed on demographics.country");
  }

  static String randomPredicate(Random random) {
    switch (random.nextInt(15)) {
      case 11:
        return "m.k = '" + IDS[random.nextInt(IDS.length)] + "'";
      case 12:
        return "m['k'] IN ('" + IDS[random.nextInt(IDS.length)] + "', 'b')";
      case 13:
        return "m.k = " + random.nextInt(3) + (random.nextBoolean() ? ".0" : "") + " AND n > 0";
      case 14:
        return "m.j = '" + IDS[random.nextInt(IDS.length)] + "'";
      case 7:
        return "n > " + (random.nextInt(5) - 1) + (random.nextBoolean() ? ".5" : "");
      case 8:
        return random.nextInt(4) + " >= n";
      case 9:
        return "n BETWEEN (" + random.nextInt(3) + ", " + (1 + random.nextInt(3)) + ".5)";
      case 10:
        return "n <= " + random.nextInt(4) + " AND NOT (id = 'a')";
      case 0:
        return "id = '" + IDS[random.nextInt(IDS.length)] + "'";
      case 1:
        return "id IN ('"
            + IDS[random.nextInt(IDS.length)]
            + "', '"
            + IDS[random.nextInt(5)]
            + "')";
      case 2:
        return "n = " + random.nextInt(4) + " AND id = '" + IDS[random.nextInt(IDS.length)] + "'";
      case 3:
        return "n = " + random.nextInt(4) + (random.nextBoolean() ? ".0" : "");
      case 4:
        return "(id = 'a' OR n = 1)";
      case 5:
        return "flag = " + random.nextBoolean() + " AND n > " + random.nextInt(3);
      default:
        return "NOT (id = '" + IDS[random.nextInt(IDS.length)] + "')";
    }
  }

  static Record randomRecord(Random random) {
    Record r = new Record();
    if (random.nextInt(10) > 0) {
      r.putString("id", IDS[random.nextInt(IDS.length)]);
    } else if (random.nextBoolean()) {
      r.putLong("id", 1);
    }
    switch (random.nextInt(4)) {
      case 0:
        r.putLong("n", random.nextInt(4));
        break;
      case 1:
        r.putDouble("n", random.nextInt(4));
        break;
      case 2:
        r.putString("n", "1");
        break;
      default:
        break;
    }
    if (random.nextBoolean()) {
      r.putBoolean("flag", random.nextBoolean());
    }
    // a map whose member k is a string, a number, a map or missing; or no map at all
    Map<String, Object> m = new LinkedHashMap<>();
    switch (random.nextInt(8)) {
      case 0, 1 -> m.put("k", IDS[random.nextInt(IDS.length)]);
      case 2 -> m.put("k", (long) random.nextInt(3));
      case 3 -> m.put("k", (double) random.nextInt(3));
      case 4 -> m.put("k", new LinkedHashMap<>(Map.of("k", "a")));
      case 5 -> m.put("j", IDS[random.nextInt(IDS.length)]);
      case 6 -> r.putList("m", new ArrayList<>(List.of("a")));
      default -> r.putString("m", "a");
    }
    if (!m.isEmpty()) {
      if (random.nextBoolean()) {
        m.put("j", "a");
      }
      r.putMap("m", m);
    }
    return r;
  }
}

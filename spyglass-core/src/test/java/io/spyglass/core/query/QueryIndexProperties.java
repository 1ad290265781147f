package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.exec.Eval;
import io.spyglass.core.exec.EvalStats;
import io.spyglass.core.exec.ExprCompiler;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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

  static String randomPredicate(Random random) {
    switch (random.nextInt(11)) {
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
    return r;
  }
}

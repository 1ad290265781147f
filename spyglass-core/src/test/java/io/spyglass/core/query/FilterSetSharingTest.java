package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.RawPartial;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link FilterSet#shareIdentical}: identical queries that start together share one evaluation and
 * one partial per flush; one that starts later, or differs, has its own; one that leaves leaves the
 * others their filter.
 */
class FilterSetSharingTest {
  /** Each flush: the ids it was for (the first is the query evaluated), then the records' ids. */
  private final List<String> flushes = new ArrayList<>();

  private final List<String> failed = new ArrayList<>();

  /** Whether the clock throws when {@code NOW()} reads it. */
  private boolean clockBroken;

  private final FilterSet filters =
      new FilterSet(
          QueryLimits.DEFAULTS,
          () -> {
            if (clockBroken) {
              throw new IllegalStateException("clock broken");
            }
            return 0L;
          },
          new PartialSink() {
            @Override
            public void accept(Query query, Partial partial) {
              accept(query, List.of(), partial);
            }

            @Override
            public void accept(Query query, List<Query> sharers, Partial partial) {
              StringBuilder sb = new StringBuilder(query.id());
              sharers.forEach(q -> sb.append(',').append(q.id()));
              sb.append(':');
              for (Map<String, Object> r : ((RawPartial) partial).rows()) {
                sb.append(' ').append(r.get("n"));
              }
              flushes.add(sb.toString());
            }

            @Override
            public void failed(Query query, Throwable error) {
              failed.add(query.id());
            }
          });

  private static final String NEEDLE = "SELECT * FROM STREAM(MAX, TIME) WHERE id = 'x' LIMIT 3";

  private void add(String id, String bql) {
    filters.add(Query.parse(id, bql, QueryLimits.DEFAULTS, 0L));
  }

  private void process(String id, long n) {
    filters.process(Record.fromMap(Map.of("id", id, "n", n)));
  }

  @Test
  void identicalQueriesThatStartTogetherShareOneEvaluationAndOnePartial() {
    filters.shareIdentical(true);
    add("a", NEEDLE);
    // the same plan, written otherwise
    add("b", "select *  from STREAM(MAX, TIME) where id = 'x' limit 3");
    add("other", "SELECT * FROM STREAM(MAX, TIME) WHERE id = 'x' LIMIT 4");
    process("x", 1);
    add("late", NEEDLE);
    process("y", 2);
    process("x", 3);
    filters.endOfBatch();

    assertThat(flushes).containsExactlyInAnyOrder("a,b: 1 3", "other: 1 3", "late: 3");
    // a and b: one evaluation per record that reached them
    assertThat(filters.evaluations()).isEqualTo(2 + 2 + 1);
    assertThat(filters.size()).isEqualTo(4);
    assertThat(filters.stats())
        .containsEntry("a", new QueryStats(3, 2, 0))
        .containsEntry("b", new QueryStats(3, 2, 0))
        .containsEntry("late", new QueryStats(2, 1, 0));
    assertThat(filters.stats("b")).isEqualTo(new QueryStats(3, 2, 0));
  }

  @Test
  void theQueryEvaluatedLeavesItsFilterAndStateToTheOthers() {
    filters.shareIdentical(true);
    add("a", NEEDLE);
    add("b", NEEDLE);
    add("c", NEEDLE);
    process("x", 1);
    filters.remove("a");
    process("x", 2);
    filters.remove("c");
    filters.endOfBatch();

    // b holds what a matched before it left
    assertThat(flushes).containsExactly("b: 1 2");
    assertThat(filters.contains("a")).isFalse();
    assertThat(filters.contains("b")).isTrue();
    assertThat(filters.stats().keySet()).containsExactly("b");

    filters.remove("b");
    process("x", 3);
    filters.endOfBatch();
    assertThat(flushes).hasSize(1);
    assertThat(filters.size()).isZero();
    // a query identical to one gone starts a filter of its own
    add("d", NEEDLE);
    process("x", 4);
    filters.endOfBatch();
    assertThat(flushes).containsExactly("b: 1 2", "d: 4");
  }

  @Test
  void withoutSharingEachQueryHasItsOwn() {
    add("a", NEEDLE);
    add("b", NEEDLE);
    process("x", 1);
    filters.endOfBatch();
    assertThat(flushes).containsExactlyInAnyOrder("a: 1", "b: 1");
  }

  @Test
  void aSharedFilterThatFailsFailsEveryQueryOnIt() {
    filters.shareIdentical(true);
    String clocked = "SELECT * FROM STREAM(MAX, TIME) WHERE id = 'x' AND NOW() >= 0";
    add("a", clocked);
    add("b", clocked);
    add("c", NEEDLE);
    clockBroken = true;
    process("x", 1);
    filters.endOfBatch();
    assertThat(failed).containsExactly("a", "b");
    assertThat(filters.contains("a")).isFalse();
    assertThat(filters.contains("b")).isFalse();
    assertThat(filters.size()).isEqualTo(1);
    assertThat(flushes).containsExactly("c: 1");
  }
}

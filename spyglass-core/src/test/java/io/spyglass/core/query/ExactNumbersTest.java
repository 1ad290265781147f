package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.Values;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Numbers compare by their exact values, with the same answer whether the query index files a query
 * or not, and whether the record is ruled in or out from its bytes ({@link FilterSet#read}) or
 * after it was decoded ({@link FilterSet#process}).
 */
class ExactNumbersTest {
  /** How many of {@code records} each condition matches, each way of running it. */
  private static Map<String, Long> counts(List<String> records, String... conditions) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String where : conditions) {
      long read = run(records, where, true);
      long processed = run(records, where, false);
      long unindexed = run(records, "(" + where + ") OR never_present = 1", true);
      assertThat(processed).as("decoded first: " + where).isEqualTo(read);
      assertThat(unindexed).as("unindexed: " + where).isEqualTo(read);
      out.put(where, read);
    }
    return out;
  }

  private static long run(List<String> records, String where, boolean fromBytes) {
    FilterSet filters = new FilterSet(QueryLimits.DEFAULTS, () -> 0L, (q, p) -> {});
    filters.add(
        Query.parse(
            "q", "SELECT COUNT(*) FROM STREAM(MAX, TIME) WHERE " + where, QueryLimits.DEFAULTS, 0));
    Record r = new Record();
    for (String json : records) {
      byte[] b = json.getBytes(StandardCharsets.UTF_8);
      try {
        if (fromBytes) {
          if (filters.read(b, 0, b.length, r)) {
            filters.process(r);
          }
        } else {
          new io.spyglass.core.record.JsonRecordReader().read(b, 0, b.length, r);
          filters.process(r);
        }
      } catch (MalformedRecordException e) {
        throw new AssertionError(json, e);
      }
    }
    return filters.stats("q").matched();
  }

  @Test
  void minusZeroIsZero() {
    assertThat(
            counts(List.of("{\"n\":-0.0}", "{\"n\":-0}"), "n = 0", "n < 0", "n >= 0", "n = -0.0"))
        .containsExactly(
            Map.entry("n = 0", 2L),
            Map.entry("n < 0", 0L),
            Map.entry("n >= 0", 2L),
            Map.entry("n = -0.0", 2L));
  }

  @Test
  void aLongAndADoubleCompareAsTheNumbersTheyAre() {
    List<String> records = List.of("{\"n\":9007199254740992.0}", "{\"n\":9007199254740993}");
    assertThat(
            counts(
                records,
                "n = 9007199254740993",
                "NOT (n != 9007199254740993)",
                "n > 9007199254740992.0",
                "n <= 9007199254740992",
                "n BETWEEN (9007199254740993, 1e300)",
                "n IN (9007199254740992.0, 1.5)"))
        .containsExactly(
            Map.entry("n = 9007199254740993", 1L),
            Map.entry("NOT (n != 9007199254740993)", 1L),
            Map.entry("n > 9007199254740992.0", 1L),
            Map.entry("n <= 9007199254740992", 1L),
            Map.entry("n BETWEEN (9007199254740993, 1e300)", 1L),
            Map.entry("n IN (9007199254740992.0, 1.5)", 1L));
  }

  @Test
  void aValueAtTheTopOfAWideRangeIsACandidate() {
    // hi - lo = 2^53 + 1 rounds down to 2^53 as a double: the range index must not lose n = 2^53
    assertThat(
            counts(
                List.of("{\"n\":9007199254740992}", "{\"n\":9007199254740992.0}"),
                "n BETWEEN (-1, 9007199254740992)"))
        .containsEntry("n BETWEEN (-1, 9007199254740992)", 2L);
  }

  @Test
  void valuesCompareExactlyForSortingAndEquality() {
    assertThat(Values.compare(9007199254740993L, 9007199254740992.0)).isPositive();
    assertThat(Values.compare(-0.0, 0.0)).isZero();
    assertThat(Values.compare(Long.MAX_VALUE, 0x1p63)).isNegative();
    assertThat(Values.compare(Long.MIN_VALUE, -0x1p63)).isZero();
    assertThat(Values.compare(-1, -0.5)).isNegative();
    assertThat(Values.compare(0, Double.NaN)).isNegative();
    assertThat(Values.equal(9007199254740993L, 9007199254740992.0)).isFalse();
    assertThat(Values.equal(2L, 2.0)).isTrue();
    assertThat(Values.equal(-0.0, 0L)).isTrue();
    assertThat(Values.hash(-0.0)).isEqualTo(Values.hash(0L));
    assertThat(Values.compare((Object) 9007199254740993L, (Object) 9007199254740992.0))
        .isPositive();
  }
}

package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.Result;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The combiner's snapshot format must stay readable: golden files in {@code
 * src/test/resources/combiner/} of format 1 (before event time) and 2. Also: an exact GROUP BY that
 * passes its group limit says so in the result's errors.
 *
 * <p>To write the format-2 file again after a deliberate change (which then needs a new format
 * version): {@code mvn -B -pl spyglass-core test -Dtest=CombinerSnapshotFormatTest
 * -Dspyglass.regenerateGolden=true}.
 */
class CombinerSnapshotFormatTest {
  private static final long T0 = 1_000_000L;
  private static final Path DIR = Paths.get("src", "test", "resources", "combiner");

  private static final String EVENT_TIME =
      "SELECT k, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY k"
          + " WINDOWING TUMBLING(1000, EVENT_TIME(ts), LATENESS 500)";

  /** An event-time combiner with a final window, two open ones, late records and no-time ones. */
  private static QueryCombiner eventTimeCombiner(List<Result> out) {
    Query query = Query.parse("q", EVENT_TIME, QueryLimits.DEFAULTS, T0);
    QueryCombiner c =
        new QueryCombiner(query, QueryLimits.DEFAULTS, (q, r) -> out.add(r), () -> T0);
    FilterSet filters = new FilterSet(QueryLimits.DEFAULTS, () -> T0, (q, p) -> c.accept(p, T0));
    filters.add(query);
    long[][] batches = {{100, 900, 1200}, {1600, 300, 2100}, {50, 2400}};
    for (long[] batch : batches) {
      for (long ts : batch) {
        filters.process(new Record().putString("k", "k" + ts % 3).putLong("ts", ts));
      }
      filters.process(new Record().putString("k", "x"));
      filters.endOfBatch();
      filters.flush();
      c.advance(T0);
    }
    return c;
  }

  @Test
  void eventTimeFormatIsStable() throws IOException {
    List<Result> out = new ArrayList<>();
    byte[] encoded = eventTimeCombiner(out).snapshot();
    assertThat(out).hasSize(2); // window 0, then its late update
    Path file = DIR.resolve("event-time-group.v2.bin");
    if (Boolean.getBoolean("spyglass.regenerateGolden")) {
      Files.createDirectories(DIR);
      Files.write(file, encoded);
    }
    byte[] golden = golden("event-time-group.v2.bin");
    // DataSketches 9 (Java 25) writes the same format, not always the same bytes (see
    // GoldenFilesTest): there the golden file must still be read, and go on the same.
    if (Runtime.version().feature() < 25) {
      assertThat(encoded).as("snapshot today vs %s", file).isEqualTo(golden);
    }
    assertThat(continued(golden)).isEqualTo(continued(encoded));
    assertThat(continued(golden))
        .containsExactly(
            "[{k=k0, n=1}, {k=k1, n=1}] final=false late=1", "[{k=k0, n=2}] final=true late=1");
  }

  /** What a combiner restored from {@code snapshot} emits when the query ends. */
  private static List<String> continued(byte[] snapshot) {
    List<String> out = new ArrayList<>();
    Query query = Query.parse("q", EVENT_TIME, QueryLimits.DEFAULTS, T0);
    QueryCombiner c =
        QueryCombiner.restore(
            query,
            QueryLimits.DEFAULTS,
            (q, r) ->
                out.add(
                    r.records()
                        + " final="
                        + r.meta().isFinal()
                        + " late="
                        + r.meta().eventTime().get().late()),
            () -> T0,
            snapshot);
    c.finish(T0);
    return out;
  }

  @Test
  void formatOneIsStillRead() throws IOException {
    byte[] v1 = golden("tumbling-group.v1.bin");
    Query query =
        Query.parse(
            "q",
            "SELECT k, COUNT(*) AS n FROM STREAM(10000, TIME) GROUP BY k"
                + " WINDOWING TUMBLING(1000, TIME)",
            QueryLimits.DEFAULTS,
            T0);
    QueryCombiner c =
        QueryCombiner.restore(query, QueryLimits.DEFAULTS, (q, r) -> {}, () -> T0, v1);
    // Format 2 is format 1 with its version, and a byte saying there are no event-time windows.
    byte[] v2 = c.snapshot();
    byte[] expected = Arrays.copyOf(v1, v1.length + 1);
    expected[4] = 2;
    assertThat(v2).isEqualTo(expected);
  }

  @Test
  void anEventTimeSnapshotFitsOnlyAnEventTimeQuery() {
    byte[] bytes = eventTimeCombiner(new ArrayList<>()).snapshot();
    Query other =
        Query.parse(
            "q",
            "SELECT k, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY k",
            QueryLimits.DEFAULTS,
            T0);
    assertThatThrownBy(
            () -> QueryCombiner.restore(other, QueryLimits.DEFAULTS, (q, r) -> {}, () -> T0, bytes))
        .isInstanceOf(PartialFormatException.class);
  }

  @Test
  void exactGroupsBeyondTheirLimitAreAnErrorOfTheWindow() {
    QueryLimits small = QueryLimits.DEFAULTS.withMaxExactGroups(4);
    QueryProcessor p = new QueryProcessor(small, () -> T0, (q, r) -> results.add(r));
    p.submit("q", EVENT_TIME);
    for (int i = 0; i < 40; i++) {
      p.process(new Record().putString("k", "k" + i).putLong("ts", i));
    }
    p.process(new Record().putString("k", "k").putLong("ts", 5000));
    p.endOfBatch();
    p.advance();
    assertThat(results).hasSize(1);
    assertThat(results.get(0).meta().errors())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.message()).contains("more than 4 groups");
              assertThat(e.fatal()).isFalse();
            });
  }

  private final List<Result> results = new ArrayList<>();

  private static byte[] golden(String name) throws IOException {
    try (InputStream in =
        CombinerSnapshotFormatTest.class.getResourceAsStream("/combiner/" + name)) {
      assertThat(in)
          .as("golden file %s (regenerate with -Dspyglass.regenerateGolden=true)", name)
          .isNotNull();
      return in.readAllBytes();
    }
  }
}

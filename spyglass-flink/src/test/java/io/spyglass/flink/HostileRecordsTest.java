package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.Partials;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.testkit.records.HostileLines;
import io.spyglass.testkit.records.HostileLines.Line;
import io.spyglass.testkit.records.ReferencePredicates;
import io.spyglass.testkit.records.ReferencePredicates.Predicate;
import io.spyglass.testkit.records.StrictJson;
import io.spyglass.testkit.records.StrictJson.Verdict;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The Flink job's filter reads records as the embedded workers do ({@code FilterSet.read}): on
 * every kind of hostile line (the test kit's {@link HostileLines}), its queries count and keep the
 * records a strict reference reader and evaluator give, whole records come through the partials'
 * format unchanged, and every refused line is counted once, under the reference's reason, in the
 * bad input the subtask reports. Each seed is in the failure's message.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class HostileRecordsTest {
  private static final OperatorSettings SETTINGS =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, false);

  @Test
  void theFilterReadsHostileLinesAsAStrictReaderDoes() throws Exception {
    long matched = 0;
    for (long seed = 1; seed <= 6; seed++) {
      matched += check(seed);
    }
    assertThat(matched).as("records matched, over every seed").isGreaterThan(50);
  }

  /** Runs the lines of {@code seed} through one filter subtask; returns the records matched. */
  private static long check(long seed) throws Exception {
    // an empty message is a record without a value (a tombstone) to the filter, and a file source
    // skips empty lines: the lines here are never empty
    List<Line> lines =
        new HostileLines(seed).lines(200).stream().filter(l -> l.bytes().length > 0).toList();
    StrictJson strict = new StrictJson();
    List<Verdict> verdicts = lines.stream().map(l -> strict.read(l.bytes())).toList();
    ReferencePredicates predicates = new ReferencePredicates(seed);
    Random random = new Random(seed);
    Map<String, Predicate> conditions = new LinkedHashMap<>();
    Map<String, Boolean> whole = new HashMap<>();
    for (int i = 0; i < 6; i++) {
      conditions.put("q" + i, predicates.next(2));
      whole.put("q" + i, random.nextBoolean());
    }
    String context = "seed " + seed + ": ";

    Map<String, Long> counts = new HashMap<>();
    Map<String, List<Map<String, Object>>> kept = new HashMap<>();
    Map<String, Long> bad;
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h =
        new TwoInputStreamOperatorTestHarness<>(new FilterOperator(SETTINGS, List.of()))) {
      h.open();
      for (Map.Entry<String, Predicate> q : conditions.entrySet()) {
        String text =
            (whole.get(q.getKey()) ? "SELECT *" : "SELECT COUNT(*) AS c")
                + " FROM STREAM(MAX, TIME) WHERE "
                + q.getValue().bql()
                + (whole.get(q.getKey()) ? " LIMIT 1000" : "");
        h.processElement2(
            new StreamRecord<>(
                ControlMessage.query(q.getKey(), text, 0, "replies", "test").toJson()));
      }
      for (int from = 0; from < lines.size(); from += 50) {
        h.processElement1(
            new StreamRecord<>(batch(lines, from, Math.min(lines.size(), from + 50))));
      }
      h.processWatermark1(new Watermark(Long.MAX_VALUE));
      for (Object o : h.getOutput()) {
        if (o instanceof StreamRecord<?> r
            && r.getValue() instanceof FilterMessage m
            && m.kind == FilterMessage.PARTIAL) {
          Partial p = Partials.decode(m.payload);
          for (Map<String, Object> row : p.rows()) {
            if (whole.get(m.queryId)) {
              kept.computeIfAbsent(m.queryId, k -> new ArrayList<>()).add(row);
            } else {
              counts.merge(m.queryId, ((Number) row.get("c")).longValue(), Long::sum);
            }
          }
        }
      }
      FilterMessage last = null;
      for (StreamRecord<FilterMessage> r : h.getSideOutput(FilterOperator.BAD)) {
        last = r.getValue();
      }
      bad = last == null ? Map.of() : JobStatus.parse(last.payload).badCounts();
    }

    Map<String, Long> expectedBad = new HashMap<>();
    for (Verdict v : verdicts) {
      if (!v.accepted()) {
        expectedBad.merge(v.refused().key(), 1L, Long::sum);
      }
    }
    assertThat(bad).as(context + "bad input by reason").isEqualTo(expectedBad);
    long matched = 0;
    for (Map.Entry<String, Predicate> q : conditions.entrySet()) {
      List<Map<String, Object>> expected = new ArrayList<>();
      for (Verdict v : verdicts) {
        if (v.accepted() && Boolean.TRUE.equals(q.getValue().test(v.record()))) {
          expected.add(v.record());
        }
      }
      String as = context + q.getValue().bql();
      matched += expected.size();
      if (whole.get(q.getKey())) {
        List<Map<String, Object>> got = kept.getOrDefault(q.getKey(), List.of());
        assertThat(got).as(as).isEqualTo(expected);
        for (int i = 0; i < got.size(); i++) {
          assertThat(new ArrayList<>(got.get(i).keySet()))
              .as(as)
              .isEqualTo(new ArrayList<>(expected.get(i).keySet()));
        }
      } else {
        assertThat(counts.getOrDefault(q.getKey(), 0L)).as(as).isEqualTo(expected.size());
      }
    }
    return matched;
  }

  /** Lines {@code [from, to)} as one batch of a file source: positions are line numbers. */
  private static RecordBatch batch(List<Line> lines, int from, int to) {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    RecordBatch b = new RecordBatch();
    b.count = to - from;
    b.ends = new int[b.count];
    b.positions = new long[3 * b.count];
    for (int i = from; i < to; i++) {
      data.writeBytes(lines.get(i).bytes());
      b.ends[i - from] = data.size();
      b.positions[3 * (i - from)] = -1;
      b.positions[3 * (i - from) + 1] = i + 1;
      b.positions[3 * (i - from) + 2] = -1;
    }
    b.data = data.toByteArray();
    b.readTimeMs = 0;
    return b;
  }
}

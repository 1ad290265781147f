package io.spyglass.testkit.records;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.Query;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.ResultJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The minimal records of the findings S-1 to S-10 (records read exactly), each read through {@link
 * FilterSet#read} as the runtimes read records: what is refused and why, what each query counts,
 * and how whole records are written. {@link ExactRecordsProperties} meets each kind at random.
 */
class RecordFindingsTest {
  private static final String MAX = " FROM STREAM(MAX, TIME)";

  /** What a run gave: matches by query, whole records by query, refusals by line. */
  private record Run(
      Map<String, Long> counts, Map<String, List<String>> written, List<BadRecord> refused) {}

  /** Reads {@code lines} in order through one filter set running {@code queries} (id = text). */
  private static Run run(List<byte[]> lines, String... idsAndTexts) {
    Map<String, List<String>> written = new LinkedHashMap<>();
    FilterSet filters =
        new FilterSet(
            QueryLimits.DEFAULTS,
            () -> 0L,
            (q, p) -> {
              for (Map<String, Object> row : p.rows()) {
                written.computeIfAbsent(q.id(), k -> new ArrayList<>()).add(json(row));
              }
            });
    for (int i = 0; i < idsAndTexts.length; i += 2) {
      filters.add(Query.parse(idsAndTexts[i], idsAndTexts[i + 1], QueryLimits.DEFAULTS, 0L));
    }
    List<BadRecord> refused = new ArrayList<>();
    Record record = new Record();
    for (byte[] line : lines) {
      try {
        if (filters.read(line, 0, line.length, record)) {
          filters.process(record);
        }
        refused.add(null);
      } catch (MalformedRecordException e) {
        refused.add(e.reason());
      }
    }
    filters.flush();
    Map<String, Long> counts = new HashMap<>();
    for (int i = 0; i < idsAndTexts.length; i += 2) {
      counts.put(idsAndTexts[i], filters.stats(idsAndTexts[i]).matched());
    }
    return new Run(counts, written, refused);
  }

  private static String json(Map<String, Object> row) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
      ResultJson.writeValue(g, row);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return out.toString();
  }

  private static byte[] bytes(Object... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Object p : parts) {
      out.writeBytes(p instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) p);
    }
    return out.toByteArray();
  }

  private static byte[] hex(int... bytes) {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return b;
  }

  private static List<BadRecord> refusedAs(BadRecord... reasons) {
    return java.util.Arrays.asList(reasons);
  }

  @Test
  void s1_aSurrogateInAFieldNoQueryReadsRefusesTheRecordAndSelectStarGoesOn() {
    Run r =
        run(
            List.of(
                bytes("{\"id\":\"v\",\"z\":\"", hex(0xED, 0xA0, 0x80), "\"}"),
                bytes("{\"id\":\"v\",\"n\":1}")),
            "star",
            "SELECT *" + MAX + " WHERE id = 'v'");
    assertThat(r.refused()).isEqualTo(refusedAs(BadRecord.INVALID_UTF8, null));
    assertThat(r.written().get("star")).containsExactly("{\"id\":\"v\",\"n\":1}");
  }

  @Test
  void s2_aNameStartingWithFFIsNeverReadAsAnotherName() {
    List<byte[]> lines =
        List.of(
            bytes("{\"\\u0078\":1,\"id\":\"a\"}"),
            bytes("{\"", hex(0xFF), "id\":\"v\"}"),
            bytes("{\"id\":\"a\",\"", hex(0xFF), "id\":\"v\"}"));
    Run r =
        run(
            lines,
            "id",
            "SELECT id" + MAX + " WHERE id = 'v'",
            "star",
            "SELECT *" + MAX + " WHERE id = 'v'");
    assertThat(r.refused())
        .isEqualTo(refusedAs(null, BadRecord.INVALID_UTF8, BadRecord.INVALID_UTF8));
    assertThat(r.counts()).containsEntry("id", 0L).containsEntry("star", 0L);
  }

  @Test
  void s3_whetherARecordCountsDoesNotDependOnTheOtherQueries() {
    List<byte[]> lines =
        List.of(
            bytes("{\"id\":\"v\",\"z\":\"", hex(0xED, 0xA0, 0x80), "\"}"), bytes("{\"id\":\"w\"}"));
    Run alone = run(lines, "count", "SELECT COUNT(*)" + MAX);
    Run beside =
        run(
            lines,
            "count",
            "SELECT COUNT(*)" + MAX,
            "z",
            "SELECT z" + MAX + " WHERE id = 'nothing'");
    assertThat(alone.counts().get("count")).isEqualTo(1L).isEqualTo(beside.counts().get("count"));
    assertThat(alone.refused())
        .isEqualTo(beside.refused())
        .containsExactly(BadRecord.INVALID_UTF8, null);
  }

  @Test
  void s4_utf16AndUtf32LinesAreBinary() {
    List<byte[]> lines = new ArrayList<>();
    for (String charset : List.of("UTF-16BE", "UTF-16LE", "UTF-16", "UTF-32BE", "UTF-32LE")) {
      lines.add("{\"id\":\"v\"}".getBytes(Charset.forName(charset)));
      lines.add(("\ufeff{\"id\":\"v\"}").getBytes(Charset.forName(charset)));
    }
    Run r = run(lines, "star", "SELECT *" + MAX + " WHERE id = 'v'");
    assertThat(r.refused()).containsOnly(BadRecord.BINARY);
    assertThat(r.counts().get("star")).isZero();
  }

  @Test
  void s5_overlongAndOutOfRangeUtf8AreInvalid() {
    List<byte[]> lines =
        List.of(
            bytes("{\"id\":\"", hex(0xE0, 0x80, 0xAF), "\"}"),
            bytes("{\"id\":\"", hex(0xC0, 0x80), "\"}"),
            bytes("{\"id\":\"", hex(0xC1, 0xBF), "\"}"),
            bytes("{\"id\":\"", hex(0xF0, 0x80, 0x80, 0xAF), "\"}"),
            bytes("{\"id\":\"", hex(0xF4, 0x90, 0x80, 0x80), "\"}"),
            bytes("{\"id\":\"", hex(0xF5, 0x80, 0x80, 0x80), "\"}"),
            bytes("{\"", hex(0xE0, 0x80, 0xAF), "\":1,\"id\":\"/\"}"));
    Run r = run(lines, "slash", "SELECT COUNT(*)" + MAX + " WHERE id = '/'");
    assertThat(r.refused()).containsOnly(BadRecord.INVALID_UTF8);
    assertThat(r.counts().get("slash")).isZero();
  }

  @Test
  void s6_unpairedSurrogateEscapesAreWrittenBackAsRead() {
    List<byte[]> lines =
        List.of(
            bytes("{\"id\":\"\\ud800\"}"),
            bytes("{\"id\":\"\\ude00\\ud83d\"}"),
            bytes("{\"id\":\"\\ud83dA\"}"),
            bytes("{\"id\":\"\\ud83d\\ude00\",\"\\udfff\":{\"\\ud800\":\"x\"}}"));
    Run r = run(lines, "star", "SELECT *" + MAX + " WHERE id IS NOT NULL");
    assertThat(r.written().get("star"))
        .containsExactly(
            "{\"id\":\"\\ud800\"}",
            "{\"id\":\"\\ude00\\ud83d\"}",
            "{\"id\":\"\\ud83dA\"}",
            "{\"id\":\"😀\",\"\\udfff\":{\"\\ud800\":\"x\"}}");
  }

  @Test
  void s7_longNumbersAreRecordsUpToTheirOwnLimit() {
    List<byte[]> lines =
        List.of(
            bytes("{\"id\":\"v\",\"big\":" + "1".repeat(101) + "}"),
            bytes("{\"id\":\"v\",\"big\":-" + "1".repeat(101) + "}"),
            bytes("{\"id\":\"v\",\"big\":1." + "1".repeat(100) + "}"),
            bytes("{\"id\":\"v\",\"big\":" + "1".repeat(1_000) + "}"),
            bytes("{\"id\":\"v\",\"big\":" + "1".repeat(1_001) + "}"));
    Run r = run(lines, "count", "SELECT COUNT(*)" + MAX + " WHERE id = 'v'");
    assertThat(r.refused()).isEqualTo(refusedAs(null, null, null, null, BadRecord.NUMBER_TOO_LONG));
    assertThat(r.counts().get("count")).isEqualTo(4L);
  }

  @Test
  void s8_longNamesAreRecordsUpToTheirOwnLimit() {
    List<byte[]> lines =
        List.of(
            bytes("{\"" + "N".repeat(50_001) + "\":1,\"id\":\"v\"}"),
            bytes("{\"" + "N".repeat(65_536) + "\":1,\"id\":\"v\"}"),
            bytes("{\"" + "N".repeat(65_537) + "\":1,\"id\":\"v\"}"));
    Run r = run(lines, "count", "SELECT COUNT(*)" + MAX + " WHERE id = 'v'");
    assertThat(r.refused()).isEqualTo(refusedAs(null, null, BadRecord.NAME_TOO_LONG));
    assertThat(r.counts().get("count")).isEqualTo(2L);
  }

  @Test
  void s9_minusZeroIsZero() {
    List<byte[]> lines = List.of(bytes("{\"n\":-0.0}"), bytes("{\"n\":-0}"), bytes("{\"n\":0.0}"));
    Run r =
        run(
            lines,
            "eq",
            "SELECT COUNT(*)" + MAX + " WHERE n = 0",
            "lt",
            "SELECT COUNT(*)" + MAX + " WHERE n < 0",
            "ge",
            "SELECT COUNT(*)" + MAX + " WHERE n >= 0",
            "eqMinus",
            "SELECT COUNT(*)" + MAX + " WHERE n = -0.0",
            "in",
            "SELECT COUNT(*)" + MAX + " WHERE n IN (0, 5)",
            "between",
            "SELECT COUNT(*)" + MAX + " WHERE n BETWEEN (0.0, 0)");
    assertThat(r.counts())
        .containsEntry("eq", 3L)
        .containsEntry("lt", 0L)
        .containsEntry("ge", 3L)
        .containsEntry("eqMinus", 3L)
        .containsEntry("in", 3L)
        .containsEntry("between", 3L);
  }

  @Test
  void s10_aLongAndADoubleCompareExactlyWithAndWithoutTheIndex() {
    List<byte[]> lines =
        List.of(bytes("{\"n\":9007199254740992.0}"), bytes("{\"n\":9007199254740993}"));
    Run r =
        run(
            lines,
            "indexed",
            "SELECT COUNT(*)" + MAX + " WHERE n = 9007199254740993",
            "unindexed",
            "SELECT COUNT(*)" + MAX + " WHERE n = 9007199254740993 OR zz = 1",
            "negated",
            "SELECT COUNT(*)" + MAX + " WHERE NOT (n != 9007199254740993)",
            "greater",
            "SELECT COUNT(*)" + MAX + " WHERE n > 9007199254740992.0",
            "between",
            "SELECT COUNT(*)" + MAX + " WHERE n BETWEEN (9007199254740993, 1e300)",
            "in",
            "SELECT COUNT(*)" + MAX + " WHERE n IN (9007199254740992.0, 1.5)");
    // only the LONG record is 9007199254740993; only the DOUBLE one is 9007199254740992
    assertThat(r.counts())
        .containsEntry("indexed", 1L)
        .containsEntry("unindexed", 1L)
        .containsEntry("negated", 1L)
        .containsEntry("greater", 1L)
        .containsEntry("between", 1L)
        .containsEntry("in", 1L);
  }
}

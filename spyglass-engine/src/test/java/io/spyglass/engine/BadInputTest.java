package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.record.BadRecord;
import io.spyglass.core.result.Result;
import io.spyglass.sources.BadInput;
import io.spyglass.sources.Sources;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each shape of bad input is counted by reason and place, in metrics and in results. */
class BadInputTest {
  private static final EngineConfig CONFIG = EngineConfig.defaults().withWorkers(2).withTickMs(20);

  @TempDir Path dir;

  private Result runCount(String spec) throws Exception {
    try (Engine engine = Engine.startPaused(Sources.open(spec), CONFIG)) {
      QueryHandle q = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      assertThat(q.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
      engine.resume();
      assertThat(engine.awaitStopped(20, TimeUnit.SECONDS)).isTrue();
      Result r = q.poll(10, TimeUnit.SECONDS);
      assertThat(r).isNotNull();
      assertThat(r.meta().isFinal()).isTrue();
      lastMetrics = engine.metrics().badInput();
      lastSnapshot = engine.badInput();
      return r;
    }
  }

  private Map<String, Long> lastMetrics;
  private BadInput.Snapshot lastSnapshot;

  @Test
  void everyShapeIsCountedWithItsReasonAndLine() throws Exception {
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    List<byte[]> lines =
        List.of(
            utf8("{\"ok\": 1}"), // 1
            utf8("{\"a\": 1, oops}"), // 2 malformed
            utf8("{\"a\": NaN}"), // 3 not a number
            utf8("[{\"a\": 1}]"), // 4 not an object
            "{\"a\": \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1), // 5 invalid UTF-8
            new byte[] {0x1f, (byte) 0x8b, 0x08, 0x00, 0x00, '{', 0x00}, // 6 binary
            utf8("{\"a\": \"" + "x".repeat(300) + "\"}"), // 7 too long
            utf8(""), // 8 blank
            utf8("{\"ok\": 2}"), // 9
            utf8("{\"a\": [1, 2")); // 10 truncated, no newline at the end
    for (int i = 0; i < lines.size(); i++) {
      file.write(lines.get(i));
      if (i < lines.size() - 1) {
        file.write('\n');
      }
    }
    Path path = dir.resolve("bad.json");
    Files.write(path, file.toByteArray());

    Result r = runCount("file:" + path + "?maxLine=200");
    assertThat(r.records()).containsExactly(Map.of("n", 2L));
    Map<String, Long> expected =
        Map.of(
            "malformedJson", 1L,
            "notANumber", 1L,
            "notAnObject", 1L,
            "invalidUtf8", 1L,
            "binary", 1L,
            "tooLong", 1L,
            "truncated", 1L);
    assertThat(r.meta().badInput()).isEqualTo(expected);
    assertThat(r.toJson()).contains("\"badInput\":{\"malformedJson\":1,");
    assertThat(lastMetrics).isEqualTo(expected);
    assertThat(lastSnapshot.places())
        .containsEntry(BadRecord.MALFORMED_JSON, List.of("line 2"))
        .containsEntry(BadRecord.NOT_A_NUMBER, List.of("line 3"))
        .containsEntry(BadRecord.NOT_AN_OBJECT, List.of("line 4"))
        .containsEntry(BadRecord.INVALID_UTF8, List.of("line 5"))
        .containsEntry(BadRecord.BINARY, List.of("line 6"))
        .containsEntry(BadRecord.TOO_LONG, List.of("line 7"))
        .containsEntry(BadRecord.TRUNCATED, List.of("line 10"));
    assertThat(lastSnapshot.toString())
        .startsWith("7 bad records skipped: 1 malformed JSON (line 2), ")
        .contains("1 truncated JSON (line 10)");
  }

  @Test
  void theSourcesLineLimitIsTheReadersToo() throws Exception {
    String big = "{\"big\": \"" + "x".repeat(5 << 20) + "\"}";
    String bigger = "{\"big\": \"" + "x".repeat((5 << 20) + 1) + "\"}";
    Path path = dir.resolve("big.json");
    Files.writeString(path, "{\"a\": 1}\n" + big + "\n" + bigger + "\n");
    // 5 MiB records: over the default 4 MiB; the longer one exactly at the limit given
    int limit = bigger.length();
    assertThat(runCount("file:" + path).records()).containsExactly(Map.of("n", 1L));
    assertThat(lastMetrics).isEqualTo(Map.of("tooLong", 2L));
    assertThat(runCount("file:" + path + "?maxLine=" + limit).records())
        .containsExactly(Map.of("n", 3L));
    assertThat(lastMetrics).isEmpty();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

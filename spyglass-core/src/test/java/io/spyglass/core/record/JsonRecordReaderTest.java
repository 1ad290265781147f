package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class JsonRecordReaderTest {
  private final JsonRecordReader reader = new JsonRecordReader();
  private final Record r = new Record();

  @Test
  void readsEveryType() throws Exception {
    reader.read(
        "{\"s\":\"x\",\"i\":5,\"d\":1.5,\"b\":true,\"n\":null,"
            + "\"m\":{\"k\":{\"x\":1}},\"l\":[1,\"a\",{\"z\":2.0}],\"big\":123456789012345678901234}",
        r);
    assertThat(r.typeAt(r.indexOf("s"))).isEqualTo(Type.Kind.STRING);
    assertThat(r.typeAt(r.indexOf("i"))).isEqualTo(Type.Kind.LONG);
    assertThat(r.longAt(r.indexOf("i"))).isEqualTo(5);
    assertThat(r.doubleAt(r.indexOf("d"))).isEqualTo(1.5);
    assertThat(r.booleanAt(r.indexOf("b"))).isTrue();
    assertThat(r.typeAt(r.indexOf("n"))).isEqualTo(Type.Kind.NULL);
    assertThat(r.get("m")).isEqualTo(Map.of("k", Map.of("x", 1L)));
    assertThat(r.get("l")).isEqualTo(List.of(1L, "a", Map.of("z", 2.0)));
    assertThat(r.typeAt(r.indexOf("big"))).isEqualTo(Type.Kind.DOUBLE);
  }

  @Test
  void selectionSkipsOtherFields() throws Exception {
    reader.select(Set.of("a"));
    reader.read("{\"a\":1,\"b\":{\"deep\":[1,2,3]},\"c\":\"x\"}", r);
    assertThat(r.size()).isEqualTo(1);
    assertThat(r.get("a")).isEqualTo(1L);
  }

  @Test
  void aPartialRecordBuildsItsWholeSelfOnDemand() throws Exception {
    reader.select(Set.of("a"));
    reader.read("{\"a\":1,\"b\":{\"deep\":[1,2]},\"c\":\"x\"}", r);
    r.putLong("_read_ms", 7);
    assertThat(r.isPartial()).isTrue();
    assertThat(r.toMap()).containsOnlyKeys("a", "_read_ms");
    assertThat(r.toFullMap())
        .containsExactly(
            Map.entry("a", 1L),
            Map.entry("b", Map.of("deep", List.of(1L, 2L))),
            Map.entry("c", "x"),
            Map.entry("_read_ms", 7L));
    reader.select(null);
    reader.read("{\"a\":1}", r);
    assertThat(r.isPartial()).isFalse();
  }

  @Test
  void aWholeRecordIsKeptAsItsBytesUntilRead() throws Exception {
    reader.select(Set.of("a"));
    byte[] buffer = "{\"a\":1,\"b\":[2]}".getBytes(StandardCharsets.UTF_8);
    reader.read(buffer, 0, buffer.length, r);
    r.putLong("_read_ms", 7);
    Map<String, Object> whole = r.toFullMap();
    assertThat(((WholeRecord) whole).isDecoded()).isFalse();
    // the reader's buffer and record are reused for the next record
    Arrays.fill(buffer, (byte) ' ');
    r.clear();
    assertThat(whole.get("b")).isEqualTo(List.of(2L));
    assertThat(((WholeRecord) whole).isDecoded()).isTrue();
    whole.put("c", "x");
    whole.remove("a");
    assertThat(whole)
        .containsExactly(
            Map.entry("b", List.of(2L)), Map.entry("_read_ms", 7L), Map.entry("c", "x"));
    assertThat(whole).isEqualTo(Map.of("b", List.of(2L), "_read_ms", 7L, "c", "x"));
  }

  @Test
  void aWholeRecordReadFromSeveralThreadsDecodesOnce() throws Exception {
    reader.select(Set.of("a"));
    // a record long enough to decode that threads starting together meet inside the decoding
    StringBuilder json = new StringBuilder("{\"a\":1,\"c\":{\"d\":\"e\"}");
    for (int i = 0; i < 300; i++) {
      json.append(",\"f").append(i).append("\":[").append(i).append(",\"x\"]");
    }
    byte[] buffer = json.append('}').toString().getBytes(StandardCharsets.UTF_8);
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 200; round++) {
        reader.read(buffer, 0, buffer.length, r);
        WholeRecord whole = (WholeRecord) r.toFullMap();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Object>> reads = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          reads.add(
              pool.submit(
                  () -> {
                    ready.countDown();
                    start.await();
                    return whole.get("c");
                  }));
        }
        ready.await();
        start.countDown();
        Object first = reads.get(0).get();
        assertThat(first).isEqualTo(Map.of("d", "e"));
        for (Future<Object> f : reads) {
          // one decoding: every reader sees the same map, not an equal copy
          assertThat(f.get()).isSameAs(first);
        }
        assertThat(whole.decodes()).as("decodings in round %d", round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void rejectsMalformedInput() {
    assertThatThrownBy(() -> reader.read("{\"a\":", r))
        .isInstanceOf(MalformedRecordException.class);
    assertThatThrownBy(() -> reader.read("[1,2]", r))
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining("object");
    assertThatThrownBy(() -> reader.read("{\"a\":1} {\"b\":2}", r))
        .isInstanceOf(MalformedRecordException.class);
    assertThatThrownBy(() -> reader.read("", r)).isInstanceOf(MalformedRecordException.class);
  }

  @Test
  void rejectsInvalidUtf8() {
    byte[] bytes = "{\"a\":\"xx\"}".getBytes(StandardCharsets.UTF_8);
    bytes[6] = (byte) 0xC3;
    bytes[7] = (byte) 0x28;
    assertThatThrownBy(() -> reader.read(bytes, 0, bytes.length, r))
        .isInstanceOf(MalformedRecordException.class);
  }

  @Test
  void rejectsDeepNesting() {
    String deep = "{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
    assertThatThrownBy(() -> reader.read(deep, r))
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining("limit");
  }

  @Test
  void rejectsHugeRecords() {
    JsonRecordReader small = new JsonRecordReader(new JsonRecordReader.Limits(16, 1000, 100));
    String big = "{\"a\":\"" + "x".repeat(200) + "\"}";
    assertThatThrownBy(() -> small.read(big, r))
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining("exceeds");
  }

  @Test
  void eachShapeOfBadInputHasItsReason() {
    Map<String, BadRecord> shapes = new java.util.LinkedHashMap<>();
    shapes.put("{\"a\": 1, oops}", BadRecord.MALFORMED_JSON);
    shapes.put("{\"a\": 1} {\"b\": 2}", BadRecord.MALFORMED_JSON);
    shapes.put("{\"a\": 1, \"b\": [1, 2", BadRecord.TRUNCATED);
    shapes.put("{\"a\": \"unterminated", BadRecord.TRUNCATED);
    shapes.put("{\"a\": 2,", BadRecord.TRUNCATED);
    shapes.put("{\"a\": NaN}", BadRecord.NOT_A_NUMBER);
    shapes.put("{\"a\": -Infinity}", BadRecord.NOT_A_NUMBER);
    shapes.put("[{\"a\": 1}]", BadRecord.NOT_AN_OBJECT);
    shapes.put("\"text\"", BadRecord.NOT_AN_OBJECT);
    shapes.put("{\"a\": [[[[[[[[[1]]]]]]]]]}", BadRecord.TOO_DEEP);
    JsonRecordReader shallow = new JsonRecordReader(new JsonRecordReader.Limits(4, 100, 100));
    for (Map.Entry<String, BadRecord> shape : shapes.entrySet()) {
      assertThatThrownBy(() -> shallow.read(shape.getKey(), r))
          .as(shape.getKey())
          .isInstanceOfSatisfying(
              MalformedRecordException.class,
              e -> assertThat(e.reason()).as(shape.getKey()).isEqualTo(shape.getValue()));
    }
    byte[] latin1 = "{\"a\": \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
    assertThat(reason(shallow, latin1)).isEqualTo(BadRecord.INVALID_UTF8);
    byte[] binary = {0x1f, (byte) 0x8b, 0x08, 0x00, 0x00, 0x00, '{', 0x00};
    assertThat(reason(shallow, binary)).isEqualTo(BadRecord.BINARY);
    assertThat(reason(shallow, ("{\"a\": \"" + "x".repeat(200) + "\"}").getBytes()))
        .isEqualTo(BadRecord.TOO_LONG);
  }

  @Test
  void oneLimitBoundsRecordsAndTheirStrings() throws Exception {
    JsonRecordReader.Limits limits = JsonRecordReader.Limits.forRecordBytes(8 << 20);
    assertThat(limits.maxStringLength()).isEqualTo(8 << 20);
    String big = "{\"a\": \"" + "x".repeat(6 << 20) + "\"}";
    new JsonRecordReader(limits).read(big, r);
    assertThat(((String) r.get("a")).length()).isEqualTo(6 << 20);
    assertThatThrownBy(() -> reader.read(big, r))
        .isInstanceOfSatisfying(
            MalformedRecordException.class,
            e -> assertThat(e.reason()).isEqualTo(BadRecord.TOO_LONG));
  }

  private BadRecord reason(JsonRecordReader reader, byte[] bytes) {
    try {
      reader.read(bytes, 0, bytes.length, r);
    } catch (MalformedRecordException e) {
      return e.reason();
    }
    throw new AssertionError("read: " + new String(bytes, StandardCharsets.ISO_8859_1));
  }

  @Test
  void readerRecoversAfterABadRecord() throws Exception {
    try {
      reader.read("{oops", r);
    } catch (MalformedRecordException expected) {
      // counted by the caller
    }
    reader.read("{\"a\":1}", r);
    assertThat(r.get("a")).isEqualTo(1L);
  }
}

package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.result.ResultJson;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A whole record written from its bytes ({@link RawJson}) reads exactly as the same record decoded
 * and written field by field: copied only when that gives the same text.
 */
class RawJsonTest {
  private static final JsonFactory JSON = new JsonFactory();
  private static long copied;
  private static long canonicalTried;

  @Test
  void aCanonicalRecordIsCopiedWithItsSetFields() throws IOException {
    String json =
        "{\"id\":\"x\",\"n\":-12,\"d\":17.54,\"o\":{\"a\":[1,true,null,\"é\"]},\"z\":false}";
    WholeRecord r = record(json, "id", "y", "_read_ms", 7L);
    assertThat(writeRaw(r))
        .isEqualTo(
            "{\"id\":\"y\",\"n\":-12,\"d\":17.54,\"o\":{\"a\":[1,true,null,\"é\"]},\"z\":false,"
                + "\"_read_ms\":7}");
    assertThat(r.isDecoded()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{}",
        "{\"a\":1}",
        "{\"a\":1,\"b\":2}",
        "{\"b\":2,\"a\":1}",
        "{\"b\":2,\"a\":1,\"c\":3}",
        "{\"a\":{},\"b\":[],\"c\":[{}],\"\":\"\"}"
      })
  void setFieldsGoWhereTheDecodedMapPutsThem(String json) throws IOException {
    for (Object[] set :
        List.of(
            new Object[] {},
            new Object[] {"a", "new"},
            new Object[] {"_read_ms", 5L},
            new Object[] {"a", 9L, "_read_ms", 5L},
            new Object[] {"b", List.of(1L), "a", Map.of("k", "v")})) {
      WholeRecord raw = record(json, set);
      WholeRecord decoded = record(json, set);
      decoded.size();
      assertThat(writeRaw(raw)).as(json).isEqualTo(write(decoded));
      assertThat(raw.isDecoded()).isFalse();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"a\": 1}",
        " {\"a\":1}",
        "{\"a\":1}\r",
        "{\"a\":\"x\\ny\"}",
        "{\"a\":\"\\u0041\"}",
        "{\"a\\u0041\":1}",
        "{\"a\":1e309}",
        "{\"a\":[1,-1e400]}",
        "{\"a\":1,\"a\":2}",
        "{\"o\":{\"k\":1,\"k\":2}}",
        "{\"o\":[{\"k\":1,\"j\":0,\"k\":2}]}"
      })
  void anythingDecodingWouldWriteOtherwiseIsDecoded(String json) throws IOException {
    WholeRecord r = record(json, "_read_ms", 1L);
    assertThat(copies(r)).as(json).isFalse();
    WholeRecord decoded = record(json, "_read_ms", 1L);
    decoded.size();
    assertThat(write(r)).isEqualTo(write(decoded));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"a\":1.50}",
        "{\"a\":-174.7190,\"b\":[1e3,2E-2,0.0001],\"c\":{\"d\":12345678.5}}",
        "{\"a\":-0,\"b\":-0.0,\"c\":0e5}",
        "{\"a\":1234567890123456789,\"b\":-9223372036854775808}",
        "{\"a\":9223372036854775808,\"b\":123456789012345678901234567890}",
        "{\"a\":4.9e-324,\"b\":1e-400,\"c\":1.7976931348623157e308}"
      })
  void numbersAreWrittenAsDecodingWritesThem(String json) throws IOException {
    WholeRecord raw = record(json, "a", 3L, "_read_ms", 1L);
    WholeRecord decoded = record(json, "a", 3L, "_read_ms", 1L);
    decoded.size();
    assertThat(writeRaw(raw)).as(json).isEqualTo(write(decoded));
    raw = record(json, "_read_ms", 1L);
    decoded = record(json, "_read_ms", 1L);
    decoded.size();
    assertThat(writeRaw(raw)).as(json).isEqualTo(write(decoded));
  }

  @Test
  void aGeneratorThatFormatsGetsTheDecodedRecord() throws IOException {
    WholeRecord r = record("{\"a\":1}");
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out).useDefaultPrettyPrinter()) {
      assertThat(r.writeRaw(g, ResultJson::writeValue)).isFalse();
    }
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void manyNamesAreCheckedForRepeats() throws IOException {
    StringBuilder json = new StringBuilder("{");
    for (int i = 0; i < 40; i++) {
      json.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":").append(i);
    }
    String unique = json + "}";
    String repeated = json + ",\"f17\":0}";
    assertThat(copies(record(unique))).isTrue();
    assertThat(copies(record(repeated))).isFalse();
  }

  @Property(tries = 3_000)
  void writtenAsTheDecodedRecordIs(@ForAll long seed) throws IOException {
    JsonSamples samples = new JsonSamples(seed);
    byte[] json = samples.record(6);
    Record whole = new Record();
    try {
      new JsonRecordReader().read(json, 0, json.length, whole);
    } catch (MalformedRecordException e) {
      throw new AssertionError(new String(json, StandardCharsets.UTF_8), e);
    }
    Map<String, Object> map = whole.toMap();
    // as generated (whitespace, escapes, numbers of every form), and as written back compactly
    byte[] compact = write(map).getBytes(StandardCharsets.UTF_8);
    List<String> names = samples.selection();
    Object[] set = new Object[2 * names.size() + 2];
    for (int i = 0; i < names.size(); i++) {
      set[2 * i] = names.get(i);
      set[2 * i + 1] = i % 2 == 0 ? (Object) ("v" + i) : (Object) (long) i;
    }
    set[set.length - 2] = "_read_ms";
    set[set.length - 1] = 42L;
    for (byte[] bytes : List.of(json, compact)) {
      WholeRecord raw = record(new String(bytes, StandardCharsets.UTF_8), set);
      WholeRecord decoded = record(new String(bytes, StandardCharsets.UTF_8), set);
      decoded.size();
      StringWriter out = new StringWriter();
      boolean wasCopied;
      try (JsonGenerator g = JSON.createGenerator(out)) {
        wasCopied = raw.writeRaw(g, ResultJson::writeValue);
        if (!wasCopied) {
          ResultJson.writeValue(g, raw);
        }
      }
      assertThat(out.toString())
          .as(new String(bytes, StandardCharsets.UTF_8))
          .isEqualTo(write(decoded));
      if (bytes == compact) {
        canonicalTried++;
        copied += wasCopied ? 1 : 0;
      }
    }
  }

  @AfterContainer
  static void mostCompactRecordsWereCopied() {
    // a compact record is copied unless it has an escape or a number written otherwise
    assertThat(copied)
        .as("compact records copied, of " + canonicalTried)
        .isGreaterThan(canonicalTried / 4);
  }

  /** A whole record of {@code json} with fields set over it: name, value, name, value... */
  private static WholeRecord record(String json, Object... set) {
    List<String> names = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < set.length; i += 2) {
      if (!names.contains((String) set[i])) {
        names.add((String) set[i]);
        values.add(set[i + 1]);
      }
    }
    return new WholeRecord(
        json.getBytes(StandardCharsets.UTF_8), names.toArray(new String[0]), values.toArray());
  }

  /** Whether the record writes itself from its bytes (what it writes is dropped). */
  private static boolean copies(WholeRecord r) throws IOException {
    return r.writeRaw(JSON.createGenerator(new StringWriter()), ResultJson::writeValue);
  }

  private static String writeRaw(WholeRecord r) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      assertThat(r.writeRaw(g, ResultJson::writeValue)).isTrue();
    }
    return out.toString();
  }

  private static String write(Object value) throws IOException {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      ResultJson.writeValue(g, value);
    }
    return out.toString();
  }
}

package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.partial.PartialReader;
import io.spyglass.core.partial.PartialWriter;
import io.spyglass.core.partial.Partials;
import io.spyglass.core.partial.RawPartial;
import io.spyglass.core.partial.ValueCodec;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Records of a {@code SELECT *} kept as their JSON travel as their bytes (partials of format 2,
 * {@link ValueCodec#writeRecord}), never decoded on the way, and are written at the end exactly as
 * the record the filter kept is written where it never left its process.
 */
class KeptJsonTest {
  private static final String[] SAMPLES = {
    "{\"id\":\"x\",\"n\":-12,\"d\":17.54,\"o\":{\"a\":[1,true,null,\"é\"]},\"z\":false}",
    "{}",
    "{\"a\": 1, \"b\" : [ 2 ]}",
    "{\"a\":\"x\\ny\\u0041\",\"a\":2}",
    "{\"a\":1.50,\"b\":-0,\"c\":1e3,\"d\":123456789012345678901234567890}",
    "{\"k\":\"\\ud800\"}"
  };

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5})
  void aRawPartialCarriesItsRecordsAsTheirJsonAndTheyAreWrittenAsBefore(int sample)
      throws Exception {
    String json = SAMPLES[sample];
    RawPartial p = new RawPartial(10);
    p.add(kept(json, "_read_ms", 7L, "id", "y"));
    p.add(kept(json));
    byte[] bytes = Partials.encode(p, true);
    assertThat(bytes[4]).as("format").isEqualTo((byte) Partials.JSON_FORMAT_VERSION);
    assertThat(contains(bytes, json.getBytes(StandardCharsets.UTF_8)))
        .as("the JSON as it was read")
        .isTrue();
    assertThat(kept(p)).as("encoding decodes nothing").isTrue();

    Partial back = Partials.decode(bytes);
    assertThat(kept((RawPartial) back)).as("decoding decodes nothing").isTrue();
    // and again, as the combiner keeps them and hands them on
    Partial again = Partials.decode(Partials.encode(back, true));
    assertThat(kept((RawPartial) again)).isTrue();
    // written as the record that never left would be, and as the maps of format 1 are
    String expected = ResultJson.write(result(p.rows()));
    assertThat(ResultJson.write(result(back.rows()))).isEqualTo(expected);
    assertThat(ResultJson.write(result(again.rows()))).isEqualTo(expected);
    Partial asMaps = Partials.decode(Partials.encode(p, false));
    assertThat(ResultJson.write(result(asMaps.rows()))).isEqualTo(expected);
    assertThat(back.rows()).isEqualTo(asMaps.rows());
  }

  @Test
  void withoutJsonToKeepTheFormatIsOneAndTheBytesAreTheMaps() {
    RawPartial p = new RawPartial(3);
    Map<String, Object> whole = kept("{\"a\":1,\"b\":\"x\"}", "_read_ms", 5L);
    p.add(whole);
    RawPartial maps = new RawPartial(3);
    maps.add(new LinkedHashMap<>(kept("{\"a\":1,\"b\":\"x\"}", "_read_ms", 5L)));
    assertThat(((WholeRecord) whole).isDecoded()).isFalse();
    assertThat(Partials.encode(p)).isEqualTo(Partials.encode(maps));
    assertThat(Partials.encode(p)[4]).isEqualTo((byte) Partials.FORMAT_VERSION);
    // a record decoded meanwhile (read, perhaps changed) goes as its map
    RawPartial decoded = new RawPartial(3);
    Map<String, Object> read = kept("{\"a\":1,\"b\":\"x\"}", "_read_ms", 5L);
    read.get("a");
    decoded.add(read);
    assertThat(Partials.encode(decoded, true)).isEqualTo(Partials.encode(maps));
  }

  @Test
  void bytesThatAreNotJsonAreRefused() {
    for (String bad : new String[] {"{\"a\":", "[1]", "{\"a\":1}x", "{\"a\":tru}"}) {
      PartialWriter out = new PartialWriter();
      out.writeByte(10).writeBytes(bad.getBytes(StandardCharsets.UTF_8)).writeVarInt(0);
      assertThatThrownBy(() -> ValueCodec.readRecord(new PartialReader(out.toByteArray())))
          .as(bad)
          .isInstanceOf(PartialFormatException.class)
          .hasMessageContaining("not one JSON object");
    }
    PartialWriter invalidUtf8 = new PartialWriter();
    invalidUtf8
        .writeByte(10)
        .writeBytes(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'});
    invalidUtf8.writeVarInt(0);
    assertThatThrownBy(() -> ValueCodec.readRecord(new PartialReader(invalidUtf8.toByteArray())))
        .isInstanceOf(PartialFormatException.class);
    PartialWriter notARecord = new PartialWriter();
    ValueCodec.write(notARecord, List.of(1L));
    assertThatThrownBy(() -> ValueCodec.readRecord(new PartialReader(notARecord.toByteArray())))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("not a map");
  }

  @Test
  void aCombinerSnapshotKeepsTheJsonAndRestoresIt() {
    Query q =
        Query.parse("q", "SELECT * FROM STREAM(60000, TIME) LIMIT 5", QueryLimits.DEFAULTS, 0);
    List<Result> out = new ArrayList<>();
    QueryCombiner c = new QueryCombiner(q, QueryLimits.DEFAULTS, (x, r) -> out.add(r), () -> 0);
    RawPartial p = new RawPartial(5);
    p.add(kept(SAMPLES[0], "_read_ms", 1L));
    p.add(kept(SAMPLES[2]));
    c.accept(p, 0);
    byte[] withJson = c.snapshot(true);
    assertThat(contains(withJson, SAMPLES[0].getBytes(StandardCharsets.UTF_8))).isTrue();
    List<Result> restoredOut = new ArrayList<>();
    QueryCombiner restored =
        QueryCombiner.restore(
            q, QueryLimits.DEFAULTS, (x, r) -> restoredOut.add(r), () -> 0, withJson);
    restored.finish(10);
    c.finish(10);
    assertThat(ResultJson.write(restoredOut.get(0))).isEqualTo(ResultJson.write(out.get(0)));
    assertThat(restoredOut.get(0).records().get(0)).isInstanceOf(RawJson.class);
  }

  @Test
  void theQueriesThatKeepOneRecordShareOneCopyOfItsJson() throws Exception {
    byte[] batch = "{\"a\":1}{\"a\":2}".getBytes(StandardCharsets.UTF_8);
    RecordScanner scanner = new RecordScanner();
    Record r = new Record();
    scanner.read(batch, 0, 7, r);
    Map<String, Object> one = r.toFullMap();
    r.putLong("_read_ms", 3);
    Map<String, Object> two = r.toFullMap();
    assertThat(((RawJson) one).kept().json()).isSameAs(((RawJson) two).kept().json());
    assertThat(one).isEqualTo(Map.of("a", 1L));
    assertThat(two).isEqualTo(Map.of("a", 1L, "_read_ms", 3L));
    scanner.read(batch, 7, 7, r);
    Map<String, Object> next = r.toFullMap();
    assertThat(new String(((RawJson) next).kept().json(), StandardCharsets.UTF_8))
        .isEqualTo("{\"a\":2}");
    assertThat(next).isEqualTo(Map.of("a", 2L));
    assertThat(((RawJson) two).kept()).as("decoded by equals").isNull();
  }

  /** Records as the reader generates them (whitespace, escapes, numbers of every form). */
  @Property(tries = 1_000)
  void anyRecordTravelsAsItsJson(@ForAll long seed) throws Exception {
    byte[] json = new JsonSamples(seed).record(6);
    Record r = new Record();
    RecordScanner scanner = new RecordScanner();
    scanner.select(java.util.Set.of());
    assertThat(scanner.scan(json, 0, json.length)).isTrue();
    scanner.decode(r);
    r.putLong("_read_ms", 42);
    RawPartial p = new RawPartial(1);
    p.add(r.toFullMap());
    Partial back = Partials.decode(Partials.encode(p, true));
    assertThat(ResultJson.write(result(back.rows()))).isEqualTo(ResultJson.write(result(p.rows())));
  }

  private static Result result(List<Map<String, Object>> rows) {
    Query q = Query.parse("q", "SELECT * FROM STREAM(1000, TIME)", QueryLimits.DEFAULTS, 0);
    List<Result> out = new ArrayList<>();
    QueryCombiner c = new QueryCombiner(q, QueryLimits.DEFAULTS, (x, r) -> out.add(r), () -> 0);
    c.finish(5);
    return new Result(rows, out.get(0).meta());
  }

  private static boolean kept(RawPartial p) {
    for (Map<String, Object> r : p.rows()) {
      if (!(r instanceof WholeRecord w) || w.isDecoded()) {
        return false;
      }
    }
    return true;
  }

  /** A record kept as {@code json}, with fields set over it: name, value, name, value... */
  private static Map<String, Object> kept(String json, Object... set) {
    String[] names = new String[set.length / 2];
    Object[] values = new Object[set.length / 2];
    for (int i = 0; i < names.length; i++) {
      names[i] = (String) set[2 * i];
      values[i] = set[2 * i + 1];
    }
    try {
      return RawJson.of(json.getBytes(StandardCharsets.UTF_8), names, values);
    } catch (MalformedRecordException e) {
      throw new AssertionError(json, e);
    }
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}

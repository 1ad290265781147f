package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The scanner reads every record as a strict parse does: bytes that are not UTF-8 (or hold a NUL)
 * are refused for that reason, and the text of the others is read by Jackson's parser (from
 * characters, so that no byte-level leniency of its own can enter): the same fields, values, types
 * and order, the same records refused, for every selection of fields. On awkward valid records and
 * on the same records damaged byte by byte; the seed of each try is printed by jqwik on failure.
 */
class RecordScannerProperties {
  @Property(tries = 3_000)
  void validRecordsReadAsAStrictParseReadsThem(@ForAll long seed) {
    JsonSamples samples = new JsonSamples(seed);
    byte[] json = samples.record(6);
    sameAsAStrictParse(json, samples.selection());
  }

  @Property(tries = 3_000)
  void damagedRecordsGetAStrictParsesVerdict(@ForAll long seed) {
    JsonSamples samples = new JsonSamples(seed);
    byte[] json = samples.damaged(5);
    sameAsAStrictParse(json, samples.selection());
  }

  @Property(tries = 3_000)
  void aNameGivenTwiceIsTheOneAStrictParsersDuplicateDetectionFinds(@ForAll long seed) {
    byte[] json = new JsonSamples(seed).record(6);
    RecordScanner scanner = new RecordScanner();
    assertThat(scanner.scan(json, 0, json.length)).isTrue();
    String found = scanner.duplicateName();
    String text = new String(json, StandardCharsets.UTF_8);
    try (JsonParser p = STRICT.createParser(text.startsWith("\ufeff") ? text.substring(1) : text)) {
      while (p.nextToken() != null) {
        p.currentName();
      }
      assertThat(found).as(text).isNull();
    } catch (IOException e) {
      String message = String.valueOf(e.getMessage());
      if (message.contains("surrogate") && message.contains("field name")) {
        return; // Jackson alone refuses it (see Parsed)
      }
      assertThat(message).as(text).startsWith("Duplicate field '" + found + "'");
    }
  }

  private static final JsonFactory STRICT =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNumberLength(JsonRecordReader.Limits.DEFAULT_MAX_NUMBER_CHARS)
                  .maxNameLength(JsonRecordReader.Limits.DEFAULT_MAX_NAME_BYTES)
                  .build())
          .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final JsonFactory JACKSON =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(JsonRecordReader.Limits.DEFAULT_MAX_DEPTH)
                  .maxNumberLength(JsonRecordReader.Limits.DEFAULT_MAX_NUMBER_CHARS)
                  .maxNameLength(JsonRecordReader.Limits.DEFAULT_MAX_NAME_BYTES)
                  .build())
          .build();

  /**
   * What a strict parse makes of {@code json}: a map, or the reason it is refused (and the parser's
   * message); neither for text that Jackson alone refuses (an unpaired surrogate escaped in a name:
   * it checks pairs in names but not in strings, where the scanner keeps them everywhere).
   */
  record Parsed(Map<String, Object> record, BadRecord refused, String message) {
    Parsed(Map<String, Object> record, BadRecord refused) {
      this(record, refused, null);
    }
  }

  /**
   * Bytes with a NUL are binary, bytes that are not UTF-8 (unless only cut short at the end, which
   * is the JSON text's truncation) are invalid; the text of the others is parsed by Jackson, which
   * says whether it is one JSON object (its reasons are not compared: only that it refuses).
   */
  static Parsed strictParse(byte[] json) {
    for (byte b : json) {
      if (b == 0) {
        return new Parsed(null, BadRecord.BINARY);
      }
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(json))
              .toString();
    } catch (CharacterCodingException e) {
      int invalid = Utf8.firstInvalid(json, 0, json.length);
      return new Parsed(null, invalid >= 0 ? BadRecord.INVALID_UTF8 : BadRecord.TRUNCATED);
    }
    if (text.startsWith("\ufeff")) {
      text = text.substring(1); // a byte-order mark, which RFC 8259 lets a parser ignore
    }
    try (JsonParser p = JACKSON.createParser(text)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return new Parsed(null, BadRecord.NOT_AN_OBJECT);
      }
      Map<String, Object> m = readMap(p);
      if (p.nextToken() != null) {
        return new Parsed(null, BadRecord.MALFORMED_JSON);
      }
      return new Parsed(m, null);
    } catch (IOException e) {
      String message = String.valueOf(e.getMessage());
      if (message.contains("surrogate") && message.contains("field name")) {
        return new Parsed(null, null);
      }
      return new Parsed(null, BadRecord.MALFORMED_JSON, e.getMessage());
    }
  }

  /** Reads {@code json} both ways, in the middle of a larger array, and compares. */
  static void sameAsAStrictParse(byte[] json, List<String> names) {
    Set<String> selection = new LinkedHashSet<>(names);
    byte[] padded = new byte[json.length + 16];
    java.util.Arrays.fill(padded, (byte) '"');
    System.arraycopy(json, 0, padded, 5, json.length);
    String text = new String(json, StandardCharsets.UTF_8);
    Parsed expected = strictParse(json);

    RecordScanner scanner = new RecordScanner();
    scanner.select(selection);
    Record actual = new Record();
    BadRecord refused = null;
    try {
      scanner.read(padded, 5, json.length, actual);
    } catch (MalformedRecordException e) {
      refused = e.reason();
    }
    if (expected.record() == null && expected.refused() == null) {
      return;
    }
    if (expected.refused() == null) {
      assertThat(refused).as("refused: " + text).isNull();
    } else {
      assertThat(refused).as("accepted: " + text + "\n" + expected.message()).isNotNull();
      if (expected.refused() == BadRecord.BINARY || expected.refused() == BadRecord.INVALID_UTF8) {
        assertThat(refused).as(text).isEqualTo(expected.refused());
      }
      return;
    }
    Map<String, Object> whole = expected.record();
    List<String> kept = new ArrayList<>();
    whole.keySet().stream().filter(selection::contains).forEach(kept::add);
    assertThat(actual.names()).as(text).containsExactlyElementsOf(kept);
    for (int i = 0; i < actual.size(); i++) {
      Object value = whole.get(actual.nameAt(i));
      if (value instanceof Map<?, ?> map) {
        // members one by one first, before anything decodes the whole object
        Map<?, ?> lazy = (Map<?, ?>) actual.valueAt(i);
        for (Object key : map.keySet()) {
          assertThat(lazy.containsKey(key)).as(text).isTrue();
          assertThat(String.valueOf(lazy.get(key)))
              .as(text)
              .isEqualTo(String.valueOf(map.get(key)));
        }
        assertThat(lazy.get("absent")).isEqualTo(map.get("absent"));
      }
      assertThat(actual.valueAt(i)).as(text).isEqualTo(value);
      // the same order inside maps, and the same number types inside lists and maps
      assertThat(String.valueOf(actual.valueAt(i))).as(text).isEqualTo(String.valueOf(value));
    }
    assertThat(actual.isPartial()).isTrue();
    Map<String, Object> full = actual.toFullMap();
    assertThat(full).as(text).isEqualTo(whole);
    assertThat(String.valueOf(full)).as(text).isEqualTo(String.valueOf(whole));

    // every field at once, whatever the selection
    JsonRecordReader reader = new JsonRecordReader();
    Record all = new Record();
    try {
      reader.read(padded, 5, json.length, all);
    } catch (MalformedRecordException e) {
      throw new AssertionError("refused when read whole: " + text, e);
    }
    assertThat(all.toMap()).as(text).isEqualTo(whole);
    assertThat(String.valueOf(all.toMap())).as(text).isEqualTo(String.valueOf(whole));
  }

  private static Map<String, Object> readMap(JsonParser p) throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      m.put(name, readValue(p));
    }
    return m;
  }

  private static Object readValue(JsonParser p) throws IOException {
    switch (p.currentToken()) {
      case VALUE_STRING:
        return p.getText();
      case VALUE_NUMBER_INT:
        return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
            ? (Object) p.getDoubleValue()
            : (Object) p.getLongValue();
      case VALUE_NUMBER_FLOAT:
        return p.getDoubleValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case START_OBJECT:
        return readMap(p);
      case START_ARRAY:
        List<Object> l = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          l.add(readValue(p));
        }
        return l;
      default:
        return null;
    }
  }
}

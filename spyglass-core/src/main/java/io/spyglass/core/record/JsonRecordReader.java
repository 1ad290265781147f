package io.spyglass.core.record;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import java.io.CharConversionException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads one JSON object into a {@link Record} with Jackson's streaming parser. Integral numbers
 * become LONG, others DOUBLE; nested objects and arrays become maps and lists of boxed values.
 *
 * <p>With a field selection ({@link #select}), top-level fields outside it are skipped without
 * building their values: a runtime passes the names its active queries reference.
 *
 * <p>Not thread-safe: one reader per thread.
 */
public final class JsonRecordReader {
  /** Bounds on one record. */
  public record Limits(int maxDepth, int maxStringLength, int maxRecordBytes) {
    public static final int DEFAULT_MAX_RECORD_BYTES = 4 << 20;
    public static final Limits DEFAULTS = forRecordBytes(DEFAULT_MAX_RECORD_BYTES);

    /** One size limit for records, which bounds their strings too; objects nest 64 deep. */
    public static Limits forRecordBytes(int maxRecordBytes) {
      return new Limits(64, maxRecordBytes, maxRecordBytes);
    }
  }

  private final JsonFactory factory;
  private final Limits limits;
  private Set<String> selection;

  public JsonRecordReader() {
    this(Limits.DEFAULTS);
  }

  public JsonRecordReader(Limits limits) {
    this.limits = limits;
    this.factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(limits.maxDepth())
                    .maxStringLength(limits.maxStringLength())
                    .maxNumberLength(100)
                    .build())
            .build();
  }

  /**
   * Keeps only these top-level fields; {@code null} keeps all. The set must not change while in
   * use; pass a new one instead.
   */
  public void select(Set<String> topLevelFields) {
    this.selection = topLevelFields;
  }

  public void read(String json, Record into) throws MalformedRecordException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    read(bytes, 0, bytes.length, into);
  }

  /**
   * Clears {@code into} and fills it with the JSON object in {@code bytes[offset, offset+length)}.
   *
   * @throws MalformedRecordException when the bytes are not one JSON object within the limits, with
   *     the {@link BadRecord reason}; the record's content is then unspecified
   */
  public void read(byte[] bytes, int offset, int length, Record into)
      throws MalformedRecordException {
    into.clear();
    if (length > limits.maxRecordBytes()) {
      throw new MalformedRecordException(
          BadRecord.TOO_LONG,
          "Record of " + length + " bytes exceeds the limit of " + limits.maxRecordBytes());
    }
    try (JsonParser p = factory.createParser(bytes, offset, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new MalformedRecordException(BadRecord.NOT_AN_OBJECT, "Expected a JSON object");
      }
      Set<String> keep = selection;
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (keep != null && !keep.contains(name)) {
          p.skipChildren();
          continue;
        }
        switch (v) {
          case VALUE_STRING:
            into.putString(name, p.getText());
            break;
          case VALUE_NUMBER_INT:
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
              into.putDouble(name, p.getDoubleValue());
            } else {
              into.putLong(name, p.getLongValue());
            }
            break;
          case VALUE_NUMBER_FLOAT:
            into.putDouble(name, p.getDoubleValue());
            break;
          case VALUE_TRUE:
            into.putBoolean(name, true);
            break;
          case VALUE_FALSE:
            into.putBoolean(name, false);
            break;
          case VALUE_NULL:
            into.putNull(name);
            break;
          case START_OBJECT:
            into.putMap(name, readMap(p));
            break;
          case START_ARRAY:
            into.putList(name, readList(p));
            break;
          default:
            throw new MalformedRecordException(
                BadRecord.MALFORMED_JSON, "Unexpected token " + v + " in field " + name);
        }
      }
      if (t != JsonToken.END_OBJECT) {
        throw new MalformedRecordException(
            BadRecord.MALFORMED_JSON, "Unexpected token " + t + " in a JSON object");
      }
      if (p.nextToken() != null) {
        throw new MalformedRecordException(
            BadRecord.MALFORMED_JSON, "Trailing content after the JSON object");
      }
      if (keep != null) {
        into.partOf(bytes, offset, length);
      }
    } catch (StreamConstraintsException e) {
      boolean depth = String.valueOf(e.getOriginalMessage()).contains("nesting depth");
      throw new MalformedRecordException(
          depth ? BadRecord.TOO_DEEP : BadRecord.TOO_LONG,
          "Record exceeds a limit: " + e.getOriginalMessage(),
          e);
    } catch (IOException e) {
      throw new MalformedRecordException(
          classify(e, bytes, offset, length), "Malformed JSON: " + firstLine(e.getMessage()), e);
    }
  }

  /** Why Jackson could not read the bytes; only called for input that failed. */
  private static BadRecord classify(IOException e, byte[] bytes, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      if (bytes[i] == 0) {
        return BadRecord.BINARY;
      }
    }
    String message = String.valueOf(e.getMessage());
    if (e instanceof CharConversionException || message.contains("Invalid UTF-8")) {
      return BadRecord.INVALID_UTF8;
    }
    if (e instanceof JsonEOFException || message.contains("Unexpected end-of-input")) {
      return BadRecord.TRUNCATED;
    }
    if (message.contains("Non-standard token")) {
      return BadRecord.NOT_A_NUMBER;
    }
    return BadRecord.MALFORMED_JSON;
  }

  private static final JsonFactory WHOLE = new JsonFactory();

  /**
   * The whole object in bytes that {@link #read} accepted before, as a map (see {@link
   * Record#toFullMap()}).
   *
   * @throws IllegalStateException if the bytes are not a JSON object any more
   */
  static Map<String, Object> readWhole(byte[] bytes, int offset, int length) {
    try (JsonParser p = WHOLE.createParser(bytes, offset, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalStateException("the record's bytes changed: not a JSON object");
      }
      return readMap(p);
    } catch (IOException e) {
      throw new IllegalStateException("the record's bytes changed: " + e.getMessage(), e);
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
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

  private static List<Object> readList(JsonParser p) throws IOException {
    List<Object> l = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
      l.add(readValue(p));
    }
    return l;
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
        return readList(p);
      default:
        return null;
    }
  }
}

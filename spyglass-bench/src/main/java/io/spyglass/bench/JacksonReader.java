package io.spyglass.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The baseline the engine's reader is measured against: Jackson's streaming parser reading a
 * record's selected fields (all when the selection is null), skipping the others, into a {@link
 * Record}, as the engine read records before its own scan did. Not a reader of the engine: it
 * checks what Jackson checks (not the engine's definition of a valid record).
 */
final class JacksonReader {
  private final JsonFactory factory = new JsonFactory();
  private Set<String> selection;

  void select(Set<String> topLevelFields) {
    selection = topLevelFields;
  }

  void read(byte[] bytes, int offset, int length, Record into) throws MalformedRecordException {
    into.clear();
    try (JsonParser p = factory.createParser(bytes, offset, length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new MalformedRecordException(BadRecord.NOT_AN_OBJECT, "Expected a JSON object");
      }
      Set<String> keep = selection;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (keep != null && !keep.contains(name)) {
          p.skipChildren();
          continue;
        }
        switch (v) {
          case VALUE_STRING -> into.putString(name, p.getText());
          case VALUE_NUMBER_INT -> {
            if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
              into.putDouble(name, p.getDoubleValue());
            } else {
              into.putLong(name, p.getLongValue());
            }
          }
          case VALUE_NUMBER_FLOAT -> into.putDouble(name, p.getDoubleValue());
          case VALUE_TRUE -> into.putBoolean(name, true);
          case VALUE_FALSE -> into.putBoolean(name, false);
          case START_OBJECT -> into.putMap(name, readMap(p));
          case START_ARRAY -> into.putList(name, readList(p));
          default -> into.putNull(name);
        }
      }
      if (keep != null) {
        into.partOf(bytes, offset, length);
      }
    } catch (IOException e) {
      throw new MalformedRecordException(BadRecord.MALFORMED_JSON, e.getMessage(), e);
    }
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
    return switch (p.currentToken()) {
      case VALUE_STRING -> p.getText();
      case VALUE_NUMBER_INT ->
          p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
              ? (Object) p.getDoubleValue()
              : (Object) p.getLongValue();
      case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case START_OBJECT -> readMap(p);
      case START_ARRAY -> readList(p);
      default -> null;
    };
  }
}

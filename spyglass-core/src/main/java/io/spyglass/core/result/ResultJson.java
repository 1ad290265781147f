package io.spyglass.core.result;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.record.RawJson;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Writes results as one-line JSON. */
public final class ResultJson {
  private static final JsonFactory JSON = new JsonFactory();

  private ResultJson() {}

  public static String write(Result result) {
    StringWriter out = new StringWriter(256);
    try {
      write(result, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * Writes the result's JSON to {@code out} as it goes, without building it in memory first (a
   * window of raw records can be tens of megabytes); {@code out} is flushed, not closed.
   */
  public static void write(Result result, Writer out) throws IOException {
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      g.writeStartObject();
      g.writeFieldName("records");
      g.writeStartArray();
      for (Map<String, Object> record : result.records()) {
        writeValue(g, record);
      }
      g.writeEndArray();
      g.writeFieldName("meta");
      writeMeta(g, result.meta());
      g.writeEndObject();
    }
  }

  private static void writeMeta(JsonGenerator g, Meta m) throws IOException {
    g.writeStartObject();
    g.writeFieldName("query");
    g.writeStartObject();
    g.writeStringField("id", m.queryId());
    g.writeStringField("text", m.queryText());
    g.writeNumberField("receiveTime", m.receiveTimeMs());
    if (m.finishTimeMs().isPresent()) {
      g.writeNumberField("finishTime", m.finishTimeMs().get());
    }
    g.writeEndObject();
    if (m.window().isPresent()) {
      Meta.WindowMeta w = m.window().get();
      g.writeFieldName("window");
      g.writeStartObject();
      g.writeNumberField("number", w.number());
      g.writeStringField("name", w.name());
      g.writeNumberField("emitTime", w.emitTimeMs());
      g.writeNumberField("startTime", w.startTimeMs());
      g.writeNumberField("size", w.size());
      if (w.eventWindow().isPresent()) {
        Meta.EventWindow e = w.eventWindow().get();
        g.writeNumberField("endTime", e.endTimeMs());
        g.writeBooleanField("final", e.isFinal());
        g.writeNumberField("late", e.late());
        if (e.lateUpdate()) {
          g.writeBooleanField("lateUpdate", true);
        }
      }
      g.writeEndObject();
    }
    if (m.eventTime().isPresent()) {
      Meta.EventTimeMeta e = m.eventTime().get();
      g.writeNumberField("late", e.late());
      g.writeFieldName("eventTime");
      g.writeStartObject();
      if (e.watermarkMs().isPresent()) {
        g.writeNumberField("watermark", e.watermarkMs().get());
        g.writeNumberField("maxTime", e.maxTimeMs().get());
      }
      g.writeNumberField("withoutTime", e.withoutTime());
      g.writeEndObject();
    }
    if (!m.sketch().isEmpty()) {
      g.writeFieldName("sketch");
      writeValue(g, new TreeMap<>(m.sketch()));
    }
    if (!m.badInput().isEmpty()) {
      g.writeFieldName("badInput");
      g.writeStartObject();
      for (Map.Entry<String, Long> e : m.badInput().entrySet()) {
        g.writeNumberField(e.getKey(), e.getValue());
      }
      g.writeEndObject();
    }
    if (!m.errors().isEmpty()) {
      g.writeFieldName("errors");
      g.writeStartArray();
      for (Meta.QueryError e : m.errors()) {
        g.writeStartObject();
        g.writeStringField("message", e.message());
        g.writeStringField("resolution", e.resolution());
        g.writeBooleanField("fatal", e.fatal());
        g.writeEndObject();
      }
      g.writeEndArray();
    }
    g.writeBooleanField("final", m.isFinal());
    g.writeEndObject();
  }

  /**
   * Writes a boxed value: null, Boolean, Number, String, Map or List, to any depth. A record kept
   * as its JSON ({@link RawJson}) is copied when that gives the same text.
   */
  public static void writeValue(JsonGenerator g, Object v) throws IOException {
    if (v instanceof RawJson && ((RawJson) v).writeRaw(g, ResultJson::writeValue)) {
      return;
    }
    if (v == null) {
      g.writeNull();
    } else if (v instanceof String) {
      g.writeString((String) v);
    } else if (v instanceof Long || v instanceof Integer) {
      g.writeNumber(((Number) v).longValue());
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (v instanceof Float f && Float.isFinite(f)) {
        g.writeNumber(f); // as Bullet prints a FLOAT: 1.1, not its double expansion
      } else if (Double.isFinite(d)) {
        g.writeNumber(d);
      } else {
        g.writeString(Double.toString(d));
      }
    } else if (v instanceof Boolean) {
      g.writeBoolean((Boolean) v);
    } else if (v instanceof Map) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        g.writeFieldName(String.valueOf(e.getKey()));
        writeValue(g, e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof List) {
      g.writeStartArray();
      for (Object o : (List<?>) v) {
        writeValue(g, o);
      }
      g.writeEndArray();
    } else {
      g.writeString(v.toString());
    }
  }
}

package io.spyglass.core.result;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.core.io.SerializedString;
import io.spyglass.core.record.RawJson;
import io.spyglass.core.record.Surrogates;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
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
   * Writes a string as it was read: an unpaired surrogate (which a record gets from an escape of
   * one) is written as its escape, where the encoder would write {@code ?}.
   */
  static void writeString(JsonGenerator g, String s) throws IOException {
    if (Surrogates.firstUnpaired(s) < 0) {
      g.writeString(s);
    } else {
      g.writeRawValue(quoted(s));
    }
  }

  /** Writes a field name as {@link #writeString} writes a string. */
  static void writeFieldName(JsonGenerator g, String name) throws IOException {
    if (Surrogates.firstUnpaired(name) < 0) {
      g.writeFieldName(name);
    } else {
      g.writeFieldName(new QuotedName(name, quoted(name)));
    }
  }

  /** {@code s} as a JSON string, quotes included, each unpaired surrogate escaped. */
  private static String quoted(String s) {
    JsonStringEncoder encoder = JsonStringEncoder.getInstance();
    StringBuilder out = new StringBuilder(s.length() + 16).append('"');
    int run = 0;
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i)) && Surrogates.isUnpaired(s, i)) {
        encoder.quoteAsString(s.substring(run, i), out);
        out.append(String.format("\\u%04x", (int) s.charAt(i)));
        run = i + 1;
      }
    }
    encoder.quoteAsString(s.substring(run), out);
    return out.append('"').toString();
  }

  /** A field name whose quoted text is given: the generators write the name from it. */
  private static final class QuotedName extends SerializedString {
    private static final long serialVersionUID = 1L;

    QuotedName(String name, String quotedWithQuotes) {
      super(name);
      String inner = quotedWithQuotes.substring(1, quotedWithQuotes.length() - 1);
      _quotedChars = inner.toCharArray();
      _quotedUTF8Ref = inner.getBytes(StandardCharsets.UTF_8);
    }
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
      writeString(g, (String) v);
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
        writeFieldName(g, String.valueOf(e.getKey()));
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

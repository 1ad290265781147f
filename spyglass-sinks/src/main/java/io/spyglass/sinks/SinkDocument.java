package io.spyglass.sinks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One document a sink delivers: a JSON object (UTF-8, one line) and the key a receiver deduplicates
 * on. A query's result becomes
 *
 * <pre>{@code
 * {"key": "<query id>:<window>", "query": "<query id>", "window": N, "final": true|false,
 *  "records": [...], "meta": {...}}
 * }</pre>
 *
 * whose {@code records} and {@code meta} are exactly the result's JSON ({@link ResultJson}, as the
 * service streams it); see {@link QuerySinks} for the key of each result. Other senders (alerts)
 * make documents of their own with {@link #of(String, byte[])}.
 *
 * <p>Immutable; the same document (its bytes) is shared by every sink of a query: do not change
 * {@link #json()}.
 *
 * @param key what a receiver deduplicates on: a delivery retried carries the same key
 * @param json the document, UTF-8, one line
 */
public record SinkDocument(String key, byte[] json) {
  private static final JsonFactory JSON = new JsonFactory();

  public SinkDocument {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(json, "json");
  }

  /** A document of any JSON (one line, UTF-8) under {@code key}. */
  public static SinkDocument of(String key, byte[] json) {
    return new SinkDocument(key, json);
  }

  /**
   * A result's document from its JSON as written by {@link ResultJson} ({@code {"records": [...],
   * "meta": {...}}}, UTF-8): the document's own fields, then the result's, byte for byte.
   */
  public static SinkDocument ofResult(
      String key, String queryId, long window, boolean isFinal, byte[] resultJson) {
    if (resultJson.length < 2 || resultJson[0] != '{') {
      throw new IllegalArgumentException("a result's JSON is an object");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(resultJson.length + 96);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("key", key);
      g.writeStringField("query", queryId);
      g.writeNumberField("window", window);
      g.writeBooleanField("final", isFinal);
      g.writeRaw(',');
      g.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    // the generator closed the object it opened: cut its '}' and go on with the result's fields
    byte[] head = out.toByteArray();
    int headLength = head.length - 1;
    byte[] doc = new byte[headLength + resultJson.length - 1];
    System.arraycopy(head, 0, doc, 0, headLength);
    System.arraycopy(resultJson, 1, doc, headLength, resultJson.length - 1);
    return new SinkDocument(key, doc);
  }

  /** A result's JSON as {@link ResultJson} writes it, UTF-8. */
  public static byte[] resultJson(Result result) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try {
      Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
      ResultJson.write(result, w);
      w.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** The bytes it holds, as counted against the buffers. */
  public int size() {
    return json.length + key.length() + 64;
  }

  /** The document as text. */
  public String text() {
    return new String(json, StandardCharsets.UTF_8);
  }
}

package io.spyglass.service.alerts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * The documents an alert's events are delivered as.
 *
 * <ul>
 *   <li>{@code json}: {@code {"key", "alert", "state": "firing"|"resolved", "labels", "window":
 *       {"start", "end"}, "values", "query", "time"}}, times in epoch milliseconds.
 *   <li>{@code alertmanager}: what Prometheus Alertmanager's {@code POST /api/v2/alerts} takes, a
 *       JSON array of one alert {@code {"labels": {"alertname", ...}, "annotations": {"summary",
 *       "query", "window"}, "startsAt", "endsAt", "generatorURL"}}, times in RFC 3339: a firing
 *       alert ends four windows after it was sent unless sent again (it is, each final window while
 *       it fires), a resolved one ends at the start of the window that resolved it.
 * </ul>
 */
final class Payloads {
  private Payloads() {}

  /** The formats. */
  enum Format {
    JSON("json"),
    ALERTMANAGER("alertmanager");

    final String wire;

    Format(String wire) {
      this.wire = wire;
    }

    static Format of(String wire) {
      for (Format f : values()) {
        if (f.wire.equals(wire)) {
          return f;
        }
      }
      return null;
    }
  }

  /**
   * The document of {@code e}.
   *
   * @param spec the alert's definition
   * @param generatorUrl where people see the alert (Alertmanager links to it)
   */
  static byte[] of(AlertStore.Event e, AlertSpec spec, String generatorUrl) {
    JsonNode doc =
        spec.format() == Format.ALERTMANAGER ? alertmanager(e, spec, generatorUrl) : json(e, spec);
    try {
      return Evaluator.JSON.writeValueAsBytes(doc);
    } catch (JsonProcessingException x) {
      throw new UncheckedIOException(x);
    }
  }

  static ObjectNode json(AlertStore.Event e, AlertSpec spec) {
    ObjectNode o = Evaluator.JSON.createObjectNode();
    o.put("key", e.key());
    o.put("alert", e.alert());
    o.put("state", e.state());
    ObjectNode labels = o.putObject("labels");
    labels.setAll(object(e.labels()));
    spec.labels().forEach(labels::put);
    ObjectNode window = o.putObject("window");
    window.put("start", e.windowStart());
    window.put("end", e.windowEnd());
    o.set("values", object(e.values()));
    o.put("query", spec.standingQuery());
    o.put("time", e.timeMs());
    return o;
  }

  static ArrayNode alertmanager(AlertStore.Event e, AlertSpec spec, String generatorUrl) {
    ArrayNode out = Evaluator.JSON.createArrayNode();
    ObjectNode a = out.addObject();
    ObjectNode labels = a.putObject("labels");
    labels.put("alertname", e.alert());
    for (Map.Entry<String, JsonNode> l : object(e.labels()).properties()) {
      labels.put(labelName(l.getKey()), l.getValue().asText());
    }
    spec.labels().forEach(labels::put);
    ObjectNode annotations = a.putObject("annotations");
    String window = rfc3339(e.windowStart()) + "/" + rfc3339(e.windowEnd());
    annotations.put(
        "summary",
        e.alert()
            + " "
            + e.state()
            + ": "
            + spec.conditionText()
            + " on standing query "
            + spec.standingQuery()
            + ", window "
            + window
            + (e.state().equals("firing") ? ", values " + e.values() : ""));
    annotations.put("query", spec.standingQuery());
    annotations.put("window", window);
    a.put("startsAt", rfc3339(e.windowStart()));
    if (e.state().equals("firing")) {
      // sent again each final window while it fires: Alertmanager resolves it by itself when
      // four windows pass without it (as Prometheus sets endsAt four evaluations ahead)
      long length = Math.max(1, e.windowEnd() - e.windowStart());
      a.put("endsAt", rfc3339(Math.max(e.timeMs(), e.windowEnd()) + 4 * length));
    } else {
      // the first window that no longer meets the condition: Alertmanager keeps the earlier
      // startsAt of the alert it resolves
      a.put("endsAt", rfc3339(e.windowStart()));
    }
    a.put("generatorURL", generatorUrl);
    return out;
  }

  /**
   * A column's name as an Alertmanager label name ({@code [a-zA-Z_][a-zA-Z0-9_]*}): other
   * characters become {@code _}.
   */
  static String labelName(String column) {
    StringBuilder b = new StringBuilder(column.length());
    for (int i = 0; i < column.length(); i++) {
      char c = column.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || c == '_'
              || (i > 0 && c >= '0' && c <= '9');
      b.append(ok ? c : '_');
    }
    return b.length() == 0 ? "_" : b.toString();
  }

  static String rfc3339(long epochMs) {
    return Instant.ofEpochMilli(epochMs).toString();
  }

  private static ObjectNode object(String json) {
    try {
      JsonNode n = Evaluator.JSON.readTree(json);
      return n instanceof ObjectNode o ? o : Evaluator.JSON.createObjectNode();
    } catch (JsonProcessingException x) {
      throw new UncheckedIOException(x);
    }
  }

  /** The text of a document, for tests and logs. */
  static String text(byte[] doc) {
    return new String(doc, StandardCharsets.UTF_8);
  }
}

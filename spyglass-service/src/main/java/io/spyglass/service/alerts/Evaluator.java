package io.spyglass.service.alerts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one final window of a standing query means for an alert: which groups fire and which
 * resolve. A function of the window and the groups' states before it (no clock, no I/O), so that
 * the same window always gives the same events.
 *
 * <ul>
 *   <li>A group fires when its row meets the condition and it was not firing; it is sent unless it
 *       resolved less than the quiet period before (window end to window end): then it is kept
 *       {@code quiet}, and so is its resolution.
 *   <li>A firing group resolves when its row no longer meets the condition, or when the window has
 *       no row of it (unless the window says rows are missing: then nothing resolves for absence).
 *   <li>A muted alert records its events {@code muted}: nothing of them is sent, nor the resolution
 *       of a firing that was not sent.
 *   <li>With {@code repeatFiring} (the Alertmanager form), a group still firing fires again in each
 *       final window, as Prometheus sends its firing alerts at each evaluation: Alertmanager
 *       resolves an alert that is not sent again before its {@code endsAt}.
 * </ul>
 */
final class Evaluator {
  static final ObjectMapper JSON = new ObjectMapper();

  private Evaluator() {}

  /** A final window, its rows a JSON array of objects. */
  record Window(long start, long end, String records, String error) {}

  /**
   * The evaluation's result.
   *
   * @param events the events, in order
   * @param groups the groups whose state changed, as they are now
   * @param forgotten the ids of groups whose state need not be kept any more
   */
  record Outcome(
      List<AlertStore.Event> events, List<AlertStore.Group> groups, List<String> forgotten) {}

  /**
   * Evaluates {@code window}.
   *
   * @param repeatFiring whether a group still firing fires again in this window
   * @param before the groups' states before it, by id
   * @param firstSeq the order number of its first event
   * @param timeMs when it is evaluated, recorded with its events
   * @throws IllegalArgumentException when the window's records are not a JSON array of objects
   */
  static Outcome evaluate(
      String alert,
      Shape shape,
      Condition condition,
      long quietPeriodMs,
      boolean muted,
      boolean repeatFiring,
      Window window,
      Map<String, AlertStore.Group> before,
      long firstSeq,
      long timeMs) {
    List<AlertStore.Event> events = new ArrayList<>();
    List<AlertStore.Group> changed = new ArrayList<>();
    List<String> forgotten = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    long[] seq = {firstSeq};
    for (JsonNode row : rows(window.records())) {
      ObjectNode labels = labels(shape, row);
      String labelsJson = labels.toString();
      String id = groupId(labelsJson);
      if (!seen.add(id)) {
        continue; // two rows of one group (labels that print the same): the first counts
      }
      AlertStore.Group g = before.get(id);
      boolean firing = g != null && g.firing();
      boolean meets = condition.test(values(row));
      if (meets && !firing) {
        Long resolvedEnd = g == null ? null : g.resolvedEnd();
        boolean quiet = resolvedEnd != null && window.end() - resolvedEnd < quietPeriodMs;
        String delivery = quiet ? AlertStore.QUIET : muted ? AlertStore.MUTED : AlertStore.PENDING;
        events.add(event(alert, id, window, seq[0]++, "firing", labelsJson, row, timeMs, delivery));
        changed.add(
            new AlertStore.Group(
                id, labelsJson, true, delivery.equals(AlertStore.PENDING), resolvedEnd));
      } else if (meets && repeatFiring) {
        String delivery =
            !g.notified() ? AlertStore.QUIET : muted ? AlertStore.MUTED : AlertStore.PENDING;
        events.add(event(alert, id, window, seq[0]++, "firing", labelsJson, row, timeMs, delivery));
      } else if (!meets && firing) {
        events.add(resolve(alert, g, window, seq[0]++, row.toString(), timeMs, muted));
        changed.add(new AlertStore.Group(id, labelsJson, false, false, window.end()));
      }
    }
    for (AlertStore.Group g : before.values()) {
      if (seen.contains(g.id())) {
        continue;
      }
      if (g.firing() && window.error() == null) {
        events.add(resolve(alert, g, window, seq[0]++, "{}", timeMs, muted));
        changed.add(new AlertStore.Group(g.id(), g.labels(), false, false, window.end()));
      } else if (!g.firing()
          && (g.resolvedEnd() == null || window.end() - g.resolvedEnd() >= quietPeriodMs)) {
        forgotten.add(g.id()); // resolved for longer than the quiet period: nothing to remember
      }
    }
    return new Outcome(events, changed, forgotten);
  }

  private static AlertStore.Event resolve(
      String alert,
      AlertStore.Group g,
      Window window,
      long seq,
      String values,
      long timeMs,
      boolean muted) {
    String delivery =
        !g.notified() ? AlertStore.QUIET : muted ? AlertStore.MUTED : AlertStore.PENDING;
    return new AlertStore.Event(
        alert,
        g.id(),
        window.start(),
        window.end(),
        seq,
        "resolved",
        g.labels(),
        values,
        timeMs,
        delivery,
        0,
        null,
        null);
  }

  private static AlertStore.Event event(
      String alert,
      String id,
      Window window,
      long seq,
      String state,
      String labels,
      JsonNode row,
      long timeMs,
      String delivery) {
    return new AlertStore.Event(
        alert,
        id,
        window.start(),
        window.end(),
        seq,
        state,
        labels,
        row.toString(),
        timeMs,
        delivery,
        0,
        null,
        null);
  }

  private static Iterable<JsonNode> rows(String records) {
    JsonNode array;
    try {
      array = JSON.readTree(records);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("a window's records are not JSON: " + e.getMessage(), e);
    }
    if (array == null || !array.isArray()) {
      throw new IllegalArgumentException("a window's records are not a JSON array");
    }
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode row : array) {
      if (row.isObject()) {
        out.add(row);
      }
    }
    return out;
  }

  /** A row's group labels: each label column's value as text ("" for null or missing). */
  static ObjectNode labels(Shape shape, JsonNode row) {
    ObjectNode labels = JSON.createObjectNode();
    for (String l : shape.labels()) {
      JsonNode v = row.get(l);
      labels.put(l, v == null || v.isNull() ? "" : v.isValueNode() ? v.asText() : v.toString());
    }
    return labels;
  }

  /** A group's id: a hash of its labels as JSON, 16 hexadecimal digits. */
  static String groupId(String labelsJson) {
    try {
      byte[] h =
          MessageDigest.getInstance("SHA-256").digest(labelsJson.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(h, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A row as the boxed values a record takes. */
  static Map<String, Object> values(JsonNode row) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : row.properties()) {
      out.put(e.getKey(), value(e.getValue()));
    }
    return out;
  }

  private static Object value(JsonNode v) {
    if (v == null || v.isNull()) {
      return null;
    } else if (v.isBoolean()) {
      return v.booleanValue();
    } else if (v.isIntegralNumber() && v.canConvertToLong()) {
      return v.longValue();
    } else if (v.isNumber()) {
      return v.doubleValue();
    } else if (v.isTextual()) {
      return v.textValue();
    } else if (v.isArray()) {
      List<Object> out = new ArrayList<>();
      v.forEach(x -> out.add(value(x)));
      return out;
    } else if (v.isObject()) {
      return values(v);
    }
    return v.asText();
  }
}

package io.spyglass.service.alerts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an alert is, as defined: which standing query, its condition (as given), where its events go
 * and in which form, its quiet period and its own labels. Stored as JSON ({@link #toJson()}).
 *
 * @param condition the condition as given: {@code {"having": "..."}} or {@code {"column", "op",
 *     "value"}}
 * @param conditionText the condition as a BQL expression
 * @param sink the sink as given (a sink of a query: webhook, file or kafka)
 * @param quietPeriodMs how long after a group resolved its firing again is not sent
 * @param labels labels added to every event's (Alertmanager's routing reads them)
 */
record AlertSpec(
    String standingQuery,
    JsonNode condition,
    String conditionText,
    JsonNode sink,
    Payloads.Format format,
    long quietPeriodMs,
    Map<String, String> labels) {
  AlertSpec {
    labels = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(labels));
  }

  /** The longest quiet period taken: a week. */
  static final long MAX_QUIET_MS = 7 * 86_400_000L;

  /** Most labels an alert adds. */
  static final int MAX_LABELS = 32;

  /** A field of a definition that cannot be taken: which, why, and what to write. */
  static final class Bad extends Exception {
    private static final long serialVersionUID = 1L;
    final String field;
    final String resolution;

    Bad(String field, String message, String resolution) {
      super(message);
      this.field = field;
      this.resolution = resolution;
    }
  }

  String toJson() {
    ObjectNode o = Evaluator.JSON.createObjectNode();
    o.put("standingQuery", standingQuery);
    o.set("condition", condition);
    o.put("conditionText", conditionText);
    o.set("sink", sink);
    o.put("format", format.wire);
    o.put("quietPeriodMs", quietPeriodMs);
    ObjectNode l = o.putObject("labels");
    labels.forEach(l::put);
    return o.toString();
  }

  static AlertSpec fromJson(String json) {
    try {
      JsonNode o = Evaluator.JSON.readTree(json);
      Map<String, String> labels = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : o.path("labels").properties()) {
        labels.put(e.getKey(), e.getValue().asText());
      }
      return new AlertSpec(
          o.get("standingQuery").asText(),
          o.get("condition"),
          o.get("conditionText").asText(),
          o.get("sink"),
          Payloads.Format.of(o.get("format").asText()),
          o.get("quietPeriodMs").asLong(),
          labels);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final Pattern DURATION =
      Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h|d)?", Pattern.CASE_INSENSITIVE);

  /**
   * A duration as written: {@code 90s}, {@code 5m}, {@code 1h}, {@code 2d}, {@code 500ms}, or a
   * number of milliseconds.
   *
   * @throws Bad naming {@code field} when it is not one
   */
  static long duration(JsonNode v, String field, String example) throws Bad {
    if (v.isIntegralNumber() && v.longValue() >= 0) {
      return v.longValue();
    }
    Matcher m = DURATION.matcher(v.isTextual() ? v.textValue().strip() : "");
    if (!m.matches()) {
      throw new Bad(
          field,
          "\"" + field + "\" is a duration such as \"5m\": " + v + " is not",
          "Write a number and a unit (ms, s, m, h, d), e.g. \"" + example + "\"");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "ms" : m.group(2).toLowerCase(Locale.ROOT);
    return switch (unit) {
      case "s" -> n * 1000;
      case "m" -> n * 60_000;
      case "h" -> n * 3_600_000;
      case "d" -> n * 86_400_000;
      default -> n;
    };
  }

  /** Reads the quiet period, the format and the labels of a request's body. */
  static AlertSpec parse(
      ObjectNode body,
      String standingQuery,
      JsonNode condition,
      String conditionText,
      JsonNode sink)
      throws Bad {
    long quiet = 0;
    JsonNode q = body.get("quietPeriod");
    if (q != null && !q.isNull()) {
      quiet = duration(q, "quietPeriod", "5m");
      if (quiet > MAX_QUIET_MS) {
        throw new Bad(
            "quietPeriod",
            "\"quietPeriod\" is at most a week (7d)",
            "Write a shorter one, e.g. \"1h\"");
      }
    }
    Payloads.Format format = Payloads.Format.JSON;
    JsonNode f = body.get("format");
    if (f != null && !f.isNull()) {
      format = f.isTextual() ? Payloads.Format.of(f.textValue()) : null;
      if (format == null) {
        throw new Bad(
            "format",
            "\"format\" is \"json\" or \"alertmanager\": " + f + " is not",
            "Write \"alertmanager\" for Prometheus Alertmanager's POST /api/v2/alerts, or leave it"
                + " out for plain JSON");
      }
    }
    Map<String, String> labels = new LinkedHashMap<>();
    JsonNode l = body.get("labels");
    if (l != null && !l.isNull()) {
      if (!l.isObject() || l.size() > MAX_LABELS) {
        throw new Bad(
            "labels",
            "\"labels\" is an object of at most " + MAX_LABELS + " names and string values",
            "Write e.g. {\"severity\": \"page\", \"team\": \"billing\"}");
      }
      for (Map.Entry<String, JsonNode> e : l.properties()) {
        if (!e.getKey().matches("[A-Za-z_][A-Za-z0-9_]{0,99}")
            || !e.getValue().isTextual()
            || e.getValue().textValue().length() > 1000
            || e.getKey().equals("alertname")) {
          throw new Bad(
              "labels." + e.getKey(),
              "A label's name is letters, digits and '_' (not starting with a digit, not"
                  + " alertname) and its value a string of at most 1000 characters: \""
                  + e.getKey()
                  + "\" is not one",
              "Write e.g. {\"severity\": \"page\"}");
        }
        labels.put(e.getKey(), e.getValue().textValue());
      }
    }
    return new AlertSpec(standingQuery, condition, conditionText, sink, format, quiet, labels);
  }
}

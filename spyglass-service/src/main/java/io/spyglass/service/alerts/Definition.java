package io.spyglass.service.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.service.auth.User;
import io.spyglass.service.metering.StandingQueries;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.SinkSpecException;
import io.spyglass.sinks.Sinks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * An alert's definition read from a request's body and checked: its name, its standing query (or
 * the query of one to define with it), its condition bound to the query's columns, and the rest of
 * its {@link AlertSpec}.
 *
 * @param query the query of a standing query to define with the alert; null when it names one
 * @param standingQuery the standing query's name
 * @param queryText the standing query's text
 */
record Definition(
    String name,
    String query,
    String standingQuery,
    String queryText,
    Compiled compiled,
    AlertSpec spec) {
  /** A name: as a standing query's. */
  private static final String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}";

  /**
   * Reads {@code {"name", "standingQuery" | "query", "condition", "sink", "format"?,
   * "quietPeriod"?, "labels"?}}.
   *
   * @throws Alerts.Refused 400/422 naming the field that is wrong (and, for a condition, where),
   *     403 for a token bound to tenants
   */
  static Definition parse(
      ObjectNode body, User by, StandingQueries standing, QueryLimits limits, LongSupplier clock) {
    String name = text(body, "name", true);
    if (!name.matches(NAME)) {
      throw new Alerts.Refused(
          400,
          "An alert's name is 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or"
              + " digit: '"
              + name
              + "' is not",
          "Name it e.g. orders-stalled",
          "name",
          null,
          List.of());
    }
    if (by.boundToTenants()) {
      throw new Alerts.Refused(
          403,
          "A token bound to tenants does not define alerts: they read every tenant's rows",
          "Ask an admin or a user whose token is bound to no tenant to define it");
    }
    String query = text(body, "query", false);
    String standingName = text(body, "standingQuery", false);
    if ((query == null) == (standingName == null)) {
      throw new Alerts.Refused(
          400,
          "An alert names a \"standingQuery\" or gives a \"query\" (then a standing query of the"
              + " alert's name is defined with it), one of the two",
          "Send {\"name\", \"standingQuery\": \"usage\", ...} or {\"name\", \"query\": \"SELECT"
              + " ... FROM STREAM(FOREVER) ...\", ...}",
          query == null ? "standingQuery" : "query",
          null,
          List.of());
    }
    String queryText;
    if (query != null) {
      queryText = query;
      standingName = name;
    } else {
      Optional<StandingQueries.Info> q = standing.find(standingName);
      if (q.isEmpty()) {
        throw new Alerts.Refused(
            422,
            "No standing query named " + standingName,
            "Name one of GET /api/standing-queries, or give the alert's \"query\"",
            "standingQuery",
            null,
            List.of());
      }
      queryText = q.get().query();
    }
    Compiled compiled = compile(queryText, body.get("condition"), limits, clock);
    AlertSpec spec;
    try {
      spec =
          AlertSpec.parse(
              body,
              standingName,
              body.get("condition"),
              compiled.condition().text,
              body.get("sink"));
    } catch (AlertSpec.Bad e) {
      throw new Alerts.Refused(422, e.getMessage(), e.resolution, e.field, null, List.of());
    }
    return new Definition(name, query, standingName, queryText, compiled, spec);
  }

  /**
   * An alert's sink as a query's is written ({@code {"type": "webhook", "url": ...}}), checked
   * against what {@code sinks} may deliver to.
   *
   * @throws Alerts.Refused 422 naming the field that is wrong, or saying the operator does not
   *     allow it
   */
  static SinkSpec sink(JsonNode sink, Sinks sinks) {
    if (sink == null || !sink.isObject()) {
      throw new Alerts.Refused(
          422,
          "The alert needs a \"sink\": an object, as a query's sinks are written",
          "Send e.g. \"sink\": {\"type\": \"webhook\", \"url\": \"https://hooks.example.com/a\"}",
          "sink",
          null,
          List.of());
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    sink.properties()
        .forEach(
            e ->
                fields.put(
                    e.getKey(),
                    e.getValue().isTextual() ? e.getValue().textValue() : e.getValue()));
    try {
      return sinks.check(SinkSpec.fromFields(fields, "sink"), "sink");
    } catch (SinkSpecException e) {
      throw new Alerts.Refused(422, e.getMessage(), e.resolution(), e.field(), null, List.of());
    }
  }

  /** The shape of a standing query's rows and the condition bound to them. */
  record Compiled(Shape shape, Condition condition) {}

  static Compiled compile(
      String query, JsonNode condition, QueryLimits limits, LongSupplier clock) {
    QueryPlan plan;
    try {
      plan = Bql.compile(query, limits);
    } catch (BqlException e) {
      throw new Alerts.Refused(
          422,
          "The standing query is not valid: " + e.getMessage(),
          "Fix the query",
          "query",
          null,
          e.errors());
    }
    Shape shape;
    try {
      shape = Shape.of(plan);
    } catch (Shape.NotGroups e) {
      throw new Alerts.Refused(
          422,
          "An alert reads the groups of a standing query's windows, but " + e.getMessage(),
          "Alert on a query with GROUP BY and aggregates, or aggregates alone, e.g. SELECT org,"
              + " COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY org WINDOWING TUMBLING(1m,"
              + " EVENT_TIME(time))",
          "standingQuery",
          null,
          List.of());
    }
    try {
      return new Compiled(shape, condition(condition, shape, limits, clock));
    } catch (Condition.Invalid e) {
      throw new Alerts.Refused(422, e.getMessage(), e.resolution, e.field, null, e.errors);
    }
  }

  private static Condition condition(
      JsonNode c, Shape shape, QueryLimits limits, LongSupplier clock) throws Condition.Invalid {
    String example =
        "Write {\"having\": \"n > 100\"} or {\"column\": \"n\", \"op\": \">\", \"value\": 100}";
    if (c == null || !c.isObject()) {
      throw new Condition.Invalid(
          "condition", "The alert needs a \"condition\": an object", example, List.of());
    }
    JsonNode having = c.get("having");
    if (having != null) {
      if (!having.isTextual() || c.size() != 1) {
        throw new Condition.Invalid(
            "condition.having",
            "\"having\" is a string, alone in the condition",
            example,
            List.of());
      }
      return Condition.having(having.textValue(), shape, limits, clock);
    }
    JsonNode column = c.get("column");
    JsonNode op = c.get("op");
    JsonNode value = c.get("value");
    if (column == null || !column.isTextual() || op == null || !op.isTextual() || value == null) {
      throw new Condition.Invalid(
          "condition",
          "A condition is {\"having\": \"...\"} or {\"column\", \"op\", \"value\"}",
          example,
          List.of());
    }
    Object v =
        value.isNumber()
            ? (Object) value.numberValue()
            : value.isTextual() ? value.textValue() : value.isBoolean() ? value.asBoolean() : null;
    if (v == null) {
      throw new Condition.Invalid(
          "condition.value",
          "A threshold's \"value\" is a number (or, with = and !=, a string or a boolean)",
          example,
          List.of());
    }
    return Condition.threshold(column.textValue(), op.textValue(), v, shape, limits, clock);
  }

  private static String text(ObjectNode body, String field, boolean required) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new Alerts.Refused(
            400,
            "The request needs \"" + field + "\": a string",
            "Send {\"name\": \"orders-stalled\", \"standingQuery\": \"orders\", \"condition\":"
                + " {\"having\": \"n < 10\"}, \"sink\": {\"type\": \"webhook\", \"url\": \"...\"}}",
            field,
            null,
            List.of());
      }
      return null;
    }
    if (!v.isTextual() || v.textValue().isBlank()) {
      throw new Alerts.Refused(
          400,
          "\"" + field + "\" is a string, not empty",
          "Send it as a JSON string",
          field,
          null,
          List.of());
    }
    return v.textValue();
  }
}

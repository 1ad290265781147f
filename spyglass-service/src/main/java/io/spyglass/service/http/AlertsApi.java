package io.spyglass.service.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.service.alerts.AlertStore;
import io.spyglass.service.alerts.Alerts;
import io.spyglass.service.store.AuditLog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Alerts on standing queries ({@code /api/alerts}): define, list, read with history, mute, unmute,
 * delete. Without standing queries ({@code --source http}) they answer 404 saying how to turn them
 * on.
 */
final class AlertsApi {
  private final Alerts alerts;
  private final AuditLog audit;

  /** Most events of an alert's history in one answer. */
  static final int MAX_HISTORY = 1000;

  AlertsApi(Alerts alerts, AuditLog audit) {
    this.alerts = alerts;
    this.audit = audit;
  }

  private Alerts alerts() {
    if (alerts == null) {
      throw ApiException.notFound(
          "Alerts are off on this service: they run on standing queries, over ingested documents",
          "Start it with --source http (alone, or beside another --source)");
    }
    return alerts;
  }

  void create(Context ctx) {
    Alerts a = alerts();
    ObjectNode body = Json.parseObject(ctx.body());
    Alerts.Info info = run(() -> a.create(body, Auth.user(ctx)));
    audit.alertCreated(info.name(), info.standingQuery(), Auth.user(ctx).name());
    ctx.header("Location", "/api/alerts/" + info.name());
    Json.send(ctx, 201, toJson(info));
  }

  void list(Context ctx) {
    Alerts a = alerts();
    ObjectNode body = Json.object();
    ArrayNode list = body.putArray("alerts");
    for (Alerts.Info i : run(() -> a.list(Auth.user(ctx)))) {
      list.add(toJson(i));
    }
    Json.send(ctx, 200, body);
  }

  void get(Context ctx) {
    Alerts a = alerts();
    String name = ctx.pathParam("name");
    int limit = limit(ctx.queryParam("limit"));
    Alerts.Detail d = run(() -> a.get(name, limit, Auth.user(ctx)));
    ObjectNode o = toJson(d.info());
    ArrayNode history = o.putArray("history");
    for (AlertStore.Event e : d.history()) {
      history.add(event(e));
    }
    Json.send(ctx, 200, o);
  }

  private static int limit(String v) {
    if (v == null || v.isBlank()) {
      return 100;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n >= 1 && n <= MAX_HISTORY) {
        return n;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw ApiException.badRequest(
        "limit is the number of events of the history, 1 to "
            + MAX_HISTORY
            + ": '"
            + v
            + "' is not",
        "Send e.g. ?limit=100");
  }

  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h|d)");

  void mute(Context ctx) {
    Alerts a = alerts();
    String name = ctx.pathParam("name");
    ObjectNode body = Json.parseObject(ctx.body().isBlank() ? "{}" : ctx.body());
    long until = until(body, a.now());
    Alerts.Info info = run(() -> a.mute(name, until, Auth.user(ctx)));
    audit.alertMuted(name, until, Auth.user(ctx).name());
    Json.send(ctx, 200, toJson(info));
  }

  void unmute(Context ctx) {
    Alerts a = alerts();
    String name = ctx.pathParam("name");
    Alerts.Info info = run(() -> a.mute(name, 0, Auth.user(ctx)));
    audit.alertMuted(name, 0, Auth.user(ctx).name());
    Json.send(ctx, 200, toJson(info));
  }

  /** Until when a mute lasts: {@code {"until": EPOCH_MS}} or {@code {"for": "1h"}}. */
  static long until(ObjectNode body, long nowMs) {
    JsonNode until = body.get("until");
    JsonNode dur = body.get("for");
    String example = "Send {\"for\": \"1h\"} or {\"until\": 1767225600000} (epoch ms)";
    if ((until == null) == (dur == null)) {
      throw new ApiException(
              422, "A mute lasts \"for\" a duration or \"until\" a time, one of the two", example)
          .with("field", until == null ? "for" : "until");
    }
    if (until != null) {
      if (!until.isIntegralNumber() || until.longValue() <= nowMs) {
        throw new ApiException(
                422,
                "\"until\" is a time to come, in epoch milliseconds: " + until + " is not",
                example)
            .with("field", "until");
      }
      return until.longValue();
    }
    Matcher m = DURATION.matcher(dur.isTextual() ? dur.textValue().strip() : "");
    if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
      throw new ApiException(
              422,
              "\"for\" is a duration such as \"1h\" (ms, s, m, h, d): " + dur + " is not",
              example)
          .with("field", "for");
    }
    long n = Long.parseLong(m.group(1));
    long ms =
        switch (m.group(2)) {
          case "s" -> n * 1000;
          case "m" -> n * 60_000;
          case "h" -> n * 3_600_000;
          case "d" -> n * 86_400_000;
          default -> n;
        };
    return nowMs + ms;
  }

  void delete(Context ctx) {
    Alerts a = alerts();
    String name = ctx.pathParam("name");
    run(
        () -> {
          a.delete(name, Auth.user(ctx));
          return null;
        });
    audit.alertDeleted(name, Auth.user(ctx).name());
    ctx.status(204);
  }

  private static <T> T run(Supplier<T> call) {
    try {
      return MeteringApi.run(call);
    } catch (Alerts.Refused e) {
      ApiException refused =
          new ApiException(
              e.status(),
              e.getMessage(),
              e.resolution() != null ? e.resolution() : "See GET /api/alerts");
      if (e.field() != null) {
        refused.with("field", e.field());
      }
      if (e.limit() != null) {
        refused.with("limit", e.limit());
      }
      if (!e.errors().isEmpty()) {
        List<Map<String, Object>> errors = new ArrayList<>();
        for (BqlError err : e.errors()) {
          Map<String, Object> o = new LinkedHashMap<>();
          o.put("line", err.span().line());
          o.put("column", err.span().column());
          o.put("start", err.span().start());
          o.put("end", err.span().end());
          o.put("message", err.message());
          o.put("fix", err.resolution());
          errors.add(o);
        }
        refused.with("errors", errors);
      }
      throw refused;
    }
  }

  static ObjectNode toJson(Alerts.Info i) {
    ObjectNode o = Json.object();
    o.put("name", i.name());
    o.put("standingQuery", i.standingQuery());
    o.put("ownsQuery", i.ownsQuery());
    o.put("owner", i.owner());
    o.put("created", i.createdMs());
    o.put("state", i.state());
    ArrayNode firing = o.putArray("firing");
    for (Map<String, String> labels : i.firing()) {
      ObjectNode l = firing.addObject();
      labels.forEach(l::put);
    }
    if (i.lastWindowEnd() != null) {
      o.putObject("lastWindow").put("start", i.lastWindowStart()).put("end", i.lastWindowEnd());
    } else {
      o.putNull("lastWindow");
    }
    if (i.mutedUntil() > 0) {
      o.put("mutedUntil", i.mutedUntil());
    }
    o.set("condition", i.condition());
    o.put("conditionText", i.conditionText());
    o.put("format", i.format());
    o.put("quietPeriodMs", i.quietPeriodMs());
    ObjectNode labels = o.putObject("labels");
    i.labels().forEach(labels::put);
    o.set("sink", i.sink());
    ObjectNode d = o.putObject("delivery");
    d.put("delivered", i.counts().delivered());
    d.put("pending", i.counts().pending());
    d.put("quiet", i.counts().quiet());
    d.put("muted", i.counts().muted());
    d.put("refused", i.counts().refused());
    d.put("dropped", i.dropped());
    d.put("failedAttempts", i.counts().failedAttempts());
    if (i.lastError() != null) {
      d.put("lastError", i.lastError());
    }
    if (i.error() != null) {
      o.put("error", i.error());
    }
    return o;
  }

  static ObjectNode event(AlertStore.Event e) {
    ObjectNode o = Json.object();
    o.put("key", e.key());
    o.put("state", e.state());
    o.set("group", tree(e.labels()));
    o.putObject("window").put("start", e.windowStart()).put("end", e.windowEnd());
    o.set("values", tree(e.values()));
    o.put("time", e.timeMs());
    o.put("delivery", e.delivery());
    o.put("delivered", e.deliveredMs() != null);
    o.put("attempts", e.attempts());
    if (e.deliveredMs() != null) {
      o.put("deliveredAt", e.deliveredMs());
    }
    if (e.lastError() != null) {
      o.put("lastError", e.lastError());
    }
    return o;
  }

  private static JsonNode tree(String json) {
    try {
      return Json.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}

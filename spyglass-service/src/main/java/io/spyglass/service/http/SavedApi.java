package io.spyglass.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.service.auth.User;
import io.spyglass.service.store.History;
import io.spyglass.service.store.SavedQueries;
import io.spyglass.service.store.SavedQueries.Saved;

/** Saved queries ({@code /api/saved}) and history ({@code /api/history}), kept in the database. */
final class SavedApi {
  static final int MAX_NAME = 200;

  private final SavedQueries saved;
  private final History history;
  private final QueryLimits limits;

  SavedApi(SavedQueries saved, History history, QueryLimits limits) {
    this.saved = saved;
    this.history = history;
    this.limits = limits;
  }

  void create(Context ctx) {
    ObjectNode body = jsonBody(ctx);
    String name = text(body, "name", true);
    String query = text(body, "query", true);
    Bql.compile(query, limits); // an invalid query: 422 with positions
    Saved s = within(() -> saved.create(Auth.user(ctx).name(), name, query));
    ctx.header("Location", "/api/saved/" + s.id());
    Json.send(ctx, 201, toJson(s));
  }

  void list(Context ctx) {
    ObjectNode body = Json.object();
    ArrayNode list = body.putArray("saved");
    for (Saved s : saved.list(Auth.user(ctx).name())) {
      list.add(toJson(s));
    }
    Json.send(ctx, 200, body);
  }

  /** Anyone with access may open a saved query by its id: that is what a shared link is. */
  void get(Context ctx) {
    Json.send(ctx, 200, toJson(find(ctx)));
  }

  void update(Context ctx) {
    Saved s = owned(ctx);
    ObjectNode body = jsonBody(ctx);
    String name = text(body, "name", false);
    String query = text(body, "query", false);
    if (name == null && query == null) {
      throw ApiException.badRequest(
          "Nothing to change", "Send {\"name\": ...} or {\"query\": ...} or both");
    }
    if (query != null) {
      Bql.compile(query, limits);
    }
    Saved updated =
        within(
                () ->
                    saved.update(
                        s.id(), name != null ? name : s.name(), query != null ? query : s.query()))
            .orElseThrow(() -> noSuchSaved(s.id()));
    Json.send(ctx, 200, toJson(updated));
  }

  void delete(Context ctx) {
    saved.delete(owned(ctx).id());
    ctx.status(204);
  }

  void history(Context ctx) {
    int limit = 100;
    String l = ctx.queryParam("limit");
    if (l != null) {
      try {
        limit = Integer.parseInt(l);
      } catch (NumberFormatException e) {
        limit = -1;
      }
      if (limit < 1 || limit > 1000) {
        throw ApiException.badRequest(
            "limit must be a number from 1 to 1000: '" + l + "' is not", "Send e.g. ?limit=50");
      }
    }
    ObjectNode body = Json.object();
    ArrayNode list = body.putArray("history");
    for (History.Entry e : history.list(Auth.user(ctx).name(), limit)) {
      ObjectNode o = list.addObject();
      o.put("id", e.id());
      o.put("query", e.query());
      o.put("state", e.state());
      o.put("detached", e.detached());
      o.put("submitted", e.submittedMs());
      if (e.endedMs() == null) {
        o.putNull("ended");
      } else {
        o.put("ended", e.endedMs());
      }
      o.put("results", e.results());
      if (e.error() != null) {
        o.put("error", e.error());
      }
    }
    Json.send(ctx, 200, body);
  }

  /** Runs a write; over the user's quota or with the disk nearly full: 507. */
  private static <T> T within(java.util.function.Supplier<T> write) {
    try {
      return write.get();
    } catch (SavedQueries.OverQuota e) {
      throw new ApiException(
              507,
              e.getMessage(),
              e.limit().equals("min-free-disk")
                  ? "Try again once the operator has freed space on the disk of --data"
                  : "Delete saved queries you no longer need (DELETE /api/saved/{id}), or ask"
                      + " the operator to raise the limit")
          .with("limit", e.limit());
    }
  }

  private Saved find(Context ctx) {
    String id = ctx.pathParam("id");
    return saved.get(id).orElseThrow(() -> noSuchSaved(id));
  }

  private Saved owned(Context ctx) {
    Saved s = find(ctx);
    User user = Auth.user(ctx);
    if (!user.canSee(s.owner())) {
      throw new ApiException(
          403,
          "Saved query " + s.id() + " belongs to " + s.owner() + "; only its owner changes it",
          "Save a copy of your own with POST /api/saved");
    }
    return s;
  }

  private static ApiException noSuchSaved(String id) {
    return ApiException.notFound(
        "No saved query with id '" + id + "'", "List your saved queries with GET /api/saved");
  }

  private static ObjectNode jsonBody(Context ctx) {
    String type = ctx.contentType() == null ? "" : ctx.contentType().toLowerCase();
    if (!type.startsWith(Json.TYPE)) {
      throw new ApiException(
          415,
          "Unsupported content type '" + (type.isEmpty() ? "none" : ctx.contentType()) + "'",
          "Send JSON with Content-Type: application/json, e.g. {\"name\": ..., \"query\": BQL}");
    }
    return Json.parseObject(ctx.body());
  }

  private static String text(ObjectNode body, String field, boolean required) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw ApiException.badRequest(
            "The request needs \"" + field + "\"",
            "Send {\"name\": \"errors by country\", \"query\": BQL}");
      }
      return null;
    }
    if (!v.isTextual() || v.asText().isBlank()) {
      throw ApiException.badRequest(
          "\"" + field + "\" must be non-empty text", "Send {\"" + field + "\": \"...\"}");
    }
    if (field.equals("name") && v.asText().length() > MAX_NAME) {
      throw ApiException.badRequest(
          "\"name\" is longer than " + MAX_NAME + " characters", "Use a shorter name");
    }
    return v.asText();
  }

  static ObjectNode toJson(Saved s) {
    ObjectNode o = Json.object();
    o.put("id", s.id());
    o.put("name", s.name());
    o.put("query", s.query());
    o.put("owner", s.owner());
    o.put("created", s.createdMs());
    o.put("updated", s.updatedMs());
    o.put("link", "/#/saved/" + s.id());
    return o;
  }
}

package io.spyglass.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.javalin.http.Context;
import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.query.Explain;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.service.auth.User;
import io.spyglass.service.metrics.ServiceMetrics;
import io.spyglass.service.query.AdmissionException;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.query.ResultLog;
import io.spyglass.service.query.ServiceQuery;
import io.spyglass.service.schema.SchemaSampler;
import io.spyglass.service.schema.UnseenFields;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.SinkSpecException;
import io.spyglass.sinks.SinkStats;
import io.spyglass.sinks.Sinks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.server.Request;

/**
 * The query routes: submit, list, describe, end, stream results (SSE), run to the end, validate.
 */
final class QueriesApi {
  private final QueryManager manager;
  private final ServiceMetrics metrics;
  private final Streams streams;
  private final QueryLimits limits;
  private final StreamQuota quota;
  private final SchemaSampler schema;

  /** The service's wall clock (epoch milliseconds): how long a query has run. */
  private final LongSupplier clock;

  /** Runs before a {@code POST /api/query} answer is handed over: for tests that race a stop. */
  volatile Runnable beforeAnswer = () -> {};

  QueriesApi(
      QueryManager manager,
      ServiceMetrics metrics,
      Streams streams,
      StreamQuota quota,
      SchemaSampler schema,
      LongSupplier clock) {
    this.clock = clock;
    this.manager = manager;
    this.schema = schema;
    this.metrics = metrics;
    this.streams = streams;
    this.quota = quota;
    this.limits = manager.limits().queryLimits();
  }

  /**
   * A query in a request body: JSON {@code {"query": ..., "detached": ..., "sinks": [...]}} or
   * plain BQL.
   *
   * @param sinks the body's {@code "sinks"} as sent (null when absent): read by {@link #sinks}
   */
  record QueryRequest(String text, boolean detached, JsonNode sinks) {
    QueryRequest(String text, boolean detached) {
      this(text, detached, null);
    }
  }

  static QueryRequest queryRequest(Context ctx) {
    String type = ctx.contentType() == null ? "" : ctx.contentType().toLowerCase();
    String body = ctx.body();
    if (type.startsWith(Json.TYPE)) {
      ObjectNode o = Json.parseObject(body);
      JsonNode q = o.get("query");
      if (q == null || !q.isTextual() || q.asText().isBlank()) {
        throw ApiException.badRequest(
            "The request needs a query: a field \"query\" holding BQL text",
            "Send {\"query\": \"SELECT * FROM STREAM(10s, TIME)\"}");
      }
      JsonNode d = o.get("detached");
      if (d != null && !d.isBoolean()) {
        throw ApiException.badRequest(
            "\"detached\" must be true or false", "Send {\"query\": ..., \"detached\": true}");
      }
      return new QueryRequest(q.asText(), d != null && d.asBoolean(), o.get("sinks"));
    }
    if (type.startsWith("text/plain")) {
      if (body.isBlank()) {
        throw ApiException.badRequest("The request body is empty", "Send the BQL text as the body");
      }
      return new QueryRequest(body, "true".equals(ctx.queryParam("detached")));
    }
    throw new ApiException(
        415,
        "Unsupported content type '" + (type.isEmpty() ? "none" : ctx.contentType()) + "'",
        "Send JSON with Content-Type: application/json ({\"query\": BQL}), or the BQL itself"
            + " with Content-Type: text/plain");
  }

  /** The most sinks one query (or standing query) names. */
  static final int MAX_SINKS = 10;

  /**
   * The sinks of a request body's {@code "sinks"} (none when absent), each checked against what
   * this service may deliver to, before anything is sent: 400 when it is not an array of objects,
   * 422 naming the field (e.g. {@code sinks[1].url}) when a sink is not written right or not
   * allowed here.
   */
  static List<SinkSpec> sinks(JsonNode node, Sinks hub) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    String example =
        "Send \"sinks\": [{\"type\": \"webhook\", \"url\": \"https://...\"}] (docs/sinks.md)";
    if (!node.isArray()) {
      throw ApiException.badRequest("\"sinks\" must be an array of sinks", example);
    }
    if (node.size() > MAX_SINKS) {
      throw new ApiException(
              422,
              "A query names at most " + MAX_SINKS + " sinks, not " + node.size(),
              "Deliver to fewer sinks: a webhook or a Kafka topic can fan out further")
          .with("field", "sinks");
    }
    List<SinkSpec> out = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      String field = "sinks[" + i + "]";
      JsonNode s = node.get(i);
      if (!s.isObject()) {
        throw ApiException.badRequest(field + " must be an object", example);
      }
      Map<String, Object> fields = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : s.properties()) {
        fields.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : e.getValue());
      }
      try {
        SinkSpec spec = SinkSpec.fromFields(fields, field);
        if (hub == null) {
          throw new ApiException(
                  422,
                  "This service delivers results to no sink",
                  "Leave \"sinks\" out, or ask the operator")
              .with("field", field);
        }
        hub.check(spec, field);
        out.add(spec);
      } catch (SinkSpecException e) {
        throw sinkRefused(e);
      }
    }
    return out;
  }

  /** 422 for a sink not written right or not allowed here, naming where it was written. */
  static ApiException sinkRefused(SinkSpecException e) {
    return new ApiException(422, e.getMessage(), e.resolution())
        .with("field", e.field())
        .with("refused", e.refused());
  }

  /** A query's sinks and their counters, for its description. */
  static ArrayNode sinksJson(List<SinkStats> stats) {
    ArrayNode list = Json.array();
    for (SinkStats s : stats) {
      ObjectNode o = list.addObject();
      o.put("type", s.spec().type().wireName());
      o.put("target", s.spec().describe());
      o.put("delivered", s.delivered());
      o.put("retried", s.retried());
      o.put("dropped", s.dropped());
      o.put("failing", s.failing());
      if (s.lastError() == null) {
        o.putNull("lastError");
      } else {
        o.put("lastError", s.lastError());
      }
      o.put("pending", s.pending());
    }
    return list;
  }

  static ApiException tooMany(AdmissionException e) {
    return new ApiException(429, e.getMessage(), e.resolution())
        .with("limit", e.limit())
        .with("retryAfterSeconds", e.retryAfterSeconds())
        .header("Retry-After", Long.toString(e.retryAfterSeconds()));
  }

  static ApiException unavailable(IllegalStateException e) {
    return new ApiException(503, e.getMessage(), "Retry in a moment").header("Retry-After", "5");
  }

  static ApiException noSuchQuery(String id) {
    return ApiException.notFound(
        "No query with id '" + id + "'",
        "List your queries with GET /api/queries; an ended query's results are kept for a while,"
            + " then forgotten");
  }

  private ServiceQuery submit(User user, QueryRequest r) {
    List<SinkSpec> sinks = sinks(r.sinks(), manager.sinks()); // 422 before anything runs
    try {
      return manager.submit(user, r.text(), r.detached(), sinks);
    } catch (AdmissionException e) {
      throw tooMany(e);
    } catch (IllegalStateException e) {
      throw unavailable(e);
    }
  }

  private ServiceQuery find(Context ctx) {
    String id = ctx.pathParam("id");
    return manager.find(Auth.user(ctx), id).orElseThrow(() -> noSuchQuery(id));
  }

  void submit(Context ctx) {
    ServiceQuery q = submit(Auth.user(ctx), queryRequest(ctx));
    ObjectNode body = Json.object();
    body.put("id", q.id());
    body.put("query", q.text());
    body.put("detached", q.detached());
    body.put("results", "/api/queries/" + q.id() + "/results");
    if (q.sinks() != null) {
      body.set("sinks", sinksJson(q.sinks().stats()));
    }
    ctx.header("Location", "/api/queries/" + q.id());
    Json.send(ctx, 201, body);
  }

  void list(Context ctx) {
    User user = Auth.user(ctx);
    Map<String, QueryStats> live = manager.progress();
    ObjectNode body = Json.object();
    ArrayNode list = body.putArray("queries");
    for (ServiceQuery q : manager.list(user)) {
      list.add(describe(q, live, false));
    }
    ObjectNode quota = body.putObject("quota");
    quota.put("user", user.name());
    quota.put("admin", user.admin());
    quota.put("running", manager.running(user.name()));
    quota.put("maxQueriesPerUser", manager.limits().maxQueriesPerUser());
    quota.put("runningAll", manager.running());
    quota.put("maxQueries", manager.limits().maxQueries());
    Json.send(ctx, 200, body);
  }

  void get(Context ctx) {
    ServiceQuery q = find(ctx);
    Json.send(ctx, 200, describe(q, manager.liveProgress(q), true));
  }

  void delete(Context ctx) {
    manager.kill(find(ctx), Auth.user(ctx));
    ctx.status(204);
  }

  private ObjectNode describe(ServiceQuery q, Map<String, QueryStats> live, boolean last) {
    long now = clock.getAsLong();
    ObjectNode o = Json.object();
    o.put("id", q.id());
    o.put("query", q.text());
    o.put("owner", q.owner());
    o.put("state", q.state());
    o.put("detached", q.detached());
    o.put("submitted", q.submittedMs());
    o.set("sinks", sinksJson(q.sinks() == null ? List.of() : q.sinks().stats()));
    if (q.isRunning()) {
      o.putNull("ended");
    } else {
      o.put("ended", q.endedMs());
    }
    o.put("clients", q.clients());
    long orphan = q.orphanedSinceMs();
    if (orphan > 0) {
      o.put("orphanedSince", orphan);
    } else {
      o.putNull("orphanedSince");
    }
    long endsAt = manager.endsAtMs(q);
    if (endsAt > 0) {
      o.put("endsAt", endsAt);
    } else {
      o.putNull("endsAt");
    }
    ServiceQuery.Stop stop = q.interrupted() ? SERVICE_STOP : q.stop();
    if (stop == null) {
      o.putNull("stoppedBy");
    } else {
      o.putObject("stoppedBy").put("reason", stop.reason()).put("by", stop.by());
    }
    QueryStats p = QueryManager.progress(q, live);
    ObjectNode progress = o.putObject("progress");
    progress.put("elapsedMs", q.elapsedMs(now));
    if (q.runsForever()) {
      progress.putNull("durationMs"); // no end: it runs until stopped
    } else {
      progress.put("durationMs", q.durationMs());
    }
    progress.put("recordsSeen", p.seen());
    progress.put("recordsMatched", p.matched());
    progress.put("resultsEmitted", q.log().lastId());
    if (q.error() != null) {
      o.putObject("error")
          .put("message", q.error())
          .put("resolution", "Fix the query or its limits and submit it again");
    }
    if (last) {
      ResultLog.Event e = q.log().last();
      if (e == null) {
        o.putNull("lastResult");
      } else {
        o.putRawValue("lastResult", new RawValue(e.json()));
      }
    }
    return o;
  }

  private static final ServiceQuery.Stop SERVICE_STOP = ServiceQuery.Stop.byService("service-stop");

  /** {@code GET /api/queries/{id}/results}: the results as Server-Sent Events. */
  void results(Context ctx) {
    ServiceQuery q = find(ctx);
    long after = lastEventId(ctx);
    ResultLog log = q.log();
    if (log.isEnded() && after >= log.lastId() && after > 0) {
      ctx.status(204); // nothing after the last result: an EventSource stops reconnecting
      return;
    }
    User user = Auth.user(ctx);
    quota.take(user); // 429 past the user's streams; the stream gives its place back at its end
    try {
      SseStream.open(q, after, manager, metrics, streams, quota, user.name(), ctx.req(), ctx.res());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // the client went away before its answer's head
    }
  }

  /**
   * {@code GET /api/queries/{id}/export?format=ndjson|csv}: every result kept, then, while the
   * query runs, each new one until it ends, streamed ({@link ExportStream}); someone else's query
   * answers 404, as for {@code /results}. Counts as one of the user's streams.
   */
  void export(Context ctx) {
    ServiceQuery q = find(ctx);
    ExportStream.Format format = ExportStream.Format.of(ctx.queryParam("format"));
    StreamQuota.Permit permit = quota.acquire(Auth.user(ctx)); // 429 past the user's streams
    ctx.future(
        () -> {
          try {
            return new ExportStream(q, format, manager, ctx.req(), ctx.res())
                .start()
                .whenComplete((v, t) -> permit.close());
          } catch (IOException | RuntimeException e) {
            permit.close();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
          }
        });
  }

  private static long lastEventId(Context ctx) {
    String v = ctx.header("Last-Event-ID");
    if (v == null || v.isBlank()) {
      v = ctx.queryParam("lastEventId");
    }
    if (v == null || v.isBlank()) {
      return 0;
    }
    try {
      long id = Long.parseLong(v.strip());
      if (id >= 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw ApiException.badRequest(
        "Last-Event-ID must be the number of a result event: '" + v + "' is not",
        "Send the id: of the last event you received, or no Last-Event-ID to start over");
  }

  /**
   * {@code POST /api/query}: runs a query to its end; answers with all its results. A client that
   * disconnects meanwhile leaves the query as a closed stream does: it ends after the grace period,
   * unless detached (and the answer goes nowhere).
   */
  void run(Context ctx) {
    ServiceQuery q = submit(Auth.user(ctx), queryRequest(ctx));
    Collector c = new Collector(q);
    manager.clientJoined(q);
    ctx.header("Connection", "close"); // the connection is watched for its end: not reused
    Disconnects.watch(ctx.req(), c::clientGone);
    ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
    // what the answer holds is counted until it is written (or never will be)
    Request.addCompletionListener(request, failure -> c.close());
    q.log().subscribe(c);
    ctx.future(
        () ->
            c.done.thenAccept(
                answer -> {
                  beforeAnswer.run();
                  ctx.status(200).contentType(Json.TYPE).result(answer);
                }));
  }

  /**
   * Collects every result of a query as it comes, until the query ends, then makes the answer (the
   * JSON array of them); its client counts as having left once its connection ended. What it holds
   * counts on its user's share of the result memory, the answer too until it is written: when the
   * share cannot hold the next result, or the answer, the query is stopped and the answer is a 507.
   */
  private final class Collector implements ResultLog.Subscriber {
    final ServiceQuery q;
    final CompletableFuture<byte[]> done = new CompletableFuture<>();
    final List<ResultLog.Event> results = new ArrayList<>();
    long cursor;
    long held;
    boolean left;
    boolean closed;

    Collector(ServiceQuery q) {
      this.q = q;
    }

    synchronized void clientGone() {
      leave();
    }

    private void leave() {
      if (!left) {
        left = true;
        manager.clientLeft(q);
      }
    }

    /** The answer is written, or never will be: gives back what it holds, collects no more. */
    synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      q.log().unsubscribe(this);
      leave();
      results.clear();
      give(held);
    }

    private boolean take(long bytes) {
      if (!manager.memory().reserve(q.owner(), bytes)) {
        return false;
      }
      held += bytes;
      return true;
    }

    private void give(long bytes) {
      manager.memory().free(q.owner(), bytes);
      held -= bytes;
    }

    @Override
    public synchronized void wake() {
      if (closed || done.isDone()) {
        return;
      }
      for (ResultLog.Event e : q.log().after(cursor, Integer.MAX_VALUE)) {
        if (!take(e.sse().length)) {
          refuse();
          return;
        }
        results.add(e);
        cursor = e.id();
      }
      if (q.log().isEnded() && cursor >= q.log().lastId()) {
        q.log().unsubscribe(this);
        leave();
        long size = 2L + Math.max(0, results.size() - 1);
        for (ResultLog.Event e : results) {
          size += e.jsonLength();
        }
        if (size > MAX_ANSWER_BYTES || !take(size)) {
          refuse();
          return;
        }
        byte[] answer = new byte[(int) size];
        int at = 0;
        answer[at++] = '[';
        for (ResultLog.Event e : results) {
          if (at > 1) {
            answer[at++] = ',';
          }
          at = e.copyJson(answer, at);
        }
        answer[at] = ']';
        results.clear();
        give(held - size); // the events: the answer holds what the client gets
        done.complete(answer);
      }
    }

    /** The results are more than the owner's share holds: the query stops, the answer is 507. */
    private void refuse() {
      q.log().unsubscribe(this);
      boolean running = q.isRunning();
      manager.kill(q, ServiceQuery.Stop.byService("result-memory"));
      leave();
      results.clear();
      give(held);
      done.completeExceptionally(tooLarge(q, running));
    }
  }

  /** The largest answer a Java array can hold, with room to spare. */
  private static final long MAX_ANSWER_BYTES = Integer.MAX_VALUE - 16;

  private ApiException tooLarge(ServiceQuery q, boolean stopped) {
    return new ApiException(
            507,
            "The results of query "
                + q.id()
                + " are more than "
                + q.owner()
                + "'s share of the service's result memory can hold"
                + (stopped ? "; the query was stopped" : ""),
            "Stream them instead (POST /api/queries, then GET /api/queries/{id}/results), or"
                + " ask for less: a LIMIT, a narrower WHERE, a longer window")
        .with("limit", "max-result-memory-per-user");
  }

  /**
   * {@code POST /api/validate}: the canonical form, the form written for people and the plan, or
   * 422 with the errors.
   */
  void validate(Context ctx) {
    QueryRequest r = queryRequest(ctx);
    QueryPlan plan = Bql.compile(r.text(), limits); // BqlException: 422
    ObjectNode body = Json.object();
    body.put("valid", true);
    body.put("canonical", Bql.print(plan));
    body.put("formatted", Bql.format(plan, limits));
    body.put("explain", Explain.of(plan, limits));
    if (plan.runsForever()) {
      body.putNull("durationMs");
    } else {
      body.put("durationMs", plan.durationMs(limits));
    }
    ArrayNode warnings = body.putArray("warnings");
    for (UnseenFields.Warning w : UnseenFields.of(plan, schema.snapshot())) {
      ObjectNode o = warnings.addObject();
      o.put("field", w.field());
      o.put("message", w.message());
      if (w.fix() != null) {
        o.put("fix", w.fix());
      }
    }
    Json.send(ctx, 200, body);
  }

  static void invalid(BqlException e, Context ctx) {
    Json.send(ctx, 422, Json.errors(e));
  }
}

package io.spyglass.service.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.spyglass.service.auth.User;
import io.spyglass.service.metering.IngestBody;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.metering.StandingQueries;
import io.spyglass.service.metering.StandingReport;
import io.spyglass.service.store.AuditLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingestion ({@code POST /api/ingest}) and standing queries ({@code /api/standing-queries}).
 * Without {@code --source http} they answer 404 saying how to turn them on.
 */
final class MeteringApi {
  private static final Logger LOG = LoggerFactory.getLogger(MeteringApi.class);

  private final Metering metering;
  private final AuditLog audit;

  MeteringApi(Metering metering, AuditLog audit) {
    this.metering = metering;
    this.audit = audit;
  }

  private Metering metering() {
    if (metering == null) {
      throw ApiException.notFound(
          "Ingestion and standing queries are off on this service",
          "Start it with --source http (alone, or beside another --source)");
    }
    return metering;
  }

  private StandingQueries standing() {
    return metering().standing();
  }

  /**
   * Holds the ingest backlog for a body before it is read (its declared length, or the most a body
   * may be when it comes in chunks): a body that would be refused for the backlog, or from a caller
   * without the ingest role (403), is refused before anything is held or buffered. For {@link
   * Gate.Admission}.
   */
  AutoCloseable admit(Route route, User user, long declaredLength) {
    if (metering == null || route.kind() != Route.Kind.INGEST) {
      return null;
    }
    requireIngestRole(user); // before anything is held or read for a caller who may not ingest
    try {
      return metering.reserve(declaredLength >= 0 ? declaredLength : Metering.MAX_BODY_BYTES);
    } catch (Metering.Backlogged e) {
      throw backlogged(e);
    }
  }

  /** 403 unless {@code user} may ingest (the ingest or admin role). */
  private static void requireIngestRole(User user) {
    if (!user.canIngest()) {
      throw new ApiException(
          403,
          "Ingestion needs the ingest role: the token of "
              + user.name()
              + " has neither ingest nor admin (a plain user's token no longer ingests)",
          "Give the token the role in the tokens file (a line TOKEN "
              + user.name()
              + " ingest, with tenant=NAME to bind it to tenants), or send with a token that has"
              + " it");
    }
  }

  private static ApiException backlogged(Metering.Backlogged e) {
    return new ApiException(
            429,
            e.getMessage() + "; nothing of this request was kept",
            "Send it again after Retry-After seconds")
        .header("Retry-After", Long.toString(e.retryAfterSeconds()));
  }

  void ingest(Context ctx) {
    Metering m = metering();
    byte[] body = body(ctx);
    User user = Auth.user(ctx);
    requireIngestRole(user);
    IngestBody.Rules rules =
        new IngestBody.Rules(
            m.settings().idField(),
            m.standing().limits().tenantField(),
            user.boundToTenants() ? user.tenants() : null);
    IngestBody.Parsed parsed;
    try {
      parsed = IngestBody.parse(body, body.length, rules);
    } catch (IngestBody.Malformed e) {
      throw ApiException.badRequest(
          "The body is not JSON lines or a JSON array of objects: " + e.getMessage(),
          "Send one JSON object a line, or a JSON array of objects, each with its id in \""
              + m.settings().idField()
              + "\"");
    }
    Metering.Accepted o;
    try {
      Metering.Reservation held =
          ctx.attribute(Gate.ADMITTED) instanceof Metering.Reservation r ? r : null;
      o = m.submit(parsed, held).get(60, TimeUnit.SECONDS);
    } catch (Metering.Backlogged e) {
      throw backlogged(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(503, "Interrupted while writing", "Send it again");
    } catch (ExecutionException | TimeoutException e) {
      Throwable c = e instanceof ExecutionException ? e.getCause() : e;
      if (c instanceof Metering.NotWritten n) {
        // the records topic of the Flink job: Kafka did not take them
        LOG.warn("ingest not written: {}", n.getMessage());
        throw new ApiException(503, n.getMessage(), n.resolution()).header("Retry-After", "5");
      }
      String id = ApiServer.errorId();
      LOG.error("ingest failed (error {})", id, c);
      throw new ApiException(
              503,
              "The documents could not be written to the ingest log (error " + id + ")",
              "Send them again later (none of them was acknowledged); if it lasts, see the"
                  + " server's log under error "
                  + id)
          .with("id", id)
          .header("Retry-After", "5");
    }
    m.rejected(parsed.rejected().size());
    ObjectNode out = Json.object();
    out.put("accepted", o.accepted());
    out.put("duplicates", o.duplicates());
    ArrayNode rejected = out.putArray("rejected");
    for (IngestBody.Rejected r : parsed.rejected()) {
      rejected.addObject().put("index", r.index()).put("reason", r.reason());
    }
    Json.send(ctx, 202, out);
  }

  /**
   * What health says of ingestion and standing queries (nothing without them): standing queries
   * running and failed, how long ago the last checkpoint was written (at {@code nowMs} on the
   * service's wall clock), the ingest backlog.
   */
  static void health(Metering m, ObjectNode body, long nowMs) {
    if (m == null || m.standing() == null) {
      return;
    }
    StandingQueries s = m.standing();
    long running = s.status().stream().filter(StandingQueries.Status::running).count();
    body.put("standingQueries", running);
    body.put("standingQueriesFailed", s.status().size() - running);
    body.put("checkpointAgeMs", Math.max(0, nowMs - s.lastCheckpointMs()));
    body.put("ingestBacklogBytes", m.backlogBytes());
  }

  /** The body, decompressed when gzip; over {@link Metering#MAX_BODY_BYTES} either way: 413. */
  private static byte[] body(Context ctx) {
    String encoding = ctx.header("Content-Encoding");
    boolean gzip = false;
    if (encoding != null && !encoding.isBlank() && !encoding.equalsIgnoreCase("identity")) {
      if (!encoding.strip().equalsIgnoreCase("gzip")) {
        throw new ApiException(
            415,
            "Content-Encoding " + encoding + " is not supported",
            "Send the body plain or with Content-Encoding: gzip");
      }
      gzip = true;
    }
    try {
      byte[] sent =
          ctx.attribute(Bodies.ATTRIBUTE) instanceof byte[] read // read already by the edge
              ? read
              : readAtMost(ctx.req().getInputStream(), Metering.MAX_BODY_BYTES, "as sent");
      if (!gzip) {
        return sent;
      }
      try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(sent))) {
        return readAtMost(in, Metering.MAX_BODY_BYTES, "once decompressed");
      } catch (ZipException | java.io.EOFException e) {
        throw ApiException.badRequest(
            "The body is not valid gzip: " + e.getMessage(),
            "Send it gzip-compressed whole, or without Content-Encoding");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] readAtMost(InputStream in, int max, String how) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
    byte[] buf = new byte[64 * 1024];
    int n;
    while ((n = in.read(buf)) > 0) {
      out.write(buf, 0, n);
      if (out.size() > max) {
        throw tooLarge(how);
      }
    }
    return out.toByteArray();
  }

  static ApiException tooLarge(String how) {
    return new ApiException(
        413,
        "The ingestion body is larger than " + Metering.MAX_BODY_BYTES + " bytes (10 MiB) " + how,
        "Send the documents in several requests of at most 10 MiB each");
  }

  void createStanding(Context ctx) {
    StandingQueries s = standing();
    ObjectNode body = Json.parseObject(ctx.body());
    String name = text(body, "name");
    String query = text(body, "query");
    java.util.List<io.spyglass.sinks.SinkSpec> sinks =
        QueriesApi.sinks(body.get("sinks"), s.sinks()); // 422 before it is defined
    StandingQueries.Info info = run(() -> s.create(name, query, sinks, Auth.user(ctx)));
    audit.standingCreated(info.name(), query, Auth.user(ctx).name());
    ctx.header("Location", "/api/standing-queries/" + info.name());
    Json.send(ctx, 201, toJson(info));
  }

  void listStanding(Context ctx) {
    StandingQueries s = standing();
    ObjectNode body = Json.object();
    ArrayNode list = body.putArray("standingQueries");
    for (StandingQueries.Info i : run(() -> s.list(Auth.user(ctx)))) {
      list.add(toJson(i));
    }
    Json.send(ctx, 200, body);
  }

  void deleteStanding(Context ctx) {
    StandingQueries s = standing();
    String name = ctx.pathParam("name");
    run(
        () -> {
          s.delete(name, Auth.user(ctx));
          return null;
        });
    audit.standingDeleted(name, Auth.user(ctx).name());
    ctx.status(204);
  }

  void results(Context ctx) {
    StandingQueries s = standing();
    String name = ctx.pathParam("name");
    long from = epochMs(ctx, "from", Long.MIN_VALUE);
    long to = epochMs(ctx, "to", Long.MAX_VALUE);
    StandingReport report = run(() -> s.report(name, from, to, Auth.user(ctx)));
    StringWriter out = new StringWriter();
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(out)) {
      g.writeStartArray();
      for (StandingReport.Window w : report.windows()) {
        g.writeStartObject();
        g.writeObjectFieldStart("window");
        g.writeNumberField("start", w.start());
        g.writeNumberField("end", w.end());
        g.writeBooleanField("final", w.isFinal());
        g.writeEndObject();
        g.writeFieldName("records");
        g.writeRawValue(w.records());
        g.writeObjectFieldStart("meta");
        g.writeNumberField("late", w.late());
        g.writeNumberField("withoutTime", report.withoutTime());
        if (w.error() != null || report.error() != null) {
          g.writeArrayFieldStart("errors");
          if (w.error() != null) {
            g.writeString(w.error());
          }
          if (report.error() != null) {
            g.writeString(report.error());
          }
          g.writeEndArray();
        }
        g.writeEndObject();
        g.writeEndObject();
      }
      g.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ctx.status(200).contentType(Json.TYPE).result(out.toString());
  }

  private static long epochMs(Context ctx, String param, long otherwise) {
    String v = ctx.queryParam(param);
    if (v == null || v.isBlank()) {
      return otherwise;
    }
    try {
      return Long.parseLong(v.strip());
    } catch (NumberFormatException e) {
      throw ApiException.badRequest(
          param + " must be epoch milliseconds: '" + v + "' is not",
          "Send e.g. ?from=1767225600000&to=1767312000000");
    }
  }

  private static String text(ObjectNode body, String field) {
    JsonNode v = body.get(field);
    String example =
        "Send {\"name\": \"usage\", \"query\": \"SELECT ... FROM STREAM(FOREVER) ...\"}";
    if (v == null || !v.isTextual()) {
      throw ApiException.badRequest("The request needs \"" + field + "\": a string", example);
    }
    if (v.asText().isBlank()) {
      throw field.equals("name")
          ? ApiException.badRequest(
              "\"name\" is empty",
              "Give a name of 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or"
                  + " digit, e.g. usage-by-org")
          : ApiException.badRequest("\"" + field + "\" is empty", example);
    }
    return v.asText();
  }

  /** Runs {@code call}, a refusal of the standing queries answered as the API's errors. */
  static <T> T run(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (StandingQueries.Refused e) {
      if (e.status() >= 500) {
        // the service failed: the answer names an error id, the log has what happened under it
        String id = ApiServer.errorId();
        LOG.error("standing queries: {} (error {})", e.getMessage(), id, e);
        throw new ApiException(
                e.status(),
                e.getMessage() + " (error " + id + ")",
                "Try again; if it lasts, see the server's log under error " + id)
            .with("id", id);
      }
      String resolution =
          e.resolution() != null
              ? e.resolution()
              : switch (e.status()) {
                case 404 -> "See GET /api/standing-queries for the standing queries";
                case 403 -> "Ask its owner (GET /api/standing-queries says who) or an admin";
                case 409 -> "Choose another name, or DELETE /api/standing-queries/NAME first";
                default -> "Try again; if it lasts, see the server's log";
              };
      ApiException refused = new ApiException(e.status(), e.getMessage(), resolution);
      if (e.limit() != null) {
        refused.with("limit", e.limit());
      }
      throw refused;
    }
  }

  private static ObjectNode toJson(StandingQueries.Info i) {
    ObjectNode o = Json.object();
    o.put("name", i.name());
    o.put("query", i.query());
    o.put("owner", i.owner());
    o.put("created", i.createdMs());
    o.put("state", i.error() == null ? "RUNNING" : "FAILED");
    o.put("withoutTime", i.withoutTime());
    if (i.error() != null) {
      o.put("error", i.error());
    }
    o.put("results", "/api/standing-queries/" + i.name() + "/results");
    o.set("sinks", QueriesApi.sinksJson(i.sinks()));
    return o;
  }
}

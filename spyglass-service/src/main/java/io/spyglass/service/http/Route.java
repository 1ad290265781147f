package io.spyglass.service.http;

import io.javalin.http.Context;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.server.Request;

/**
 * What a request is, told once by the edge ({@link Gate}) from its method and canonical path (dot
 * segments resolved, percent-decoded, one trailing slash ignored, as the router ignores it) and
 * kept as the request attribute {@link #ATTRIBUTE}: the routes' filters, the request logger, {@link
 * TenantScope} and the ingest backlog read it there, so that {@code /api/health/} is health and
 * {@code /api/ingest/} is ingestion for every one of them.
 *
 * @param kind what the request is for
 * @param path the canonical path without its trailing slash ({@code ""} when Jetty could not make
 *     one: treated as an API path)
 */
record Route(Kind kind, String path) {
  /** The kinds of request the edge treats apart. */
  enum Kind {
    /** {@code /api/health}: answers everyone, tells more to a caller with a token. */
    HEALTH,
    /**
     * {@code /metrics}: needs a token with {@code --tokens} unless {@code --metrics-without-token}.
     */
    METRICS,
    /** The web UI's files: no token, no body. */
    UI,
    /** Every other {@code /api} route: a caller with {@code --tokens}. */
    API,
    /**
     * {@code GET /api/ws} and {@code GET /api/queries/{id}/results}: an API route that also takes a
     * ticket or token in its URL.
     */
    STREAM,
    /** {@code POST /api/ingest}: bodies up to 10 MiB, held against the ingest backlog. */
    INGEST
  }

  /** The request attribute that holds a request's {@link Route}. */
  static final String ATTRIBUTE = "spyglass.route";

  private static final Pattern STREAM_PATH = Pattern.compile("/api/ws|/api/queries/[^/]+/results");

  /**
   * The route of a request with this method and canonical path (null: not one Jetty could make).
   */
  static Route classify(String method, String canonicalPath) {
    String p = canonicalPath == null ? "" : canonicalPath;
    if (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    Kind kind;
    if (p.equals("/api/health")) {
      kind = Kind.HEALTH;
    } else if (p.equals("/metrics")) {
      kind = Kind.METRICS;
    } else if (!(p.isEmpty() || p.equals("/api") || p.startsWith("/api/"))) {
      kind = Kind.UI;
    } else if (p.equals("/api/ingest") && "POST".equals(method)) {
      kind = Kind.INGEST;
    } else if ("GET".equals(method) && STREAM_PATH.matcher(p).matches()) {
      kind = Kind.STREAM;
    } else {
      kind = Kind.API;
    }
    return new Route(kind, p);
  }

  /** The route of a request at the edge, told once and kept on it. */
  static Route of(Request req) {
    if (req.getAttribute(ATTRIBUTE) instanceof Route r) {
      return r;
    }
    Route r = classify(req.getMethod(), req.getHttpURI().getCanonicalPath());
    req.setAttribute(ATTRIBUTE, r);
    return r;
  }

  /** The route of a request behind the edge, as the edge told it. */
  static Route of(Context ctx) {
    if (ctx.attribute(ATTRIBUTE) instanceof Route r) {
      return r;
    }
    return of(ServletContextRequest.getServletContextRequest(ctx.req()));
  }

  /** Whether the route is under {@code /api} (health included). */
  boolean api() {
    return kind != Kind.UI && kind != Kind.METRICS;
  }
}

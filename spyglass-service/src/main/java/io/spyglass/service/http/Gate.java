package io.spyglass.service.http;

import io.spyglass.core.SpyglassClock;
import io.spyglass.service.auth.User;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.metrics.ServiceMetrics;
import java.net.InetAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The edge every request passes before the routes, in this order, each refusal a JSON error:
 *
 * <ol>
 *   <li>{@code Host} must name this service (loopback names, the bound address, {@code
 *       --allowed-hosts}): without tokens, so that a page on a rebound DNS name cannot read it;
 *       421.
 *   <li>A state-changing request or a WebSocket upgrade from a browser must come from this
 *       service's own pages or an allowed origin ({@code Sec-Fetch-Site}, else {@code Origin}
 *       against {@code Host}; requests without either, as curl's, pass); 403.
 *   <li>The caller, before any byte of a body is read ({@link Auth}); 401, or 429 for an address
 *       that sent many wrong tokens.
 *   <li>The declared body size against the route's limit; 413 (answered at once, then the body is
 *       drained briefly without a thread).
 *   <li>The right to send it and room for it where the route holds some ({@link Admission}, e.g.
 *       the ingest role and backlog); 403 or 429.
 *   <li>Memory for the body, in all and for the caller ({@link BodyMemory}); 429.
 *   <li>The body itself, read without a thread and within a deadline ({@link Bodies}); 408 or 413.
 * </ol>
 *
 * <p>Only then does the request reach Javalin and its route. What the request is (health, metrics,
 * the web UI, the API, a result stream, ingestion) is told once, first, and kept on the request
 * ({@link Route}) for everything behind. Thread-safe.
 */
final class Gate extends Handler.Wrapper {
  /** Holds room for a request's body before it is read; null when the route holds none. */
  interface Admission {
    AutoCloseable admit(Route route, User user, long declaredLength) throws ApiException;
  }

  /** The request attribute holding what {@link Admission} returned (closed when it completes). */
  static final String ADMITTED = "spyglass.admitted";

  private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");

  private final EdgeSettings edge;
  private final Auth auth;
  private final ServiceMetrics metrics;
  private final Admission admission;
  private final BodyMemory bodyMemory;
  private final boolean checkHost;
  private final String bind;
  private final InetAddress bindAddress;

  /** The service's clock: its monotonic one times request bodies. */
  private final SpyglassClock clock;

  Gate(
      EdgeSettings edge,
      Auth auth,
      ServiceMetrics metrics,
      Admission admission,
      BodyMemory bodyMemory,
      String bind,
      SpyglassClock clock) {
    this.clock = clock;
    this.edge = edge;
    this.auth = auth;
    this.metrics = metrics;
    this.admission = admission;
    this.bodyMemory = bodyMemory;
    this.checkHost = !auth.required() || !edge.allowedHosts().isEmpty();
    this.bind = bind.toLowerCase(Locale.ROOT);
    this.bindAddress = TrustedProxies.literal(this.bind);
  }

  @Override
  public boolean handle(Request req, Response res, Callback cb) throws Exception {
    WebUi.ALL.forEach((k, v) -> res.getHeaders().put(k, v)); // refusals too
    try {
      return admit(req, res, cb);
    } catch (ApiException e) {
      // a caller known already (refused for a role or for room) may be sending its body: it
      // reads the answer rather than a reset; others' bodies are not read
      refuse(req, res, cb, e, req.getAttribute(Auth.ATTRIBUTE) != null);
      return true;
    }
  }

  private boolean admit(Request req, Response res, Callback cb) throws Exception {
    Handler next = getHandler();
    Route route = Route.of(req); // told once here: everything behind reads it
    if (checkHost && !hostAllowed(req)) {
      throw new ApiException(
          421,
          "This service does not answer to the host '" + req.getHttpURI().getHost() + "'",
          "Call it by a loopback name or address (localhost, 127.0.0.1) or the address it is"
              + " bound to, or start it with --allowed-hosts NAME");
    }
    if (!originAllowed(req)) {
      throw new ApiException(
          403,
          "Requests from the web page at "
              + originOf(req)
              + " are refused: only this service's own pages may change things or open a WebSocket",
          "Use this service's web UI or a client that is not a browser page, or start the"
              + " service with --allowed-origins ORIGIN to let that site in");
    }
    switch (route.kind()) {
      case HEALTH -> {
        auth.optional(req).ifPresent(u -> req.setAttribute(Auth.ATTRIBUTE, u));
        return next.handle(req, res, cb);
      }
      case UI -> {
        return next.handle(req, res, cb); // the web UI's files: no token, no body
      }
      case METRICS -> {
        if (!auth.required() || edge.metricsWithoutToken()) {
          return next.handle(req, res, cb);
        }
      }
      default -> {}
    }
    User user = auth.authenticate(req, route.kind() == Route.Kind.STREAM);
    req.setAttribute(Auth.ATTRIBUTE, user);
    if (!Bodies.expected(req)) {
      return next.handle(req, res, cb);
    }
    boolean ingest = route.kind() == Route.Kind.INGEST;
    int limit = ingest ? Metering.MAX_BODY_BYTES : ApiServer.MAX_BODY_BYTES;
    ApiException tooLarge = ingest ? MeteringApi.tooLarge("as sent") : ApiServer.tooLarge();
    long declared = req.getLength();
    if (declared > limit) {
      refuse(req, res, cb, tooLarge, true);
      return true;
    }
    AutoCloseable admitted = admission.admit(route, user, declared);
    if (admitted != null) {
      req.setAttribute(ADMITTED, admitted);
      releaseOnCompletion(req, admitted);
    }
    // the memory the body will take: its declared length, or the most the route takes in chunks
    releaseOnCompletion(req, bodyMemory.reserve(user.name(), declared > 0 ? declared : limit));
    Bodies.load(
        req,
        res,
        cb,
        next,
        limit,
        tooLarge,
        edge.bodyTimeoutMs(),
        edge.minBodyBytesPerSecond(),
        e -> refuse(req, res, cb, e, e.status() == 413),
        clock);
    return true;
  }

  /** Closes {@code held} when the request completes, answered or refused. */
  private static void releaseOnCompletion(Request req, AutoCloseable held) {
    Request.addCompletionListener(
        req,
        failure -> {
          try {
            held.close();
          } catch (Exception e) {
            // nothing more to give back
          }
        });
  }

  /**
   * Answers {@code e} as JSON. A request whose body is not read closes its connection; with {@code
   * drain} the rest of the body is then read and dropped, for a moment at most, so that a client
   * still sending it reads the answer rather than a reset.
   */
  void refuse(Request req, Response res, Callback cb, ApiException e, boolean drain) {
    metrics.request(req.getMethod(), e.status());
    if (Route.of(req).kind() == Route.Kind.INGEST) {
      metrics.ingestRequest(e.status()); // refused here, it never reaches the route's logger
    }
    boolean body = Bodies.expected(req);
    res.setStatus(e.status());
    res.getHeaders().put(HttpHeader.CONTENT_TYPE, Json.TYPE);
    e.headers().forEach((k, v) -> res.getHeaders().put(k, v));
    if (body) {
      res.getHeaders().put(HttpHeader.CONNECTION, "close");
    }
    ByteBuffer bytes = ByteBuffer.wrap(Json.write(Json.error(e)).getBytes(StandardCharsets.UTF_8));
    if (drain && body && !Bodies.waitsToSend(req)) {
      // the answer at once, then the body read and dropped (no thread waits on it) before the
      // connection closes: a close with unread bytes resets it, and the reset could cost a client
      // still sending the answer
      res.write(true, bytes, Callback.from(() -> Bodies.drain(req, cb), cb::failed));
    } else {
      res.write(true, bytes, cb);
    }
  }

  /** Whether {@code Host} names this service (see the class comment). */
  boolean hostAllowed(Request req) {
    String host = req.getHttpURI().getHost();
    if (host == null || host.isEmpty()) {
      return true; // HTTP/1.0 without Host: no browser sends that
    }
    host = host.toLowerCase(Locale.ROOT);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (edge.allowedHosts().contains("*") || edge.allowedHosts().contains(host)) {
      return true;
    }
    if (host.equals("localhost") || host.endsWith(".localhost") || host.equals(bind)) {
      return true;
    }
    InetAddress a = TrustedProxies.literal(host);
    if (a == null) {
      return false; // a name: only the ones above (a rebinding attacker controls the others)
    }
    return a.isLoopbackAddress()
        || (bindAddress != null && (bindAddress.isAnyLocalAddress() || bindAddress.equals(a)));
  }

  /**
   * Whether a browser page may make this request: always for reads; for a state-changing request or
   * a WebSocket upgrade, when the browser says it is same-origin ({@code Sec-Fetch-Site}), or
   * {@code Origin} is this service's own (its host is {@code Host}) or an allowed one; a request
   * with neither header is not a browser page's and passes.
   */
  boolean originAllowed(Request req) {
    boolean upgrade = req.getHeaders().contains(HttpHeader.UPGRADE);
    if (SAFE_METHODS.contains(req.getMethod()) && !upgrade) {
      return true;
    }
    String origin = req.getHeaders().get(HttpHeader.ORIGIN);
    if (origin != null && edge.allowedOrigins().contains(origin.strip().toLowerCase(Locale.ROOT))) {
      return true;
    }
    String site = req.getHeaders().get("Sec-Fetch-Site");
    if (site != null) {
      return site.equalsIgnoreCase("same-origin") || site.equalsIgnoreCase("none");
    }
    if (origin == null) {
      return true;
    }
    String host = req.getHeaders().get(HttpHeader.HOST);
    return host != null && authority(origin).equalsIgnoreCase(withoutDefaultPort(host, origin));
  }

  private static String originOf(Request req) {
    String origin = req.getHeaders().get(HttpHeader.ORIGIN);
    return origin != null ? origin : "another site";
  }

  /** {@code host[:port]} of an origin, without the scheme's default port; "" when malformed. */
  private static String authority(String origin) {
    try {
      URI u = new URI(origin.strip());
      if (u.getHost() == null) {
        return "";
      }
      String host = u.getRawAuthority();
      return withoutDefaultPort(host, origin);
    } catch (java.net.URISyntaxException e) {
      return "";
    }
  }

  private static String withoutDefaultPort(String authority, String origin) {
    String a = authority.strip().toLowerCase(Locale.ROOT);
    String defaultPort = origin.toLowerCase(Locale.ROOT).startsWith("https:") ? ":443" : ":80";
    return a.endsWith(defaultPort) ? a.substring(0, a.length() - defaultPort.length()) : a;
  }
}

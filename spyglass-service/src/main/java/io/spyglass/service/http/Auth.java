package io.spyglass.service.http;

import io.javalin.http.Context;
import io.spyglass.service.auth.Tokens;
import io.spyglass.service.auth.User;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Fields;

/**
 * Who calls: the bearer token of {@code Authorization: Bearer TOKEN}; on the two result-stream
 * routes, where a browser cannot set headers, also a single-use {@code ?ticket=} ({@link Tickets})
 * or {@code ?access_token=TOKEN}. A token anywhere else in a URL is refused: URLs end up in logs.
 * Wrong tokens are counted per client address ({@link FailureThrottle}, {@link TrustedProxies}).
 * Every {@code /api} route but health needs a caller when the service has tokens.
 */
final class Auth {
  static final String ATTRIBUTE = "spyglass.user";

  /** {@code Bearer}, one space, the token: visible ASCII without spaces. */
  private static final Pattern BEARER = Pattern.compile("(?i:bearer) ([\\x21-\\x7e]+)");

  private final Tokens tokens;
  private final Tickets tickets;
  private final FailureThrottle throttle;
  private final TrustedProxies proxies;

  Auth(Tokens tokens, Tickets tickets, FailureThrottle throttle, TrustedProxies proxies) {
    this.tokens = tokens;
    this.tickets = tickets;
    this.throttle = throttle;
    this.proxies = proxies;
  }

  boolean required() {
    return tokens.required();
  }

  /**
   * The caller of a request. A valid token or ticket always passes; a wrong token counts against
   * its client's address ({@link TrustedProxies#client}), which past its allowance gets 429; a
   * wrong ticket is answered 401 and not counted.
   *
   * @param streamRoute whether the route takes a token or ticket in its URL
   * @throws ApiException 401 without a valid token or ticket, 400 for two of them, 429 for a wrong
   *     one from an address that sent too many wrong ones lately
   */
  User authenticate(Request req, boolean streamRoute) {
    if (!tokens.required()) {
      return anonymous();
    }
    Credentials c = credentials(req);
    if (c.none()) {
      throw unauthorized("This request needs a token");
    }
    if (c.count() > 1) {
      throw ApiException.badRequest(
          "The request carries more than one token or ticket",
          "Send one: Authorization: Bearer TOKEN (or, on a result stream, ?ticket=TICKET)");
    }
    if ((c.accessToken() != null || c.ticket() != null) && !streamRoute) {
      throw unauthorized(
          "A token or ticket in the URL is accepted only by GET /api/ws and GET"
              + " /api/queries/{id}/results");
    }
    Optional<User> user;
    String wrong;
    if (c.ticket() != null) {
      user = tickets.redeem(c.ticket());
      wrong = "The ticket is not valid: unknown, used already or expired";
    } else if (c.header() != null) {
      var m = BEARER.matcher(c.header());
      user = m.matches() ? tokens.user(m.group(1)) : Optional.empty();
      wrong =
          m.matches() ? "The token is not valid" : "The Authorization header is not 'Bearer TOKEN'";
    } else {
      user = tokens.user(c.accessToken());
      wrong = "The token is not valid";
    }
    if (user.isPresent()) {
      return user.get(); // whatever its address sent before
    }
    if (c.ticket() != null) {
      // not counted: a ticket is 256 random bits, never guessed, and a browser's EventSource
      // reconnects with the ticket it used already
      throw unauthorized(wrong);
    }
    long wait = throttle.failed(proxies.client(req));
    if (wait > 0) {
      throw new ApiException(
              429,
              "Too many requests with a wrong token from this address",
              "Check the token; try again after Retry-After seconds (a valid token is served"
                  + " meanwhile)")
          .with("limit", "max-auth-failures-per-minute")
          .with("retryAfterSeconds", wait)
          .header("Retry-After", Long.toString(wait));
    }
    throw unauthorized(wrong);
  }

  /**
   * The caller when the request carries a valid token, else none (for routes that answer everyone
   * but tell more to a caller): never an error; wrong tokens count as for {@link #authenticate}.
   */
  Optional<User> optional(Request req) {
    if (!tokens.required()) {
      return Optional.of(anonymous());
    }
    if (credentials(req).none()) {
      return Optional.empty();
    }
    try {
      return Optional.of(authenticate(req, false));
    } catch (ApiException e) {
      return Optional.empty();
    }
  }

  /**
   * The one user without tokens, as {@link Tokens} defines it (an admin with the ingest role): one
   * definition, so that the edge and the routes never see two users of the same name.
   */
  User anonymous() {
    return tokens.user(null).orElseThrow();
  }

  /** What a request presents: its Authorization header and its URL's token and ticket. */
  private record Credentials(String header, String accessToken, String ticket) {
    boolean none() {
      return count() == 0;
    }

    int count() {
      return (header != null ? 1 : 0) + (accessToken != null ? 1 : 0) + (ticket != null ? 1 : 0);
    }
  }

  private static Credentials credentials(Request req) {
    List<String> headers = req.getHeaders().getValuesList(HttpHeader.AUTHORIZATION);
    String header = headers.isEmpty() ? null : String.join(", ", headers);
    String accessToken = null;
    String ticket = null;
    if (req.getHttpURI().getQuery() != null) {
      Fields params;
      try {
        params = Request.extractQueryParameters(req);
      } catch (RuntimeException e) {
        throw ApiException.badRequest(
            "The query string is not valid: " + e.getMessage(),
            "Encode the URL's parameters (percent-encoding, UTF-8)");
      }
      accessToken = params.getValue("access_token");
      ticket = params.getValue("ticket");
    }
    return new Credentials(header, accessToken, ticket);
  }

  /**
   * Makes sure a request the edge ({@link Gate}) let through has its caller: the edge finds it for
   * every {@code /api} path it sees; this finds it for one it classified otherwise.
   */
  void ensure(Context ctx) {
    if (ctx.attribute(ATTRIBUTE) == null) {
      Request core = ServletContextRequest.getServletContextRequest(ctx.req());
      ctx.attribute(ATTRIBUTE, authenticate(core, false));
    }
  }

  /** The caller of a request handled by a route behind the edge. */
  static User user(Context ctx) {
    User u = ctx.attribute(ATTRIBUTE);
    if (u == null) {
      throw new IllegalStateException("no user on a request that needs one");
    }
    return u;
  }

  static ApiException unauthorized(String message) {
    return new ApiException(
            401,
            message,
            "Send Authorization: Bearer TOKEN with a token from the service's tokens file; a"
                + " result stream opened by a browser takes ?ticket=T (POST /api/tickets)")
        .header("WWW-Authenticate", "Bearer realm=\"spyglass\"");
  }
}

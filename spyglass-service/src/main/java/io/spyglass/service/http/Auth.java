package io.spyglass.service.http;

import io.javalin.http.Context;
import io.spyglass.service.auth.Tokens;
import io.spyglass.service.auth.User;

/**
 * Who calls: the bearer token of {@code Authorization: Bearer TOKEN}, or of the {@code
 * access_token} query parameter for clients that cannot set headers (a browser's EventSource and
 * WebSocket). Every {@code /api} route but health needs one when the service has tokens.
 */
final class Auth {
  static final String ATTRIBUTE = "spyglass.user";

  private final Tokens tokens;
  private final StreamTickets tickets;

  Auth(Tokens tokens, StreamTickets tickets) {
    this.tokens = tokens;
    this.tickets = tickets;
  }

  /**
   * Finds the caller and keeps it on the request; a 401 when there is none. On the two stream
   * routes a {@code ?ticket=} from {@code POST /api/tickets} stands for its user.
   */
  void authenticate(Context ctx) {
    if (ctx.attribute(ATTRIBUTE) != null) {
      return; // found before (a WebSocket upgrade passes here twice): a ticket is spent once
    }
    String ticket = ctx.queryParam("ticket");
    if (ticket != null && streamRoute(ctx.path())) {
      User u = tickets.redeem(ticket).orElse(null);
      if (u != null) {
        ctx.attribute(ATTRIBUTE, u);
        return;
      }
      if (tokens.required()) {
        throw new ApiException(
                401,
                "The ticket is not valid: a ticket is good once, for 30 s",
                "Ask POST /api/tickets for a new one (with Authorization: Bearer TOKEN)")
            .header("WWW-Authenticate", "Bearer realm=\"spyglass\"");
      }
    }
    User user = tokens.user(token(ctx)).orElseThrow(() -> unauthorized(token(ctx) != null));
    ctx.attribute(ATTRIBUTE, user);
  }

  /** The routes a browser opens without headers: the WebSocket and the SSE stream. */
  static boolean streamRoute(String path) {
    return path.equals("/api/ws") || path.matches("/api/queries/[^/]+/results");
  }

  /** {@code POST /api/tickets}: a ticket for the caller, for a stream route. */
  void ticket(Context ctx) {
    StreamTickets.Ticket t = tickets.issue(user(ctx));
    Json.send(ctx, 201, Json.object().put("ticket", t.value()).put("expiresMs", t.expiresMs()));
  }

  static User user(Context ctx) {
    User u = ctx.attribute(ATTRIBUTE);
    if (u == null) {
      throw new IllegalStateException("no user on a request that needs one");
    }
    return u;
  }

  private static String token(Context ctx) {
    String h = ctx.header("Authorization");
    if (h != null && h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return h.substring(7).strip();
    }
    return ctx.queryParam("access_token");
  }

  private static ApiException unauthorized(boolean given) {
    return new ApiException(
            401,
            given ? "The token is not valid" : "This request needs a token",
            "Send Authorization: Bearer TOKEN with a token from the service's tokens file (or"
                + " ?access_token=TOKEN where headers cannot be set)")
        .header("WWW-Authenticate", "Bearer realm=\"spyglass\"");
  }
}

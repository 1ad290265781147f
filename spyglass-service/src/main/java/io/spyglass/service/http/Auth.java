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

  Auth(Tokens tokens) {
    this.tokens = tokens;
  }

  /** Finds the caller and keeps it on the request; a 401 when there is none. */
  void authenticate(Context ctx) {
    User user = tokens.user(token(ctx)).orElseThrow(() -> unauthorized(token(ctx) != null));
    ctx.attribute(ATTRIBUTE, user);
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

package io.spyglass.service.http;

import io.javalin.http.Context;
import io.spyglass.service.auth.User;
import java.util.regex.Pattern;

/**
 * What a token bound to tenants may call: ingest its tenants' documents and read their rows of
 * standing queries. Every other route shows the whole stream or everyone's documents (queries, the
 * live schema's examples, WebSocket), so it answers 403 for such a token. Runs after {@link Auth};
 * a request without a user (health) passes.
 */
final class TenantScope {
  private TenantScope() {}

  static void check(Context ctx) {
    User u = ctx.attribute(Auth.ATTRIBUTE);
    if (u == null || !u.boundToTenants() || allowed(ctx.method().name(), Route.of(ctx))) {
      return;
    }
    throw new ApiException(
        403,
        "The token of "
            + u.name()
            + " is bound to tenants "
            + u.tenants().stream().sorted().toList()
            + ": it ingests their documents and reads their rows of standing queries, and"
            + " nothing else ("
            + ctx.method().name()
            + " "
            + ctx.path()
            + " would show other tenants' documents)",
        "Use POST /api/ingest, GET /api/standing-queries and GET"
            + " /api/standing-queries/NAME/results, or a token bound to no tenant");
  }

  /** Whether a token bound to tenants may make a request of this method to this route. */
  static boolean allowed(String method, Route route) {
    boolean read = method.equals("GET") || method.equals("HEAD");
    String p = route.path();
    return switch (route.kind()) {
      case INGEST -> true;
      case HEALTH, UI -> read;
      case METRICS, STREAM -> false;
      case API ->
          read
              && (p.equals("/api/openapi.json")
                  || p.equals("/api/standing-queries")
                  || STANDING_RESULTS.matcher(p).matches());
    };
  }

  private static final Pattern STANDING_RESULTS =
      Pattern.compile("/api/standing-queries/[^/]+/results");
}

package io.spyglass.service.http;

import io.javalin.config.JavalinConfig;
import io.javalin.http.staticfiles.Location;
import java.util.HashMap;
import java.util.Map;

/**
 * The web UI at {@code /}: the files the {@code spyglass-ui} module builds into the classpath under
 * {@code /spyglass-ui}. Its pages are addressed after {@code #}, so {@code /} is the only page.
 * Hashed files under {@code /assets} are cached for a year; {@code index.html} is revalidated on
 * every load, so a new build shows at once.
 *
 * <p>Its pages are served with a Content-Security-Policy that lets only the UI's own files run (no
 * inline script, nothing from elsewhere), and may not be framed by another site (clickjacking of
 * Stop and Delete). Styles may be inline: CodeMirror puts its theme in a {@code <style>} element.
 * Every answer, the API's too, says {@code nosniff} and sends no referrer.
 */
final class WebUi {
  static final String DIRECTORY = "/spyglass-ui";

  static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
          + " img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none';"
          + " base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

  /** Headers of every answer, the API's included (refusals too: the {@link Gate} sends them). */
  static final Map<String, String> ALL =
      Map.of("X-Content-Type-Options", "nosniff", "Referrer-Policy", "no-referrer");

  /** Headers of the UI's files. */
  static final Map<String, String> PAGES =
      Map.of(
          "Content-Security-Policy",
          CONTENT_SECURITY_POLICY,
          "X-Frame-Options",
          "DENY",
          "X-Content-Type-Options",
          "nosniff",
          "Referrer-Policy",
          "no-referrer");

  private static Map<String, String> with(Map<String, String> headers, String name, String value) {
    Map<String, String> m = new HashMap<>(headers);
    m.put(name, value);
    return Map.copyOf(m);
  }

  private WebUi() {}

  /** Whether this classpath holds the built UI. */
  static boolean present() {
    return WebUi.class.getResource(DIRECTORY + "/index.html") != null;
  }

  static void configure(JavalinConfig cfg) {
    if (!present()) {
      cfg.routes.get(
          "/",
          ctx -> {
            PAGES.forEach(ctx::header);
            ctx.contentType("text/plain; charset=utf-8")
                .result(
                    "Spyglass is serving its API under /api (see /api/openapi.json); this build"
                        + " has no web UI. Build it with: mvn -B package -pl spyglass-cli -am\n");
          });
      return;
    }
    cfg.staticFiles.add(
        sf -> {
          sf.hostedPath = "/assets";
          sf.directory = DIRECTORY + "/assets";
          sf.location = Location.CLASSPATH;
          sf.headers = with(PAGES, "Cache-Control", "public, max-age=31536000, immutable");
        });
    cfg.staticFiles.add(
        sf -> {
          sf.hostedPath = "/";
          sf.directory = DIRECTORY;
          sf.location = Location.CLASSPATH;
          sf.headers = with(PAGES, "Cache-Control", "no-cache");
          sf.skipFileFunction = req -> req.getRequestURI().startsWith("/assets/");
        });
  }
}

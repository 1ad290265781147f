package io.spyglass.service.http;

import io.javalin.config.JavalinConfig;
import io.javalin.http.staticfiles.Location;
import java.util.Map;

/**
 * The web UI at {@code /}: the files the {@code spyglass-ui} module builds into the classpath under
 * {@code /spyglass-ui}. Its pages are addressed after {@code #}, so {@code /} is the only page.
 * Hashed files under {@code /assets} are cached for a year; {@code index.html} is revalidated on
 * every load, so a new build shows at once.
 */
final class WebUi {
  static final String DIRECTORY = "/spyglass-ui";

  private WebUi() {}

  /** Whether this classpath holds the built UI. */
  static boolean present() {
    return WebUi.class.getResource(DIRECTORY + "/index.html") != null;
  }

  static void configure(JavalinConfig cfg) {
    if (!present()) {
      cfg.routes.get(
          "/",
          ctx ->
              ctx.contentType("text/plain; charset=utf-8")
                  .result(
                      "Spyglass is serving its API under /api (see /api/openapi.json); this build"
                          + " has no web UI. Build it with: mvn -B package -pl spyglass-cli -am\n"));
      return;
    }
    cfg.staticFiles.add(
        sf -> {
          sf.hostedPath = "/assets";
          sf.directory = DIRECTORY + "/assets";
          sf.location = Location.CLASSPATH;
          sf.headers = Map.of("Cache-Control", "public, max-age=31536000, immutable");
        });
    cfg.staticFiles.add(
        sf -> {
          sf.hostedPath = "/";
          sf.directory = DIRECTORY;
          sf.location = Location.CLASSPATH;
          sf.headers = Map.of("Cache-Control", "no-cache");
          sf.skipFileFunction = req -> req.getRequestURI().startsWith("/assets/");
        });
  }
}

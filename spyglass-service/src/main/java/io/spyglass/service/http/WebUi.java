package io.spyglass.service.http;

import io.javalin.config.JavalinConfig;
import io.javalin.http.staticfiles.Location;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

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
 *
 * <p>The files are served from a folder: the build's, or, when they are in a jar, a copy of them
 * made once a process and deleted when it exits. Served from the jar, Jetty mounted it as a zip
 * file system, several times, and each mount read the index of every entry of the jar into the
 * heap: with the UI inside the command's jar ({@code ./spyglass serve}, 43,000 entries), 8 mounts
 * held 110 MB of an idle service's heap of 118.
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

  /** The folder the UI is served from; made at the first {@link #configure}. */
  private static Path files;

  /**
   * The folder of the UI's files: the build's own, or a copy of the files of the jar that holds
   * them (made at the first call, deleted when the process exits).
   */
  static synchronized Path files() {
    if (files == null) {
      try {
        files = filesOf(WebUi.class.getResource(DIRECTORY + "/index.html"));
      } catch (IOException e) {
        throw new UncheckedIOException(
            "the web UI's files could not be copied out of their jar", e);
      }
    }
    return files;
  }

  /**
   * The folder of the UI whose {@code index.html} is at {@code index}: its own folder, or a new
   * temporary one with a copy of the files under {@link #DIRECTORY} of the jar it is in.
   */
  static Path filesOf(URL index) throws IOException {
    try {
      if ("file".equals(index.getProtocol())) {
        return Path.of(index.toURI()).getParent();
      }
      URL jarUrl = ((JarURLConnection) index.openConnection()).getJarFileURL();
      String mine = COPY_PREFIX + ProcessHandle.current().pid() + "-";
      Path dir = Files.createTempDirectory(mine).toRealPath();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), "spyglass-ui-files"));
      deleteCopiesOfEndedProcesses(dir.getParent());
      String prefix = DIRECTORY.substring(1) + "/";
      try (JarFile jar = new JarFile(Path.of(jarUrl.toURI()).toFile())) {
        for (Enumeration<JarEntry> all = jar.entries(); all.hasMoreElements(); ) {
          JarEntry e = all.nextElement();
          if (e.isDirectory() || !e.getName().startsWith(prefix)) {
            continue;
          }
          Path to = dir.resolve(e.getName().substring(prefix.length())).normalize();
          if (!to.startsWith(dir)) {
            continue; // a name that would leave the folder: not a file of the UI
          }
          Files.createDirectories(to.getParent());
          try (InputStream in = jar.getInputStream(e)) {
            Files.copy(in, to);
          }
        }
      }
      return dir;
    } catch (URISyntaxException | ClassCastException e) {
      throw new IOException("the web UI's files are at " + index + ", neither a file nor a jar", e);
    }
  }

  /** The name of a copy of the UI's files: this, the process's id, a dash. */
  static final String COPY_PREFIX = "spyglass-ui-";

  /**
   * Deletes the copies in {@code tmp} of processes that no longer run: a process killed without its
   * shutdown hooks ({@code kill -9}) leaves its copy behind.
   */
  static void deleteCopiesOfEndedProcesses(Path tmp) {
    try (Stream<Path> all = Files.list(tmp)) {
      all.forEach(
          p -> {
            String name = p.getFileName().toString();
            if (!name.startsWith(COPY_PREFIX)) {
              return;
            }
            int dash = name.indexOf('-', COPY_PREFIX.length());
            if (dash < 0) {
              return;
            }
            try {
              long pid = Long.parseLong(name.substring(COPY_PREFIX.length(), dash));
              if (ProcessHandle.of(pid).isEmpty() && Files.isDirectory(p)) {
                deleteTree(p);
              }
            } catch (NumberFormatException e) {
              // not a copy of this kind
            }
          });
    } catch (IOException | UncheckedIOException e) {
      // the system's to clean
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temporary folder left behind: the system's to clean
    }
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
    Path dir = files();
    cfg.staticFiles.add(
        sf -> {
          sf.hostedPath = "/assets";
          sf.directory = dir.resolve("assets").toString();
          sf.location = Location.EXTERNAL;
          sf.headers = with(PAGES, "Cache-Control", "public, max-age=31536000, immutable");
        });
    cfg.staticFiles.add(
        sf -> {
          sf.hostedPath = "/";
          sf.directory = dir.toString();
          sf.location = Location.EXTERNAL;
          sf.headers = with(PAGES, "Cache-Control", "no-cache");
          sf.skipFileFunction = req -> req.getRequestURI().startsWith("/assets/");
        });
  }
}

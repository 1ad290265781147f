package io.spyglass.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image that src/container/build-image.sh builds: spyglass serve started inside it
 * (as the image's non-root user, with a tokens file mounted), queried from outside, its health
 * check run inside it. {@code podman run} is refused on some machines (no cgroups for it); {@code
 * buildah run --isolation chroot} runs a command inside the image on the host's network, which is
 * what this test does.
 *
 * <p>Building the image takes minutes (it downloads Debian's packages), so this test does not by
 * default: it runs when the image {@code localhost/spyglass:VERSION} (or {@code $SPYGLASS_IMAGE})
 * was built after the archive, or builds it first when {@code SPYGLASS_IMAGE_BUILD=1}; otherwise it
 * is skipped, saying why.
 */
class ContainerImageIT {
  private static final Pattern SERVING = Pattern.compile("Spyglass is serving (http://\\S+/)");
  private static final String TOKEN = "image-test-token-0123456789";

  @TempDir Path dir;

  @Test
  void servesFromTheImageAsItsOwnUserWithAHealthCheck() throws Exception {
    Assumptions.assumeTrue(
        onPath("buildah"),
        "buildah is not installed: as root, apt-get install podman buildah mmdebstrap, then"
            + " SPYGLASS_IMAGE_BUILD=1 runs this test with an image it builds");
    Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name")),
        "the image is built and run as root (mmdebstrap, podman and buildah store it for root)");
    String version = System.getProperty("spyglass.version");
    String image = env("SPYGLASS_IMAGE", "localhost/spyglass:" + version);
    Path archive = Path.of(System.getProperty("spyglass.archive"));

    Instant built = created(image);
    Instant archived = Files.getLastModifiedTime(archive).toInstant();
    if (built == null || built.isBefore(archived)) {
      String why =
          (built == null ? "no image " + image : "the image " + image + " is older than " + archive)
              + ": build it with spyglass-dist/src/container/build-image.sh (a few minutes), or"
              + " set SPYGLASS_IMAGE_BUILD=1 to have this test build it";
      Assumptions.assumeTrue("1".equals(System.getenv("SPYGLASS_IMAGE_BUILD")), why);
      ProcessBuilder build =
          new ProcessBuilder(
              "bash",
              Path.of(System.getProperty("spyglass.container"), "build-image.sh").toString(),
              archive.toString());
      build.environment().put("SPYGLASS_IMAGE", image);
      Commands.Run run = Commands.run(build, 1800);
      Assumptions.assumeTrue(run.exitCode() != 2, run.stderr());
      assertThat(run.exitCode()).as(run.toString()).isZero();
    }

    // what the image says of itself: its user is not root, it has a health check
    Commands.Run inspect = buildah("inspect", "--type", "image", image);
    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    JsonNode config = ArchiveIT.JSON.readTree(inspect.stdout()).path("Docker").path("config");
    assertThat(config.path("User").asText()).isEqualTo("10001:10001");
    assertThat(config.path("Healthcheck").path("Test").toString())
        .contains("/usr/local/bin/spyglass-healthcheck");

    String container = "spyglass-it-" + ProcessHandle.current().pid();
    Commands.Run from = buildah("from", "--name", container, image);
    assertThat(from.exitCode()).as(from.toString()).isZero();
    try {
      Commands.Run id = buildah("run", "--isolation", "chroot", container, "--", "id", "-u");
      assertThat(id.stdout().strip()).as(id.toString()).isEqualTo("10001");
      // the class-data sharing archive the build wrote fits the image's Java (-Xshare:on: or fail)
      Commands.Run shared =
          buildah(
              "run",
              "--isolation",
              "chroot",
              "--env",
              "SPYGLASS_JAVA_OPTS=-Xshare:on",
              container,
              "--",
              "/opt/spyglass/bin/spyglass",
              "--version");
      assertThat(shared.exitCode()).as(shared.toString()).isZero();

      Path tokens = dir.resolve("tokens.txt");
      Files.writeString(tokens, TOKEN + " operator admin\n");
      List<String> serve =
          buildahCommand(
              "run",
              "--isolation",
              "chroot",
              "--volume",
              tokens + ":/etc/spyglass/tokens.txt:ro",
              container,
              "--",
              "/opt/spyglass/bin/spyglass",
              "serve",
              "--port",
              "0",
              "--data",
              "/var/lib/spyglass",
              "--tokens",
              "/etc/spyglass/tokens.txt");
      try (Commands.Server server = Commands.start(new ProcessBuilder(serve))) {
        URI base = URI.create(server.awaitLine(SERVING).group(1));
        HttpClient http = HttpClient.newHttpClient();

        HttpResponse<String> health =
            http.send(
                HttpRequest.newBuilder(base.resolve("api/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);

        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(base.resolve("api/query"))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + TOKEN)
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"query\": \"SELECT COUNT(*) AS n FROM STREAM(500, TIME)\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode results = ArchiveIT.JSON.readTree(answer.body());
        assertThat(results.get(results.size() - 1).at("/records/0/n").asLong()).isPositive();

        // the image's health check, run inside it, told the port
        Commands.Run check =
            buildah(
                "run",
                "--isolation",
                "chroot",
                "--env",
                "SPYGLASS_PORT=" + base.getPort(),
                container,
                "--",
                "/usr/local/bin/spyglass-healthcheck");
        assertThat(check.exitCode()).as(check.toString()).isZero();

        // SIGTERM to spyglass itself (buildah run need not pass signals on): it ends with 0
        List<ProcessHandle> java =
            server.process.descendants().filter(p -> commandOf(p).endsWith("/java")).toList();
        assertThat(java).as("the JVM that buildah run started").hasSize(1);
        java.get(0).destroy();
        Commands.Run stopped = server.awaitEnd();
        assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
      }
    } finally {
      buildah("rm", container);
    }
  }

  /** When the image was made, or null when there is no such image. */
  private static Instant created(String image) throws Exception {
    Commands.Run inspect = buildah("inspect", "--type", "image", image);
    if (inspect.exitCode() != 0) {
      return null;
    }
    String created = ArchiveIT.JSON.readTree(inspect.stdout()).at("/Docker/created").asText("");
    return created.isEmpty() ? null : Instant.parse(created);
  }

  private static Commands.Run buildah(String... args) throws Exception {
    return Commands.run(new ProcessBuilder(buildahCommand(args)));
  }

  private static List<String> buildahCommand(String... args) {
    List<String> cmd = new ArrayList<>(List.of("buildah", "--storage-driver", driver()));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static String driver() {
    return env("SPYGLASS_STORAGE_DRIVER", "vfs");
  }

  private static String env(String name, String otherwise) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? otherwise : v;
  }

  private static String commandOf(ProcessHandle p) {
    return p.info().command().orElse("");
  }

  private static boolean onPath(String command) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, command))) {
        return true;
      }
    }
    return false;
  }
}

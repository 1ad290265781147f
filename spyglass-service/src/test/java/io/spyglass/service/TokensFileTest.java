package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tokens file at the start of a service with ingestion: read once, so that one that can be read
 * only once (a pipe, as {@code serve --tokens <(secret-tool lookup ...)} gives) works, and the
 * service uses the tokens that were checked.
 */
class TokensFileTest {
  @TempDir Path dir;

  static final String OPS = "ops-token-0123456789";

  @Test
  void aTokensFileThatCanBeReadOnceIsEnough() throws Exception {
    Path pipe = dir.resolve("tokens.pipe");
    Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).start();
    assumeTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
    // the other end writes the tokens once, as a command in <(...) does, then it is gone
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              try {
                Files.writeString(pipe, OPS + " ops admin ingest\n");
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    CompletableFuture<ServiceFixture> started =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return ServiceFixture.startMetering(
                    dir.resolve("data"), MeteringApiTest.settings(), b -> b.tokensFile = pipe);
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    ServiceFixture f = null;
    try {
      f = started.get(30, TimeUnit.SECONDS); // a second read would wait for a writer for ever
      writer.get(10, TimeUnit.SECONDS);
      assertThat(f.get("/api/standing-queries").statusCode()).isEqualTo(401);
      f.token = OPS;
      assertThat(f.get("/api/standing-queries").statusCode()).isEqualTo(200);
    } finally {
      if (f != null) {
        f.close();
      } else if (!started.isDone()) {
        Files.writeString(pipe, ""); // lets a second read end, so that the start ends
        ServiceFixture late = started.handle((s, e) -> s).get(60, TimeUnit.SECONDS);
        if (late != null) {
          late.close();
        }
      }
    }
  }
}

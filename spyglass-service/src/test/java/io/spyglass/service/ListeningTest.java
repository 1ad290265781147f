package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.engine.EngineConfig;
import io.spyglass.service.http.Listening;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.sources.GeneratorSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The port bound before the service starts ({@code serve}'s way) is the one it serves on. */
class ListeningTest {
  @TempDir Path data;

  @Test
  void theServiceServesOnTheSocketBoundBeforeItStartedOnAGivenPort() throws Exception {
    int port;
    try (Listening probe = Listening.bind("127.0.0.1", 0)) {
      port = probe.port(); // a free port, given as --port is
    }
    int given = port;
    ServiceConfig config =
        ServiceConfig.defaults()
            .with(
                b -> {
                  b.port = given;
                  b.dataDir = data;
                });
    Listening listening = SpyglassService.bind(config);
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRate(100)),
            EngineConfig.defaults().withWorkers(1));
    try (SpyglassService s = SpyglassService.start(config, listening, runtime, null)) {
      assertThat(s.port()).isEqualTo(given);
      HttpResponse<String> health =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(s.url() + "api/health")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    }
  }

  @Test
  void withPortZeroTheServiceServesOnThePortBoundFirst() throws Exception {
    ServiceConfig config =
        ServiceConfig.defaults()
            .with(
                b -> {
                  b.port = 0;
                  b.dataDir = data;
                });
    Listening listening = SpyglassService.bind(config);
    int bound = listening.port();
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRate(100)),
            EngineConfig.defaults().withWorkers(1));
    try (SpyglassService s = SpyglassService.start(config, listening, runtime, null)) {
      assertThat(s.port()).isEqualTo(bound);
    }
  }
}

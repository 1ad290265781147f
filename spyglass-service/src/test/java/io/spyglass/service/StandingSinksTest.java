package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.sinks.DeliverySettings;
import io.spyglass.sinks.SinkPolicy;
import io.spyglass.sinks.SinkSettings;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A standing query's sinks: stored with it, they get each final window, and again after a restart
 * (a replayed window comes again with the same key and the same records).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StandingSinksTest {
  static final long HOUR = 3_600_000;

  @TempDir Path data;

  private ServiceFixture start(Path sinkDir) throws Exception {
    return ServiceFixture.startMetering(
        data,
        MeteringApiTest.settings(),
        b ->
            b.sinks =
                new SinkSettings(
                    SinkPolicy.of(List.of(), sinkDir, List.of()), DeliverySettings.DEFAULTS));
  }

  private static List<JsonNode> lines(Path file) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    if (Files.exists(file)) {
      for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        out.add(ServiceFixture.json(l));
      }
    }
    return out;
  }

  private static boolean has(Path file, String key) {
    try {
      return lines(file).stream().anyMatch(d -> d.get("key").asText().equals(key));
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void itsSinksGetEveryFinalWindowAcrossARestart() throws Exception {
    Path sinkDir = data.resolve("sinks");
    Path file = sinkDir.resolve("usage.ndjson");
    String first = "standing-usage:" + MeteringApiTest.T0 / HOUR;
    String second = "standing-usage:" + (MeteringApiTest.T0 + 2 * HOUR) / HOUR;
    try (ServiceFixture f = start(sinkDir)) {
      HttpResponse<String> refused =
          f.postJson(
              "/api/standing-queries",
              "{\"name\": \"hooked\", \"query\": \""
                  + MeteringApiTest.COUNT
                  + "\", \"sinks\": [{\"type\": \"webhook\", \"url\": \"http://10.0.0.1/\"}]}");
      assertThat(refused.statusCode()).isEqualTo(422);
      assertThat(ServiceFixture.json(refused.body()).at("/error/field").asText())
          .isEqualTo("sinks[0].url");

      HttpResponse<String> created =
          f.postJson(
              "/api/standing-queries",
              "{\"name\": \"usage\", \"query\": \""
                  + MeteringApiTest.COUNT
                  + "\", \"sinks\": [{\"type\": \"file\", \"path\": \"usage.ndjson\"}]}");
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      assertThat(ServiceFixture.json(created.body()).at("/sinks/0/target").asText())
          .isEqualTo("usage.ndjson");
      assertThat(
              MeteringApiTest.ingest(
                      f,
                      MeteringApiTest.lines("a", 0, 5)
                          + MeteringApiTest.doc("b0", 1, MeteringApiTest.T0 + 2 * HOUR + 1)
                          + "\n")
                  .statusCode())
          .isEqualTo(202);
      HookReceiver.await("the first window delivered", () -> has(file, first));
    }
    try (ServiceFixture f = start(sinkDir)) {
      JsonNode listed = ServiceFixture.json(f.get("/api/standing-queries").body());
      assertThat(listed.at("/standingQueries/0/sinks/0/type").asText()).isEqualTo("file");
      MeteringApiTest.ingest(
          f, MeteringApiTest.doc("c0", 1, MeteringApiTest.T0 + 4 * HOUR + 1) + "\n");
      HookReceiver.await("the second window delivered after the restart", () -> has(file, second));
    }
    Map<String, JsonNode> byKey = new HashMap<>();
    for (JsonNode d : lines(file)) {
      JsonNode before = byKey.putIfAbsent(d.get("key").asText(), d.get("records"));
      if (before != null) {
        assertThat(d.get("records")).as("a window delivered again is the same").isEqualTo(before);
      }
    }
    assertThat(byKey).containsKeys(first, second);
    assertThat(byKey.get(first).get(0).get("docs").asLong()).isEqualTo(5);
    assertThat(byKey.get(second).get(0).get("docs").asLong()).isEqualTo(1);
  }
}

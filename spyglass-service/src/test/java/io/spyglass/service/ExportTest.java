package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.ServiceFixture.Event;
import io.spyglass.service.ServiceFixture.Sse;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /api/queries/{id}/export} over a real server and a real HTTP client. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExportTest {
  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    f = ServiceFixture.start(data, b -> {});
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  static final String GROUPED =
      "SELECT device, COUNT(*) AS n FROM STREAM(1500, TIME) GROUP BY device"
          + " WINDOWING TUMBLING(500, TIME)";

  private static List<JsonNode> streamed(String id) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    try (Sse sse = f.sse(id)) {
      for (Event e : sse.all()) {
        out.add(e.json());
      }
    }
    return out;
  }

  private static HttpResponse<String> export(String id, String format) {
    return f.get("/api/queries/" + id + "/export" + (format == null ? "" : "?format=" + format));
  }

  @Test
  void ndjsonIsEveryResultALineAsStreamed() throws Exception {
    String id = f.submit(GROUPED, true);
    List<JsonNode> results = streamed(id);
    HttpResponse<String> r = export(id, "ndjson");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/x-ndjson");
    assertThat(r.headers().firstValue("Content-Disposition").orElse(""))
        .isEqualTo("attachment; filename=\"spyglass-" + id + ".ndjson\"");
    List<JsonNode> lines = new ArrayList<>();
    for (String l : r.body().split("\n")) {
      lines.add(ServiceFixture.json(l));
    }
    assertThat(lines).isEqualTo(results);
    assertThat(export(id, null).body()).isEqualTo(r.body());
  }

  @Test
  void csvIsARecordALineUnderTheFirstResultsColumns() throws Exception {
    String id = f.submit(GROUPED, true);
    List<JsonNode> results = streamed(id);
    HttpResponse<String> r = export(id, "csv");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/csv");
    String[] lines = r.body().split("\r\n", -1);
    assertThat(lines[0]).isEqualTo("window,device,n");
    List<String> expected = new ArrayList<>();
    for (JsonNode result : results) {
      for (JsonNode rec : result.get("records")) {
        expected.add(
            result.at("/meta/window/number").asLong()
                + ","
                + rec.get("device").asText()
                + ","
                + rec.get("n").asLong());
      }
    }
    assertThat(List.of(lines).subList(1, lines.length - 1)).isEqualTo(expected);
    assertThat(lines[lines.length - 1]).as("CRLF after the last line").isEmpty();
  }

  @Test
  void aRunningQueryIsFollowedToItsEnd() throws Exception {
    String id =
        f.submit(
            "SELECT COUNT(*) AS n FROM STREAM(2000, TIME) WINDOWING TUMBLING(250, TIME)", true);
    HttpRequest req = f.request("/api/queries/" + id + "/export?format=ndjson").GET().build();
    HttpResponse<InputStream> r = f.http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    List<JsonNode> lines = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      String l;
      while ((l = in.readLine()) != null) {
        lines.add(ServiceFixture.json(l));
      }
    }
    assertThat(lines).hasSizeGreaterThanOrEqualTo(4);
    assertThat(lines.get(lines.size() - 1).at("/meta/final").asBoolean()).isTrue();
    assertThat(lines.subList(0, lines.size() - 1))
        .allSatisfy(l -> assertThat(l.at("/meta/final").asBoolean()).isFalse());
    assertThat(ServiceFixture.json(f.get("/api/queries/" + id).body()).get("state").asText())
        .isEqualTo("finished");
  }

  @Test
  void anUnknownQueryIs404AndAnUnknownFormat400() throws Exception {
    HttpResponse<String> r = export("nosuchquery1", "csv");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(ServiceFixture.json(r.body()).at("/error/message").asText())
        .contains("No query with id 'nosuchquery1'");
    String id = f.submit("SELECT COUNT(*) AS n FROM STREAM(100, TIME)", true);
    HttpResponse<String> bad = export(id, "xlsx");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(ServiceFixture.json(bad.body()).at("/error/resolution").asText()).contains("csv");
  }
}

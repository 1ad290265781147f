package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spyglass.core.SpyglassClock;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.http.Listening;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.sources.GeneratorSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A real service on a loopback port over a real engine reading the generator (paced, small
 * records), and a real HTTP client whose every answer is checked against the OpenAPI document.
 */
final class ServiceFixture implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final String SPEC;
  private static final OpenApiInteractionValidator VALIDATOR;

  static {
    try (InputStream in =
        ServiceFixture.class.getResourceAsStream("/io/spyglass/service/http/openapi.json")) {
      SPEC = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    VALIDATOR = OpenApiInteractionValidator.createForInlineApiSpecification(SPEC).build();
  }

  final SpyglassService service;
  final GeneratorSource source;
  final String base;
  final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  String token;

  /** Responses that did not validate against the OpenAPI document. */
  final List<String> invalid = new ArrayList<>();

  private ServiceFixture(SpyglassService service, GeneratorSource source) {
    this.service = service;
    this.source = source;
    this.base = "http://127.0.0.1:" + service.port();
  }

  static ServiceFixture start(Path data, Consumer<ServiceConfig.Builder> settings)
      throws IOException {
    return start(data, 2_000, settings);
  }

  static ServiceFixture start(Path data, long rate, Consumer<ServiceConfig.Builder> settings)
      throws IOException {
    return start(
        data,
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRate(rate).withRecordBytes(300)),
        settings);
  }

  /** A service over the generator {@code source}, which it owns. */
  static ServiceFixture start(
      Path data, GeneratorSource source, Consumer<ServiceConfig.Builder> settings)
      throws IOException {
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            source, EngineConfig.defaults().withWorkers(1).withTickMs(20).withMaxQueries(200));
    ServiceConfig config = config(data, b -> b.sampleEveryN = 10).with(settings);
    // as serve does: the port bound first, then taken over by the server
    Listening listening = SpyglassService.bind(config);
    SpyglassService service = SpyglassService.start(config, listening, runtime, null);
    assertThat(service.port())
        .as("the server answers on the port bound first")
        .isEqualTo(listening.port());
    return new ServiceFixture(service, source);
  }

  /** A service with ingestion and standing queries only (--source http) under {@code data}. */
  static ServiceFixture startMetering(
      Path data, Metering.Settings metering, Consumer<ServiceConfig.Builder> settings)
      throws IOException {
    return startMetering(data, metering, DEFAULT_ENGINE, settings);
  }

  /**
   * As {@link #startMetering(Path, Metering.Settings, Consumer)}, taking the time from {@code
   * clock} (a test's, to move it rather than wait).
   */
  static ServiceFixture startMetering(
      Path data,
      Metering.Settings metering,
      Consumer<ServiceConfig.Builder> settings,
      SpyglassClock clock)
      throws IOException {
    return startMetering(data, metering, DEFAULT_ENGINE, settings, clock);
  }

  /**
   * As {@link #startMetering(Path, Metering.Settings, Consumer)}, on an engine of {@code engine}.
   */
  static ServiceFixture startMetering(
      Path data,
      Metering.Settings metering,
      EngineConfig engine,
      Consumer<ServiceConfig.Builder> settings)
      throws IOException {
    return startMetering(data, metering, engine, settings, SpyglassClock.system());
  }

  private static final EngineConfig DEFAULT_ENGINE =
      EngineConfig.defaults().withWorkers(2).withTickMs(20).withMaxQueries(200);

  private static ServiceFixture startMetering(
      Path data,
      Metering.Settings metering,
      EngineConfig engine,
      Consumer<ServiceConfig.Builder> settings,
      SpyglassClock clock)
      throws IOException {
    ServiceConfig config = config(data, settings);
    try {
      return new ServiceFixture(
          SpyglassService.startMetering(
              config, MeteringStart.of(metering).withEngine(engine).withClock(clock)),
          null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * A service's settings on a free port with the data folder {@code data}, then {@code settings}.
   */
  static ServiceConfig config(Path data, Consumer<ServiceConfig.Builder> settings) {
    return ServiceConfig.defaults()
        .with(
            b -> {
              b.port = 0;
              b.dataDir = data;
            })
        .with(settings);
  }

  static JsonNode json(String s) {
    try {
      return JSON.readTree(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  HttpRequest.Builder request(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  HttpResponse<String> get(String path) {
    return send(request(path).GET().build(), null);
  }

  HttpResponse<String> delete(String path) {
    return send(request(path).DELETE().build(), null);
  }

  HttpResponse<String> postJson(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        body);
  }

  HttpResponse<String> putJson(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        body);
  }

  HttpResponse<String> post(String path, String contentType, String body) {
    return send(
        request(path)
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        body);
  }

  /** Submits a query as JSON and returns its id. */
  String submit(String bql) {
    return submit(bql, false);
  }

  String submit(String bql, boolean detached) {
    HttpResponse<String> r =
        postJson(
            "/api/queries",
            JSON.createObjectNode().put("query", bql).put("detached", detached).toString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return json(r.body()).get("id").asText();
  }

  /** Sends, then validates the answer against the OpenAPI document. */
  HttpResponse<String> send(HttpRequest req, String body) {
    HttpResponse<String> r;
    try {
      r = http.send(req, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    validate(req, body, r.statusCode(), r.headers().map(), r.body());
    return r;
  }

  void validate(
      HttpRequest req, String body, int status, Map<String, List<String>> headers, String text) {
    String path = req.uri().getPath();
    Request.Method method = Request.Method.valueOf(req.method());
    SimpleResponse.Builder rb = SimpleResponse.Builder.status(status);
    headers.forEach((k, v) -> rb.withHeader(k, v));
    if (text != null && !text.isEmpty()) {
      rb.withBody(text);
    }
    ValidationReport report = VALIDATOR.validateResponse(path, method, rb.build());
    SimpleRequest.Builder qb = new SimpleRequest.Builder(req.method(), path);
    req.headers().map().forEach((k, v) -> qb.withHeader(k, v));
    if (req.uri().getQuery() != null) {
      for (String kv : req.uri().getQuery().split("&")) {
        String[] p = kv.split("=", 2);
        qb.withQueryParam(p[0], p.length > 1 ? p[1] : "");
      }
    }
    if (body != null) {
      qb.withBody(body);
    }
    // requests are checked only where the test meant them to be valid: a 2xx answer
    if (status < 300) {
      report = report.merge(VALIDATOR.validateRequest(qb.build()));
    }
    for (ValidationReport.Message m : report.getMessages()) {
      boolean undocumentedOnPurpose =
          (status == 404 || status == 405)
              && (m.getKey().equals("validation.request.path.missing")
                  || m.getKey().equals("validation.request.operation.notAllowed"));
      if (m.getLevel() == ValidationReport.Level.ERROR && !undocumentedOnPurpose) {
        invalid.add(req.method() + " " + path + " -> " + status + ": " + m);
      }
    }
  }

  /** A Server-Sent Events reader on one stream. */
  final class Sse implements AutoCloseable {
    final HttpResponse<InputStream> response;
    private final BufferedReader reader;

    Sse(String path, String lastEventId) throws IOException, InterruptedException {
      HttpRequest.Builder b = request(path).header("Accept", "text/event-stream");
      if (lastEventId != null) {
        b.header("Last-Event-ID", lastEventId);
      }
      HttpRequest req = b.GET().build();
      response = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
      String body = null;
      if (response.statusCode() == 200) {
        body = ": a stream of events";
      } else if (response.statusCode() != 204) {
        body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
      }
      validate(req, null, response.statusCode(), response.headers().map(), body);
      reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    }

    /** The next event (comments skipped), or null at the end of the stream. */
    Event next() throws IOException {
      String id = null;
      String event = null;
      StringBuilder data = new StringBuilder();
      String line;
      while ((line = reader.readLine()) != null) {
        if (line.isEmpty()) {
          if (event != null || data.length() > 0) {
            return new Event(id, event, data.toString());
          }
          continue;
        }
        if (line.startsWith(":")) {
          continue;
        }
        if (line.startsWith("id: ")) {
          id = line.substring(4);
        } else if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("data: ")) {
          data.append(line.substring(6));
        }
      }
      return null;
    }

    /** Every event to the end of the stream. */
    List<Event> all() throws IOException {
      List<Event> out = new ArrayList<>();
      Event e;
      while ((e = next()) != null) {
        out.add(e);
      }
      return out;
    }

    @Override
    public void close() throws IOException {
      response.body().close();
    }
  }

  record Event(String id, String event, String data) {
    JsonNode json() {
      return ServiceFixture.json(data);
    }

    boolean isFinal() {
      return "result".equals(event) && json().path("meta").path("final").asBoolean();
    }
  }

  Sse sse(String id) throws IOException, InterruptedException {
    return new Sse("/api/queries/" + id + "/results", null);
  }

  Sse sse(String id, String lastEventId) throws IOException, InterruptedException {
    return new Sse("/api/queries/" + id + "/results", lastEventId);
  }

  String spec() {
    return SPEC;
  }

  @Override
  public void close() {
    service.close();
    assertThat(invalid).as("responses that do not match the OpenAPI document").isEmpty();
  }
}

package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.metering.Metering;
import io.spyglass.sinks.DeliverySettings;
import io.spyglass.sinks.SinkPolicy;
import io.spyglass.sinks.SinkSettings;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Alerts over a real server on a loopback port with a real webhook receiver on loopback: the
 * Alertmanager form as its {@code POST /api/v2/alerts} takes it, a receiver that fails before it
 * takes them (each event sent again under its key until it does), muting, the errors (a condition's
 * position, a sink not allowed, a name taken, another's alert, the per-user cap) and the alerts
 * kept across a restart without an event twice.
 */
class AlertsApiTest {
  static final long T0 = 1_767_225_600_000L;
  static final String QUERY =
      "SELECT org, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY org"
          + " WINDOWING TUMBLING(1s, EVENT_TIME(time))";

  @TempDir Path data;
  HttpServer receiver;
  final List<String[]> received = new CopyOnWriteArrayList<>();

  /** Calls the receiver answers 503 before it takes one. */
  final AtomicInteger failFirst = new AtomicInteger();

  @BeforeEach
  void receive() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/api/v2/alerts",
        x -> {
          String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          if (failFirst.getAndDecrement() > 0) {
            x.sendResponseHeaders(503, -1);
          } else {
            received.add(new String[] {x.getRequestHeaders().getFirst("Idempotency-Key"), body});
            x.sendResponseHeaders(200, -1);
          }
          x.close();
        });
    receiver.setExecutor(Executors.newSingleThreadExecutor());
    receiver.start();
  }

  @AfterEach
  void stop() {
    receiver.stop(0);
  }

  String hook() {
    return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/api/v2/alerts";
  }

  ServiceFixture start(Consumer<ServiceConfig.Builder> more) throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(
        tokens,
        "alice-0123456789abcdef alice ingest\n"
            + "bob-0123456789abcdef bob\n"
            + "root-0123456789abcdef root admin\n");
    ServiceFixture f =
        ServiceFixture.startMetering(
            data.resolve("data"),
            new Metering.Settings("id", Ingestor.Options.DEFAULTS, 100, null),
            b -> {
              b.tokensFile = tokens;
              b.sinks =
                  new SinkSettings(
                      SinkPolicy.of(List.of("127.0.0.1"), null, List.of()),
                      DeliverySettings.DEFAULTS);
              more.accept(b);
            });
    f.token = "alice-0123456789abcdef";
    return f;
  }

  static String window(int w, int a) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < a; i++) {
      b.append(doc("a", w, i));
    }
    return b.append(doc("b", w, 0)).toString();
  }

  static String doc(String org, int w, int i) {
    return "{\"id\":\"w"
        + w
        + org
        + i
        + "\",\"org\":\""
        + org
        + "\",\"time\":"
        + (T0 + w * 1000L + i)
        + "}\n";
  }

  static ObjectNode alert(String name, String hook) {
    ObjectNode o = ServiceFixture.JSON.createObjectNode().put("name", name);
    o.put("standingQuery", "orders");
    o.putObject("condition").put("having", "n >= 5");
    o.putObject("sink").put("type", "webhook").put("url", hook);
    o.put("format", "alertmanager");
    o.putObject("labels").put("severity", "page");
    return o;
  }

  static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 60 s: " + what);
      }
      Thread.sleep(50);
    }
  }

  static JsonNode json(HttpResponse<String> r, int status) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    return ServiceFixture.json(r.body());
  }

  List<String> history(ServiceFixture f, String name) {
    List<String> out = new ArrayList<>();
    for (JsonNode e : json(f.get("/api/alerts/" + name + "?limit=1000"), 200).get("history")) {
      out.add(
          0,
          (e.get("window").get("start").asLong() - T0) / 1000
              + ":"
              + e.get("group").get("org").asText()
              + ":"
              + e.get("state").asText()
              + ":"
              + e.get("delivery").asText());
    }
    return out;
  }

  @Test
  void anAlertmanagerAlertFiresIsSentAgainUntilTakenAndResolves() throws Exception {
    try (ServiceFixture f = start(b -> {})) {
      String standing =
          ServiceFixture.JSON
              .createObjectNode()
              .put("name", "orders")
              .put("query", QUERY)
              .toString();
      json(f.postJson("/api/standing-queries", standing), 201);
      failFirst.set(2); // the first event is refused twice (503) before it is taken
      JsonNode created = json(f.postJson("/api/alerts", alert("busy", hook()).toString()), 201);
      assertThat(created.get("state").asText()).isEqualTo("ok");
      assertThat(created.get("conditionText").asText()).isEqualTo("n >= 5");
      assertThat(created.get("lastWindow").isNull()).isTrue();

      assertThat(
              f.post(
                      "/api/ingest",
                      "application/x-ndjson",
                      window(0, 1) + window(1, 8) + window(2, 8))
                  .statusCode())
          .isEqualTo(202);
      // window 0 and 1 final: a fires in 1
      await("the firing delivered", () -> !received.isEmpty());
      JsonNode alerts = ServiceFixture.json(received.get(0)[1]);
      assertThat(alerts.isArray()).isTrue();
      JsonNode a = alerts.get(0);
      assertThat(a.get("labels").get("alertname").asText()).isEqualTo("busy");
      assertThat(a.get("labels").get("org").asText()).isEqualTo("a");
      assertThat(a.get("labels").get("severity").asText()).isEqualTo("page");
      assertThat(a.get("annotations").get("summary").asText()).contains("busy firing", "n >= 5");
      assertThat(a.get("annotations").get("query").asText()).isEqualTo("orders");
      assertThat(a.get("annotations").get("window").asText())
          .isEqualTo("2026-01-01T00:00:01Z/2026-01-01T00:00:02Z");
      assertThat(Instant.parse(a.get("startsAt").asText()))
          .isEqualTo(Instant.ofEpochMilli(T0 + 1000));
      assertThat(Instant.parse(a.get("endsAt").asText()))
          .isAfter(Instant.parse(a.get("startsAt").asText()));
      assertThat(a.get("generatorURL").asText()).isEqualTo("/#/alerts/busy");
      String key = received.get(0)[0];
      assertThat(key).startsWith("busy:" + (T0 + 1000) + ":");

      await(
          "the listing says it fires",
          () -> json(f.get("/api/alerts/busy"), 200).get("state").asText().equals("firing"));
      assertThat(
              json(f.get("/api/alerts"), 200)
                  .get("alerts")
                  .get(0)
                  .get("firing")
                  .get(0)
                  .get("org")
                  .asText())
          .isEqualTo("a");
      f.token = "root-0123456789abcdef"; // /metrics: an admin's
      String metrics = f.get("/metrics").body();
      f.token = "alice-0123456789abcdef";
      assertThat(metrics)
          .contains("spyglass_alerts{state=\"firing\"} 1.0")
          .contains("spyglass_alerts{state=\"ok\"} 0.0")
          .contains("spyglass_alert_events_total{state=\"firing\"} 1.0")
          .contains("spyglass_sink_delivered_total{type=\"webhook\"} 1.0")
          .contains("spyglass_sink_retried_total{type=\"webhook\"} 2.0");
      JsonNode first = json(f.get("/api/alerts/busy"), 200).get("history").get(0);
      assertThat(first.get("attempts").asInt()).as("two refusals, then taken").isEqualTo(3);
      assertThat(first.get("delivered").asBoolean()).isTrue();

      // window 2 final: still firing, sent again (Alertmanager's form); window 3: resolved
      assertThat(
              f.post("/api/ingest", "application/x-ndjson", window(3, 1) + window(4, 1))
                  .statusCode())
          .isEqualTo(202);
      List<String> expected =
          List.of("1:a:firing:delivered", "2:a:firing:delivered", "3:a:resolved:delivered");
      await("the resolution delivered", () -> history(f, "busy").equals(expected));
      assertThat(received).hasSize(3);
      JsonNode resolved = ServiceFixture.json(received.get(received.size() - 1)[1]).get(0);
      assertThat(Instant.parse(resolved.get("endsAt").asText()))
          .isEqualTo(Instant.ofEpochMilli(T0 + 3000));

      // muted: recorded, not sent
      JsonNode muted = json(f.postJson("/api/alerts/busy/mute", "{\"for\": \"1h\"}"), 200);
      assertThat(muted.get("state").asText()).isEqualTo("muted");
      int before = received.size();
      assertThat(
              f.post("/api/ingest", "application/x-ndjson", window(5, 8) + window(6, 1))
                  .statusCode())
          .isEqualTo(202);
      await("the muted firing recorded", () -> history(f, "busy").size() >= 4);
      assertThat(history(f, "busy").get(3)).isEqualTo("5:a:firing:muted");
      assertThat(received).hasSize(before);
      HttpResponse<String> unmuted =
          f.send(
              f.request("/api/alerts/busy/unmute")
                  .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                  .build(),
              null);
      assertThat(json(unmuted, 200).get("state").asText()).isNotEqualTo("muted");
    }
    // a restart: the alert, its history and its cursor stay; nothing is evaluated or sent twice
    int before = received.size();
    try (ServiceFixture f = start(b -> {})) {
      List<String> kept = history(f, "busy");
      assertThat(kept).hasSize(4);
      assertThat(f.post("/api/ingest", "application/x-ndjson", window(7, 1)).statusCode())
          .isEqualTo(202);
      // window 6 final: a resolves, not sent (its firing was muted)
      await("the resolution after the restart", () -> history(f, "busy").size() >= 5);
      Thread.sleep(1_000); // an event evaluated twice would show by now
      List<String> now = history(f, "busy");
      assertThat(now.subList(0, 4)).isEqualTo(kept);
      assertThat(now).hasSize(5).endsWith("6:a:resolved:quiet");
      assertThat(received).hasSize(before);
      assertThat(f.invalid).isEmpty();
    }
  }

  @Test
  void refusalsSayWhatIsWrongAndWhere() throws Exception {
    try (ServiceFixture f =
        start(b -> b.alerts = new io.spyglass.service.alerts.AlertSettings(1, 100, null))) {
      json(
          f.postJson(
              "/api/standing-queries",
              ServiceFixture.JSON
                  .createObjectNode()
                  .put("name", "orders")
                  .put("query", QUERY)
                  .toString()),
          201);
      ObjectNode bad = alert("x", hook());
      bad.putObject("condition").put("having", "n >= 5 AND orders > 1");
      JsonNode e = json(f.postJson("/api/alerts", bad.toString()), 422).get("error");
      assertThat(e.get("field").asText()).isEqualTo("condition.having");
      assertThat(e.get("message").asText()).contains("no column \"orders\"");
      assertThat(e.get("errors").get(0).get("column").asInt()).isEqualTo(12);
      assertThat(e.get("errors").get(0).get("start").asInt()).isEqualTo(11);

      ObjectNode elsewhere = alert("x", "http://10.0.0.1:9093/api/v2/alerts");
      e = json(f.postJson("/api/alerts", elsewhere.toString()), 422).get("error");
      assertThat(e.get("field").asText()).startsWith("sink");

      ObjectNode raw = alert("x", hook());
      raw.remove("standingQuery");
      raw.put("query", "SELECT * FROM STREAM(FOREVER) WINDOWING TUMBLING(1s, TIME)");
      e = json(f.postJson("/api/alerts", raw.toString()), 422).get("error");
      assertThat(e.get("message").asText()).contains("records, not groups");

      json(f.postJson("/api/alerts", alert("busy", hook()).toString()), 201);
      assertThat(f.postJson("/api/alerts", alert("busy", hook()).toString()).statusCode())
          .isEqualTo(409);
      assertThat(f.get("/api/alerts/none").statusCode()).isEqualTo(404);

      f.token = "bob-0123456789abcdef";
      assertThat(json(f.get("/api/alerts"), 200).get("alerts")).isEmpty();
      assertThat(f.delete("/api/alerts/busy").statusCode()).isEqualTo(403);
      assertThat(f.postJson("/api/alerts/busy/mute", "{\"for\": \"1h\"}").statusCode())
          .isEqualTo(403);
      json(f.postJson("/api/alerts", alert("bobs", hook()).toString()), 201);
      e = json(f.postJson("/api/alerts", alert("bobs2", hook()).toString()), 403).get("error");
      assertThat(e.get("limit").asText()).isEqualTo("max-alerts-per-user");

      f.token = "root-0123456789abcdef"; // an admin sees and deletes every one
      assertThat(json(f.get("/api/alerts"), 200).get("alerts")).hasSize(2);
      assertThat(f.delete("/api/alerts/busy").statusCode()).isEqualTo(204);
      assertThat(f.delete("/api/alerts/bobs").statusCode()).isEqualTo(204);
      assertThat(json(f.get("/api/standing-queries"), 200).get("standingQueries"))
          .as("a standing query not defined with the alert stays")
          .hasSize(1);
      assertThat(f.invalid).isEmpty();
    }
  }
}

package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An alert on a generated stream with a known pattern, through {@code spyglass serve --source http}
 * killed with SIGKILL half-way and started again on the same data folder: each group's firing and
 * resolution are recorded exactly once per window, and every one reaches a real webhook on loopback
 * under its key (at least once: a delivery cut by the kill comes again with the same key).
 */
class AlertsIT {
  static final long T0 = 1_767_225_600_000L;
  static final String QUERY =
      "SELECT org, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY org"
          + " WINDOWING TUMBLING(1s, EVENT_TIME(time))";

  /** Windows 0 to 11 (a second each); org a is busy in windows 1, 2, 5, 6, 9 and 10. */
  static final int WINDOWS = 12;

  @TempDir Path data;

  /** What the webhook received: each delivery's key (its Idempotency-Key) and body. */
  final List<String[]> received = new CopyOnWriteArrayList<>();

  HttpServer receiver;

  @BeforeEach
  void receive() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        x -> {
          String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          received.add(new String[] {x.getRequestHeaders().getFirst("Idempotency-Key"), body});
          x.sendResponseHeaders(200, -1);
          x.close();
        });
    receiver.setExecutor(Executors.newSingleThreadExecutor());
    receiver.start();
  }

  @AfterEach
  void stopReceiving() {
    receiver.stop(0);
  }

  static boolean busy(int window) {
    return window % 4 == 1 || window % 4 == 2;
  }

  /** The documents of window {@code w}: org a 8 of them when busy, else 1; org b 1. */
  static String window(int w) {
    StringBuilder b = new StringBuilder();
    int a = busy(w) ? 8 : 1;
    for (int i = 0; i < a; i++) {
      b.append(doc("a", w, i));
    }
    b.append(doc("b", w, 0));
    return b.toString();
  }

  static String doc(String org, int window, int i) {
    return "{\"id\":\"w"
        + window
        + "-"
        + org
        + i
        + "\",\"org\":\""
        + org
        + "\",\"time\":"
        + (T0 + window * 1000L + i)
        + "}\n";
  }

  Spyglass.Running serve() throws Exception {
    return MeteringServe.serve(data, "--checkpoint-every", "200ms", "--sink-allow", "127.0.0.1");
  }

  static HttpResponse<String> send(String method, String url, String body) throws Exception {
    return MeteringServe.send(
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body)));
  }

  static void ingest(String url, int window) throws Exception {
    MeteringServe.ingestAccepted(url, window(window));
  }

  /** The alert's history as "WINDOW:STATE", oldest first. */
  List<String> history(String url) throws Exception {
    HttpResponse<String> r = send("GET", url + "api/alerts/spikes?limit=1000", null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    for (JsonNode e : Spyglass.parse(r.body()).get("history")) {
      assertThat(e.get("group").get("org").asText()).isEqualTo("a");
      out.add(
          0, (e.get("window").get("start").asLong() - T0) / 1000 + ":" + e.get("state").asText());
    }
    return out;
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

  Set<String> keys() {
    Set<String> out = new TreeSet<>();
    received.forEach(r -> out.add(r[0]));
    return out;
  }

  @Test
  void firesAndResolvesOncePerWindowAcrossAKillAndARestart() throws Exception {
    String hook = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    try (Spyglass.Running s = serve()) {
      String url = MeteringServe.url(s);
      HttpResponse<String> created =
          send(
              "POST",
              url + "api/alerts",
              Spyglass.JSON
                  .createObjectNode()
                  .put("name", "spikes")
                  .put("query", QUERY)
                  .<com.fasterxml.jackson.databind.node.ObjectNode>set(
                      "condition", Spyglass.JSON.createObjectNode().put("having", "n >= 5"))
                  .<com.fasterxml.jackson.databind.node.ObjectNode>set(
                      "sink",
                      Spyglass.JSON.createObjectNode().put("type", "webhook").put("url", hook))
                  .toString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      for (int w = 0; w <= 5; w++) {
        ingest(url, w);
      }
      // windows 0 to 4 are final: a fired in 1, resolved in 3
      await("the first firing and resolution delivered", () -> keys().size() >= 2);
      assertThat(history(url)).containsExactly("1:firing", "3:resolved");
      ingest(url, 6);
      ingest(url, 7); // window 5 (a fires) and 6 are final: killed around their evaluation
      s.kill9();
    }
    try (Spyglass.Running s = serve()) {
      String url = MeteringServe.url(s);
      for (int w = 6; w < WINDOWS; w++) {
        ingest(url, w); // 6 and 7 again: repeats, not counted twice
      }
      MeteringServe.ingestAccepted(url, doc("b", WINDOWS, 0)); // window 11 final
      List<String> expected =
          List.of("1:firing", "3:resolved", "5:firing", "7:resolved", "9:firing", "11:resolved");
      await(
          "every event delivered",
          () -> {
            try {
              return history(url).size() >= expected.size() && keys().size() >= expected.size();
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
      Thread.sleep(1_000); // an event recorded or delivered twice would show by now
      assertThat(history(url)).containsExactlyElementsOf(expected);
      JsonNode alert = Spyglass.parse(send("GET", url + "api/alerts/spikes", null).body());
      assertThat(alert.get("state").asText()).isEqualTo("ok");
      assertThat(alert.get("lastWindow").get("start").asLong()).isEqualTo(T0 + 11_000);
      assertThat(alert.get("delivery").get("delivered").asLong()).isEqualTo(expected.size());
      assertThat(alert.get("delivery").get("pending").asLong()).isZero();

      // the webhook got every event under its key; one cut by the kill may have come twice
      List<String> states = new ArrayList<>();
      for (String[] r : received) {
        JsonNode doc = Spyglass.parse(r[1]);
        assertThat(doc.get("key").asText()).isEqualTo(r[0]);
        assertThat(doc.get("alert").asText()).isEqualTo("spikes");
        assertThat(doc.get("labels").get("org").asText()).isEqualTo("a");
        String at =
            (doc.get("window").get("start").asLong() - T0) / 1000 + ":" + doc.get("state").asText();
        if (!states.contains(at)) {
          states.add(at);
        }
      }
      assertThat(states).containsExactlyElementsOf(expected);
      assertThat(keys()).hasSize(expected.size());
      assertThat(received.size() - keys().size())
          .as("deliveries again after the kill")
          .isLessThanOrEqualTo(1);
      MeteringServe.stop(s);
    }
  }
}

package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spyglass query --sink}: the real command delivers every result to a webhook (a real
 * receiver on a loopback port that fails its first calls) and to a file, each result once, as the
 * document of sinks (docs/sinks.md) whose records and meta are the result printed.
 */
class SinksIT {
  private static final String QUERY =
      "SELECT id FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100, RECORD)";

  @TempDir Path dir;

  @Test
  void everyResultGoesToEachSinkOnceAsTheResultPrinted() throws Exception {
    Spyglass.Run gen = Spyglass.run("generate", "--count", "350", "--seed", "3");
    Path events = Files.writeString(dir.resolve("events.json"), gen.stdout());
    List<String> bodies = new ArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    HttpServer receiver =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    receiver.createContext(
        "/",
        ex -> {
          String body;
          try (InputStream in = ex.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          }
          int status = calls.getAndIncrement() < 2 ? 503 : 200;
          if (status == 200) {
            synchronized (bodies) {
              bodies.add(body);
            }
          }
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    receiver.start();
    Path file = dir.resolve("out/windows.ndjson");
    Spyglass.Run run;
    try {
      run =
          Spyglass.run(
              "query",
              "--source",
              "file:" + events,
              "--format",
              "json",
              "--sink",
              "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook",
              "--sink",
              "file:" + file,
              QUERY);
    } finally {
      receiver.stop(0);
    }
    assertThat(run.exitCode()).as(run.toString()).isZero();
    List<JsonNode> printed = run.results("q1");
    assertThat(printed).hasSizeGreaterThanOrEqualTo(3);

    List<JsonNode> hooked = new ArrayList<>();
    synchronized (bodies) {
      bodies.forEach(b -> hooked.add(Spyglass.parse(b)));
    }
    List<JsonNode> lines = new ArrayList<>();
    for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      lines.add(Spyglass.parse(l));
    }
    for (List<JsonNode> docs : List.of(hooked, lines)) {
      assertThat(docs).hasSize(printed.size());
      assertThat(new HashSet<>(docs.stream().map(d -> d.get("key").asText()).toList()))
          .as("one key a result")
          .hasSize(printed.size());
      for (int i = 0; i < printed.size(); i++) {
        JsonNode d = docs.get(i);
        String query = d.get("query").asText();
        assertThat(query).matches("q1-[a-z2-9]{8}");
        long window = printed.get(i).at("/meta/window/number").asLong();
        assertThat(d.get("key").asText()).isEqualTo(query + ":" + window);
        assertThat(d.get("window").asLong()).isEqualTo(window);
        assertThat(d.get("final").asBoolean())
            .isEqualTo(printed.get(i).at("/meta/final").asBoolean());
        ObjectNode result = ((ObjectNode) d.deepCopy()).retain("records", "meta");
        assertThat(result).isEqualTo(printed.get(i));
      }
    }
  }

  @Test
  void aSinkThatCannotBeReachedIsSaidAndFailsTheCommand() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    Spyglass.Run run =
        Spyglass.run(
            "query",
            "--source",
            "gen",
            "--duration",
            "1s",
            "--sink",
            "http://127.0.0.1:" + port + "/down",
            "--sink-wait",
            "1s",
            "SELECT COUNT(*) AS n FROM STREAM(1s, TIME)");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.stderr())
        .contains(
            "spyglass: sink webhook http://127.0.0.1:"
                + port
                + "/down: 1 not delivered, 0 delivered (");
  }

  @Test
  void aBadSinkIsRefusedSayingWhatToWrite() throws Exception {
    Spyglass.Run run =
        Spyglass.run("query", "--sink", "ftp://x/y", "SELECT * FROM STREAM(1s, TIME)");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("spyglass: --sink ftp://x/y: 'ftp://x/y' is not a sink; Write a webhook's URL");
  }
}

package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.ServiceFixture.Event;
import io.spyglass.service.ServiceFixture.Sse;
import io.spyglass.service.auth.User;
import io.spyglass.service.query.QueryObserver;
import io.spyglass.service.query.ResultLimits;
import io.spyglass.service.query.ResultLog;
import io.spyglass.service.query.ServiceQuery;
import io.spyglass.service.store.Database;
import io.spyglass.sources.GeneratorSource;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults and abuse over a real service: one user flooding the memory with results, a query whose
 * results cannot be kept, a dead core thread, a source that ends, a database that cannot be
 * written. The service stays within its limits, the others are served, and health tells the truth.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultInjectionTest {
  @TempDir Path data;

  static final User ROOT = new User("root", true);

  /** 8 MiB for every user's results, 2 MiB per user, 256 KiB a result. */
  static final ResultLimits SMALL = new ResultLimits(8L << 20, 2L << 20, 256L << 10);

  private ServiceFixture withUsers(long rate) throws Exception {
    return withUsers(rate, SMALL);
  }

  private ServiceFixture withUsers(long rate, ResultLimits limits) throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(
        tokens,
        "alice-token-0123456 alice\nbob-token-012345678 bob\nroot-token-01234567 root admin\n");
    return ServiceFixture.start(
        data.resolve("db"),
        rate,
        b -> {
          b.tokensFile = tokens;
          b.results = limits;
        });
  }

  /** The bytes every query's log holds now, counted from the logs themselves. */
  private static long keptBytes(ServiceFixture f) {
    long sum = 0;
    for (ServiceQuery q : f.service.queries().list(ROOT)) {
      for (ResultLog.Event e : q.log().after(0, Integer.MAX_VALUE)) {
        sum += e.sse().length;
      }
    }
    return sum;
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static JsonNode health(ServiceFixture f, int status) {
    HttpResponse<String> r = f.get("/api/health");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    return ServiceFixture.json(r.body());
  }

  @Test
  void oneUserFloodingRawResultsStaysWithinTheBudgetAndOthersAreServed() throws Exception {
    try (ServiceFixture f = withUsers(10_000)) {
      // bob, within the query limits (100 a user), asks for windows of 2,000 raw records of
      // ~300 B (~660 KB of JSON each), over and over, and never reads them
      f.token = "bob-token-012345678";
      String flood = "SELECT * FROM STREAM(60s, TIME) WINDOWING TUMBLING(500, TIME) LIMIT 2000";
      List<String> bobs = new ArrayList<>();
      String body = "{\"query\": \"" + flood + "\", \"detached\": true}";
      long budget = SMALL.maxBytes();
      long share = SMALL.maxBytesPerUser();
      long slack = 64 << 10; // results cut to their metadata, kept whatever the pressure
      HttpResponse<String> refused = null;
      for (int round = 0; round < 40 && (round < 12 || refused == null); round++) {
        // one more query a round, until his running queries' newest results fill his share
        if (refused == null) {
          HttpResponse<String> r = f.postJson("/api/queries", body);
          if (r.statusCode() == 429) {
            refused = r;
          } else {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            bobs.add(ServiceFixture.json(r.body()).get("id").asText());
          }
        }
        long before = resultsEmitted(f);
        await("more results", () -> resultsEmitted(f) > before);
        assertThat(keptBytes(f)).as("bytes kept, counted in the logs").isLessThan(budget + slack);
        assertThat(f.service.queries().memory().used())
            .as("bytes kept, as accounted")
            .isLessThan(budget + slack);
        assertThat(f.service.queries().memory().used("bob"))
            .as("bob's bytes")
            .isLessThan(share + slack);
      }
      assertThat(refused).as("a refusal once his share is full").isNotNull();
      JsonNode error = ServiceFixture.json(refused.body()).get("error");
      assertThat(error.get("limit").asText()).isEqualTo("max-result-memory-per-user");
      assertThat(error.get("message").asText()).contains("bob").contains("2 MiB");
      assertThat(refused.headers().firstValue("Retry-After")).isPresent();
      // what he got says it was cut
      JsonNode last = ServiceFixture.json(f.get("/api/queries/" + bobs.get(0)).body());
      JsonNode errors = last.get("lastResult").get("meta").get("errors");
      assertThat(errors.get(0).get("message").asText()).contains("This result was cut to");
      assertThat(errors.get(0).get("fatal").asBoolean()).isFalse();

      // alice is served meanwhile: a run to the end and a raw query, whole
      f.token = "alice-token-0123456";
      HttpResponse<String> run =
          f.postJson("/api/query", "{\"query\": \"SELECT COUNT(*) AS n FROM STREAM(500, TIME)\"}");
      assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
      assertThat(ServiceFixture.json(run.body()).get(0).at("/records/0/n").asLong()).isPositive();
      String raw = f.submit("SELECT id FROM STREAM(10s, TIME) LIMIT 50");
      try (Sse sse = f.sse(raw)) {
        List<Event> events = sse.all();
        JsonNode result = events.get(events.size() - 1).json();
        assertThat(result.get("records").size()).isEqualTo(50);
        assertThat(result.get("meta").has("errors")).isFalse();
      }
      JsonNode h = health(f, 200);
      assertThat(h.get("status").asText()).isEqualTo("UP");
      assertThat(h.get("problems").size()).isZero();
      assertThat(f.get("/metrics").body()).contains("spyglass_result_memory_bytes");

      f.token = "root-token-01234567";
      for (String id : bobs) {
        f.delete("/api/queries/" + id);
      }
    }
  }

  private static long resultsEmitted(ServiceFixture f) {
    long n = 0;
    for (ServiceQuery q : f.service.queries().list(ROOT)) {
      n += q.log().lastId();
    }
    return n;
  }

  @Test
  void aRawQueryThatWouldHoldMoreRecordsThanAUsersShareIsRefused() throws Exception {
    try (ServiceFixture f = withUsers(10_000)) {
      f.token = "alice-token-0123456";
      f.postJson("/api/query", "{\"query\": \"SELECT COUNT(*) FROM STREAM(200, TIME)\"}");
      // 10,000 records of ~330 B: about 3.3 MB held until they are emitted, over her 2 MiB
      HttpResponse<String> r =
          f.postJson(
              "/api/queries", "{\"query\": \"SELECT * FROM STREAM(10s, TIME) LIMIT 10000\"}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(429);
      JsonNode error = ServiceFixture.json(r.body()).get("error");
      assertThat(error.get("limit").asText()).isEqualTo("max-result-memory-per-user");
      assertThat(error.get("message").asText()).contains("may hold about").contains("LIMIT");
      assertThat(error.get("resolution").asText()).contains("lower LIMIT");
      // and what it held is given back when a raw query ends
      String small = f.submit("SELECT * FROM STREAM(10s, TIME) LIMIT 100");
      try (Sse sse = f.sse(small)) {
        assertThat(sse.all()).isNotEmpty();
      }
      await("the query's end", () -> f.service.queries().running() == 0);
      long logs = 0;
      for (ServiceQuery q : f.service.queries().list(ROOT)) {
        logs += q.log().keptBytes();
      }
      assertThat(f.service.queries().memory().used("alice")).isEqualTo(logs);
    }
  }

  @Test
  void aResultOverTheSizeLimitKeepsTheRecordsThatFitAndSaysSo() throws Exception {
    try (ServiceFixture f = withUsers(20_000)) {
      f.token = "alice-token-0123456";
      HttpResponse<String> r =
          f.postJson("/api/query", "{\"query\": \"SELECT * FROM STREAM(10s, TIME) LIMIT 5000\"}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode result = ServiceFixture.json(r.body()).get(0);
      int kept = result.get("records").size();
      assertThat(kept).isPositive().isLessThan(5000);
      JsonNode error = result.get("meta").get("errors").get(0);
      assertThat(error.get("message").asText())
          .contains("cut to " + kept + " of its 5000 records")
          .contains("256 KiB");
      assertThat(error.get("resolution").asText()).contains("LIMIT");
      assertThat(error.get("fatal").asBoolean()).isFalse();
      assertThat(result.get("meta").get("final").asBoolean()).isTrue();
      assertThat(ServiceFixture.JSON.writeValueAsBytes(result).length)
          .isLessThanOrEqualTo((int) SMALL.maxResultBytes());
    }
  }

  @Test
  void aRunWhoseAnswerOutgrowsTheUsersShareIsStoppedWith507() throws Exception {
    try (ServiceFixture f = withUsers(10_000)) {
      f.token = "alice-token-0123456";
      HttpResponse<String> r =
          f.postJson(
              "/api/query",
              "{\"query\": \"SELECT * FROM STREAM(20s, TIME) WINDOWING TUMBLING(200, TIME)"
                  + " LIMIT 5000\"}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(507);
      JsonNode error = ServiceFixture.json(r.body()).get("error");
      assertThat(error.get("message").asText()).contains("alice").contains("stopped");
      assertThat(error.get("resolution").asText()).contains("/results");
      await("the query's end", () -> f.service.queries().running() == 0);
      await(
          "what the answer held given back: alice's logs hold all she uses",
          () -> {
            long logs = 0;
            for (ServiceQuery q : f.service.queries().list(ROOT)) {
              logs += q.owner().equals("alice") ? q.log().keptBytes() : 0;
            }
            return f.service.queries().memory().used("alice") == logs;
          });
    }
  }

  @Test
  void aRunsAnswerCountsOnTheUsersShareUntilItIsWritten() throws Exception {
    try (ServiceFixture f = withUsers(40_000, new ResultLimits(256L << 20, 64L << 20, 8L << 20))) {
      // three windows of up to 10,000 records of ~330 B: an answer of up to 10 MB, more than a
      // connection's buffers hold while its client does not read
      String body =
          "{\"query\": \"SELECT * FROM STREAM(1500, TIME) WINDOWING TUMBLING(500, TIME)"
              + " LIMIT 10000\"}";
      try (java.net.Socket s = new java.net.Socket()) {
        s.setReceiveBufferSize(4096);
        s.connect(new java.net.InetSocketAddress("127.0.0.1", f.service.port()), 5_000);
        s.setSoTimeout(30_000);
        RawHttp.send(
            s,
            "POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer alice-token-0123456\r\n"
                + "Content-Type: application/json\r\nContent-Length: "
                + body.length()
                + "\r\n\r\n"
                + body);
        java.io.InputStream in = s.getInputStream();
        StringBuilder status = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
          status.append((char) c);
        }
        assertThat(status.toString()).startsWith("HTTP/1.1 200");
        // the answer is being written, and its client reads nothing: it still counts
        assertThat(f.service.queries().memory().used("alice") - logs(f, "alice"))
            .as("alice's bytes beside her logs' while her answer is written")
            .isGreaterThan(2L << 20);
        String rest = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        JsonNode answer = ServiceFixture.json(rest.substring(rest.indexOf("\r\n\r\n") + 4));
        assertThat(answer.get(answer.size() - 1).at("/meta/final").asBoolean()).isTrue();
      }
      await(
          "the answer given back once written: alice's logs hold all she uses",
          () -> f.service.queries().memory().used("alice") == logs(f, "alice"));
    }
  }

  private static long logs(ServiceFixture f, String owner) {
    long sum = 0;
    for (ServiceQuery q : f.service.queries().list(ROOT)) {
      sum += q.owner().equals(owner) ? q.log().keptBytes() : 0;
    }
    return sum;
  }

  @Test
  void aResultReaderThatThrowsIsDroppedAndTheQueryAndItsOtherReadersGoOn() throws Exception {
    try (ServiceFixture f = ServiceFixture.start(data, b -> {})) {
      String id =
          f.submit("SELECT COUNT(*) AS n FROM STREAM(1s, TIME) WINDOWING TUMBLING(200, TIME)");
      ResultLog log = f.service.queries().find(ROOT, id).orElseThrow().log();
      List<String> thrown = new java.util.concurrent.CopyOnWriteArrayList<>();
      // two readers ahead of the stream: one throws as results come, one at the end
      log.subscribe(
          new ResultLog.Subscriber() {
            long seen = -1; // the results there were when it was first woken

            @Override
            public synchronized void wake() {
              if (seen < 0) {
                seen = log.lastId();
              } else if (log.lastId() > seen && !log.isEnded()) {
                thrown.add("as results come");
                throw new IllegalStateException("injected: a reader that fails on a result");
              }
            }
          });
      log.subscribe(
          () -> {
            if (log.isEnded()) {
              thrown.add("at the end");
              throw new IllegalStateException("injected: a reader that fails at the end");
            }
          });
      List<Event> events;
      try (Sse sse = f.sse(id)) {
        events =
            java.util.concurrent.CompletableFuture.supplyAsync(() -> all(sse))
                .get(20, TimeUnit.SECONDS);
      }
      Event last = events.get(events.size() - 1);
      assertThat(last.isFinal()).isTrue();
      assertThat(last.json().get("meta").has("errors")).as(last.data()).isFalse();
      assertThat(events.size()).isGreaterThan(2);
      // each failed once and was dropped; the query's end was told to its observers (the history)
      await("the query's end", () -> thrown.size() == 2);
      assertThat(thrown).containsExactlyInAnyOrder("as results come", "at the end");
      await(
          "the query in the history, finished",
          () -> {
            for (JsonNode e : ServiceFixture.json(f.get("/api/history").body()).get("history")) {
              if (e.get("id").asText().equals(id)) {
                return e.get("state").asText().equals("finished");
              }
            }
            return false;
          });
    }
  }

  private static List<Event> all(Sse sse) {
    try {
      return sse.all();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aQueryWhoseResultsCannotBeKeptFailsAloneAndTheResultsThreadGoesOn() throws Exception {
    try (ServiceFixture f = ServiceFixture.start(data, b -> {})) {
      f.service
          .queries()
          .observe(
              new QueryObserver() {
                @Override
                public void result(ServiceQuery q, ResultLog.Event e) {
                  if (q.text().contains("doomed")) {
                    throw new OutOfMemoryError("injected");
                  }
                }
              });
      String doomed =
          f.submit("SELECT COUNT(*) AS doomed FROM STREAM(5s, TIME) WINDOWING TUMBLING(100, TIME)");
      String other =
          f.submit("SELECT COUNT(*) AS n FROM STREAM(600, TIME) WINDOWING TUMBLING(200, TIME)");
      List<Event> failed;
      try (Sse sse = f.sse(doomed)) {
        failed = sse.all();
      }
      Event last = failed.get(failed.size() - 1);
      assertThat(last.isFinal()).isTrue();
      JsonNode error = last.json().get("meta").get("errors").get(0);
      assertThat(error.get("message").asText())
          .contains("could not handle this query's results")
          .contains("OutOfMemoryError");
      assertThat(error.get("fatal").asBoolean()).isTrue();
      List<Event> fine;
      try (Sse sse = f.sse(other)) {
        fine = sse.all();
      }
      assertThat(fine.get(fine.size() - 1).isFinal()).isTrue();
      assertThat(fine.get(fine.size() - 1).json().get("meta").has("errors")).isFalse();
      JsonNode q = ServiceFixture.json(f.get("/api/queries/" + doomed).body());
      assertThat(q.get("error").get("message").asText()).contains("OutOfMemoryError");
      await("the doomed query's end", () -> f.service.queries().running() == 0);
      JsonNode history = ServiceFixture.json(f.get("/api/history").body()).get("history");
      for (JsonNode entry : history) {
        if (entry.get("id").asText().equals(doomed)) {
          assertThat(entry.get("state").asText()).isEqualTo("failed");
        }
      }
      assertThat(health(f, 200).get("status").asText()).isEqualTo("UP");
    }
  }

  @Test
  void healthIsDownWhenTheResultsThreadDies() throws Exception {
    try (ServiceFixture f = ServiceFixture.start(data, b -> {})) {
      assertThat(health(f, 200).get("status").asText()).isEqualTo("UP");
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().equals("spyglass-results")) {
          t.interrupt(); // it ends, as after an error it could not survive
        }
      }
      await("health to tell", () -> f.get("/api/health").statusCode() == 503);
      JsonNode h = health(f, 503);
      assertThat(h.get("status").asText()).isEqualTo("DOWN");
      assertThat(h.get("problems").get(0).asText())
          .contains("spyglass-results")
          .contains("restart");
    }
  }

  @Test
  void healthIsDegradedWhenTheSourceHasEnded() throws Exception {
    GeneratorSource bounded =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withCount(50).withRecordBytes(300));
    try (ServiceFixture f = ServiceFixture.start(data, bounded, b -> {})) {
      await("health to tell", () -> f.get("/api/health").statusCode() == 503);
      JsonNode h = health(f, 503);
      assertThat(h.get("status").asText()).isEqualTo("DEGRADED");
      assertThat(h.get("problems").get(0).asText()).contains("source has ended");
      assertThat(h.get("recordsRead").asLong()).isEqualTo(50);
    }
  }

  @Test
  void healthIsDegradedWhileTheDatabaseCannotBeWritten() throws Exception {
    try (ServiceFixture f = ServiceFixture.start(data, b -> {})) {
      String url = "jdbc:sqlite:" + data.resolve(Database.FILE).toAbsolutePath();
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        s.executeUpdate("ALTER TABLE query_history RENAME TO query_history_away");
        f.submit("SELECT COUNT(*) FROM STREAM(100, TIME)", true);
        await("health to tell", () -> f.get("/api/health").statusCode() == 503);
        JsonNode h = health(f, 503);
        assertThat(h.get("status").asText()).isEqualTo("DEGRADED");
        assertThat(h.get("problems").get(0).asText()).contains("database cannot be written");
        s.executeUpdate("ALTER TABLE query_history_away RENAME TO query_history");
      }
      f.submit("SELECT COUNT(*) FROM STREAM(100, TIME)", true);
      await("health to recover", () -> f.get("/api/health").statusCode() == 200);
    }
  }
}

package io.spyglass.service;

import static io.spyglass.service.MeteringApiTest.T0;
import static io.spyglass.service.MeteringApiTest.awaitListed;
import static io.spyglass.service.MeteringApiTest.awaitWindow;
import static io.spyglass.service.MeteringApiTest.ingest;
import static io.spyglass.service.MeteringApiTest.settings;
import static io.spyglass.service.MeteringApiTest.totals;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.engine.EngineConfig;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standing queries within admission limits, over a real server on a loopback port: a count per user
 * (admins not counted), creation by admins only as an option, fewer exact groups than other
 * queries, and a bound on each one's state checked at each checkpoint.
 */
class StandingLimitsTest {
  static final String OPS = "ops-token-0123456789";
  static final String ALICE = "alice-token-0123456789";
  static final String COUNT = MeteringApiTest.COUNT;
  static final String BY_ID =
      "SELECT id, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY id"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)";

  @TempDir Path data;

  ServiceFixture start(Consumer<UsageLimits[]> usage) throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(tokens, OPS + " ops admin ingest\n" + ALICE + " alice\n");
    UsageLimits[] u = {UsageLimits.DEFAULTS};
    usage.accept(u);
    return ServiceFixture.startMetering(
        data.resolve("d"),
        settings(),
        b -> {
          b.tokensFile = tokens;
          b.usage = u[0];
        });
  }

  static UsageLimits with(
      int perUser, boolean adminOnly, int groups, long stateBytes, UsageLimits u) {
    return new UsageLimits(
        u.tenantField(),
        perUser,
        adminOnly,
        groups,
        stateBytes,
        u.maxSavedPerUser(),
        u.maxSavedBytesPerUser(),
        u.maxHistoryPerUser(),
        u.minFreeDiskBytes());
  }

  static HttpResponse<String> define(ServiceFixture f, String name, String query) {
    return f.postJson(
        "/api/standing-queries",
        ServiceFixture.JSON.createObjectNode().put("name", name).put("query", query).toString());
  }

  @Test
  void aUserDefinesAtMostSoManyStandingQueriesAndAnAdminIsNotCounted() throws Exception {
    try (ServiceFixture f = start(u -> u[0] = with(2, false, 100_000, 64L << 20, u[0]))) {
      f.token = ALICE;
      assertThat(define(f, "a1", COUNT).statusCode()).isEqualTo(201);
      assertThat(define(f, "a2", COUNT).statusCode()).isEqualTo(201);
      HttpResponse<String> third = define(f, "a3", COUNT);
      assertThat(third.statusCode()).isEqualTo(403);
      JsonNode error = ServiceFixture.json(third.body()).get("error");
      assertThat(error.get("message").asText()).contains("alice has 2 standing queries");
      assertThat(error.get("limit").asText()).isEqualTo("max-standing-queries-per-user");
      assertThat(f.delete("/api/standing-queries/a1").statusCode()).isEqualTo(204);
      assertThat(define(f, "a3", COUNT).statusCode()).isEqualTo(201);

      f.token = OPS;
      for (int i = 0; i < 3; i++) {
        assertThat(define(f, "ops" + i, COUNT).statusCode()).isEqualTo(201);
      }
    }
  }

  @Test
  void onlyAdminsDefineStandingQueriesWhenSoConfigured() throws Exception {
    try (ServiceFixture f = start(u -> u[0] = with(10, true, 100_000, 64L << 20, u[0]))) {
      f.token = ALICE;
      HttpResponse<String> refused = define(f, "a1", COUNT);
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(refused.body()).contains("Only admins").contains("--standing-queries-admin-only");
      f.token = OPS;
      assertThat(define(f, "o1", COUNT).statusCode()).isEqualTo(201);
    }
  }

  @Test
  void aStandingQueryKeepsFewerExactGroupsAndItsWindowSaysSo() throws Exception {
    try (ServiceFixture f = start(u -> u[0] = with(10, false, 5, 64L << 20, u[0]))) {
      f.token = OPS;
      assertThat(define(f, "by-id", BY_ID).statusCode()).isEqualTo(201);
      assertThat(ingest(f, MeteringApiTest.lines("g", 0, 20)).statusCode()).isEqualTo(202);
      JsonNode w = awaitWindow(f, "by-id", T0, x -> x.get("meta").has("errors"));
      assertThat(w.get("records").size()).isLessThanOrEqualTo(5);
      assertThat(w.get("meta").get("errors").get(0).asText()).contains("more than 5 groups");
    }
  }

  @Test
  void aStandingQueryKeepsTheGroupLimitItWasDefinedWithAcrossRestarts() throws Exception {
    try (ServiceFixture f = start(u -> u[0] = with(10, false, 5, 64L << 20, u[0]))) {
      f.token = OPS;
      assertThat(define(f, "by-id", BY_ID).statusCode()).isEqualTo(201);
      assertThat(ingest(f, MeteringApiTest.lines("g", 0, 20)).statusCode()).isEqualTo(202);
      awaitWindow(f, "by-id", T0, x -> x.get("meta").has("errors"));
    }
    // restarted with another limit: the query goes on from its state with its own (its state's
    // groups are of that size), one defined now gets the new one
    try (ServiceFixture f = start(u -> u[0] = with(10, false, 1000, 64L << 20, u[0]))) {
      f.token = OPS;
      assertThat(define(f, "by-id-2", BY_ID).statusCode()).isEqualTo(201);
      assertThat(ingest(f, MeteringApiTest.lines("h", 0, 20)).statusCode()).isEqualTo(202);
      JsonNode w = awaitWindow(f, "by-id-2", T0, x -> x.get("records").size() == 20);
      assertThat(w.get("meta").has("errors")).isFalse();
      JsonNode old = awaitWindow(f, "by-id", T0, x -> x.get("meta").has("errors"));
      assertThat(old.get("records").size()).isLessThanOrEqualTo(5);
      assertThat(awaitListed(f, "by-id", q -> true).get("state").asText()).isEqualTo("RUNNING");
    }
  }

  @Test
  void aStandingQueryWhoseStateOutgrowsItsBoundStopsAndTheOthersGoOn() throws Exception {
    try (ServiceFixture f = start(u -> u[0] = with(10, false, 100_000, 4096, u[0]))) {
      f.token = OPS;
      assertThat(define(f, "by-id", BY_ID).statusCode()).isEqualTo(201);
      assertThat(define(f, "count", COUNT).statusCode()).isEqualTo(201);
      StringBuilder docs = new StringBuilder();
      for (int i = 0; i < 200; i++) {
        docs.append(MeteringApiTest.doc("id-" + "x".repeat(40) + i, 1)).append('\n');
      }
      assertThat(ingest(f, docs.toString()).statusCode()).isEqualTo(202);
      JsonNode failed = awaitListed(f, "by-id", q -> q.get("state").asText().equals("FAILED"));
      assertThat(failed.get("error").asText())
          .contains("--max-standing-state")
          .contains("over the 4096");
      JsonNode w = awaitWindow(f, "by-id", T0, x -> true);
      assertThat(w.get("meta").get("errors").toString()).contains("--max-standing-state");
      // the other goes on
      assertThat(awaitListed(f, "count", q -> true).get("state").asText()).isEqualTo("RUNNING");
      assertThat(ingest(f, MeteringApiTest.lines("later", 0, 5)).statusCode()).isEqualTo(202);
      assertThat(totals(f, "count", 205)[0]).isEqualTo(205);
    }
    // after a restart it stays stopped, with its error; the other goes on from its state
    try (ServiceFixture f = start(u -> u[0] = with(10, false, 100_000, 4096, u[0]))) {
      f.token = OPS;
      JsonNode failed = awaitListed(f, "by-id", q -> true);
      assertThat(failed.get("state").asText()).isEqualTo("FAILED");
      assertThat(failed.get("error").asText()).contains("--max-standing-state");
      JsonNode w = awaitWindow(f, "by-id", T0, x -> true); // as of when it stopped
      assertThat(w.get("records").size()).isPositive();
      assertThat(w.get("meta").get("errors").toString()).contains("--max-standing-state");
      assertThat(totals(f, "count", 205)[0]).isEqualTo(205);
    }
  }

  /** What the logger {@code name} writes while {@code body} runs: level, message, exceptions. */
  static List<String> logged(String name, Runnable body) {
    List<String> out = java.util.Collections.synchronizedList(new ArrayList<>());
    org.apache.logging.log4j.core.Logger logger =
        (org.apache.logging.log4j.core.Logger) org.apache.logging.log4j.LogManager.getLogger(name);
    org.apache.logging.log4j.core.appender.AbstractAppender capture =
        new org.apache.logging.log4j.core.appender.AbstractAppender(
            "capture",
            null,
            null,
            true,
            org.apache.logging.log4j.core.config.Property.EMPTY_ARRAY) {
          @Override
          public void append(org.apache.logging.log4j.core.LogEvent e) {
            Throwable t = e.getThrown();
            StringBuilder line =
                new StringBuilder(e.getLevel() + " " + e.getMessage().getFormattedMessage());
            for (; t != null; t = t.getCause()) {
              line.append(" | ").append(t);
            }
            out.add(line.toString());
          }
        };
    capture.start();
    logger.addAppender(capture);
    try {
      body.run();
    } finally {
      logger.removeAppender(capture);
      capture.stop();
    }
    return out;
  }

  @Test
  void aStandingQueryTheEngineCannotStartIsA503WithAnErrorIdNotTheEnginesText() throws Exception {
    try (ServiceFixture f =
        ServiceFixture.startMetering(
            data.resolve("d"),
            settings(),
            EngineConfig.defaults().withWorkers(1).withTickMs(20).withMaxQueries(1),
            b -> {})) {
      assertThat(define(f, "first", COUNT).statusCode()).isEqualTo(201);
      java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> answer =
          new java.util.concurrent.atomic.AtomicReference<>();
      List<String> log =
          logged(
              "io.spyglass.service.http.MeteringApi", () -> answer.set(define(f, "second", COUNT)));
      HttpResponse<String> second = answer.get();
      assertThat(second.statusCode()).isEqualTo(503);
      JsonNode error = ServiceFixture.json(second.body()).get("error");
      String id = error.get("id").asText();
      assertThat(id).isNotBlank();
      assertThat(error.get("message").asText())
          .isEqualTo("Standing query second could not start (error " + id + ")");
      assertThat(error.get("resolution").asText()).contains("error " + id);
      assertThat(second.body()).doesNotContain("Too many queries").doesNotContain("Exception");
      assertThat(log)
          .anySatisfy(
              l ->
                  assertThat(l)
                      .startsWith("ERROR")
                      .contains("(error " + id + ")")
                      .contains("IllegalStateException: Too many queries"));
      assertThat(f.invalid).isEmpty();
    }
  }
}

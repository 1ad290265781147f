package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user keeps in the database, over a real server on a loopback port: saved queries within a
 * count and a size per user, nothing saved while the disk is nearly full (507), and history pruned
 * as new queries come, not only at startup.
 */
class StorageQuotaTest {
  static final String ALICE = "alice-token-0123456789";
  static final String BOB = "bob-token-0123456789";
  static final String QUERY = "SELECT COUNT(*) AS n FROM STREAM(100, TIME)";

  @TempDir Path dir;

  ServiceFixture start(UnaryOperator<UsageLimits> usage) throws Exception {
    Path tokens = dir.resolve("tokens.txt");
    Files.writeString(tokens, ALICE + " alice\n" + BOB + " bob\n");
    UsageLimits u = usage.apply(UsageLimits.DEFAULTS);
    return ServiceFixture.start(
        dir.resolve("data"),
        b -> {
          b.tokensFile = tokens;
          b.usage = u;
        });
  }

  static UsageLimits saved(UsageLimits u, int count, long bytes, int history, long freeDisk) {
    return new UsageLimits(
        u.tenantField(),
        u.maxStandingQueriesPerUser(),
        u.standingQueriesAdminOnly(),
        u.maxStandingGroups(),
        u.maxStandingStateBytes(),
        count,
        bytes,
        history,
        freeDisk);
  }

  static HttpResponse<String> save(ServiceFixture f, String name, String query) {
    return f.postJson(
        "/api/saved",
        ServiceFixture.JSON.createObjectNode().put("name", name).put("query", query).toString());
  }

  static JsonNode error(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(507);
    return ServiceFixture.json(r.body()).get("error");
  }

  @Test
  void aUserKeepsAtMostSoManySavedQueries() throws Exception {
    try (ServiceFixture f = start(u -> saved(u, 3, 1 << 20, 1000, 0))) {
      f.token = ALICE;
      String first = null;
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> r = save(f, "q" + i, QUERY);
        assertThat(r.statusCode()).isEqualTo(201);
        first = first == null ? ServiceFixture.json(r.body()).get("id").asText() : first;
      }
      JsonNode e = error(save(f, "q3", QUERY));
      assertThat(e.get("limit").asText()).isEqualTo("max-saved-per-user");
      assertThat(e.get("message").asText()).contains("alice keeps 3 saved queries");
      f.token = BOB; // another user has a quota of their own
      assertThat(save(f, "b0", QUERY).statusCode()).isEqualTo(201);
      f.token = ALICE;
      assertThat(f.delete("/api/saved/" + first).statusCode()).isEqualTo(204);
      assertThat(save(f, "q3", QUERY).statusCode()).isEqualTo(201);
    }
  }

  @Test
  void aUsersSavedQueriesHoldAtMostSoManyBytes() throws Exception {
    String big = QUERY + " ".repeat(150);
    try (ServiceFixture f = start(u -> saved(u, 1000, 400, 1000, 0))) {
      f.token = ALICE;
      HttpResponse<String> one = save(f, "one", big);
      assertThat(one.statusCode()).as(one.body()).isEqualTo(201);
      assertThat(save(f, "two", big).statusCode()).isEqualTo(201);
      JsonNode e = error(save(f, "three", big));
      assertThat(e.get("limit").asText()).isEqualTo("max-saved-bytes-per-user");
      assertThat(e.get("message").asText()).contains("over the 400");
      // changing one to a longer text counts its new size, not both
      String id = ServiceFixture.json(one.body()).get("id").asText();
      assertThat(f.putJson("/api/saved/" + id, "{\"query\": \"" + QUERY + "\"}").statusCode())
          .isEqualTo(200);
      HttpResponse<String> grown =
          f.putJson("/api/saved/" + id, "{\"query\": \"" + big + " ".repeat(200) + "\"}");
      assertThat(error(grown).get("limit").asText()).isEqualTo("max-saved-bytes-per-user");
    }
  }

  @Test
  void nothingIsSavedWhileTheDiskIsNearlyFull() throws Exception {
    try (ServiceFixture f = start(u -> saved(u, 1000, 1 << 20, 1000, Long.MAX_VALUE))) {
      f.token = ALICE;
      JsonNode e = error(save(f, "q", QUERY));
      assertThat(e.get("limit").asText()).isEqualTo("min-free-disk");
      assertThat(e.get("message").asText()).contains("--min-free-disk");
      assertThat(e.get("resolution").asText()).contains("freed space");
    }
  }

  @Test
  void historyKeepsTheNewestEntriesPerUserAsQueriesCome() throws Exception {
    try (ServiceFixture f = start(u -> saved(u, 1000, 1 << 20, 3, 0))) {
      f.token = ALICE;
      for (int i = 0; i < 5; i++) {
        HttpResponse<String> r = f.post("/api/query", "text/plain", QUERY);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      }
      f.token = BOB;
      assertThat(f.post("/api/query", "text/plain", QUERY).statusCode()).isEqualTo(200);
      f.token = ALICE;
      JsonNode history =
          ServiceFixture.json(f.get("/api/history?limit=1000").body()).get("history");
      assertThat(history.size()).isEqualTo(3);
      f.token = BOB;
      assertThat(ServiceFixture.json(f.get("/api/history").body()).get("history").size())
          .isEqualTo(1);
    }
  }
}

package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.ServiceFixture.Event;
import io.spyglass.service.ServiceFixture.Sse;
import io.spyglass.service.store.Database;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Saved queries and history in the database under --data, across a restart. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SavedQueriesTest {
  @TempDir Path dir;

  @Test
  void savedQueriesAndHistorySurviveARestartAndOnlyTheOwnerChangesThem() throws Exception {
    Path tokens = dir.resolve("tokens.txt");
    Files.writeString(tokens, "alice-0123456789abcdef alice\nbob-0123456789abcdef bob\n");
    Path data = dir.resolve("data");
    String savedId;
    String queryId;
    try (ServiceFixture f = ServiceFixture.start(data, b -> b.tokensFile = tokens)) {
      f.token = "alice-0123456789abcdef";
      HttpResponse<String> created =
          f.postJson(
              "/api/saved",
              "{\"name\": \"errors\", \"query\": \"SELECT COUNT(*) FROM STREAM(10s, TIME)\"}");
      assertThat(created.statusCode()).isEqualTo(201);
      savedId = ServiceFixture.json(created.body()).get("id").asText();
      assertThat(created.headers().firstValue("Location")).hasValue("/api/saved/" + savedId);
      HttpResponse<String> invalid =
          f.postJson("/api/saved", "{\"name\": \"bad\", \"query\": \"SELECT FROM\"}");
      assertThat(invalid.statusCode()).isEqualTo(422);
      assertThat(f.postJson("/api/saved", "{\"query\": \"SELECT * FROM STREAM()\"}").statusCode())
          .isEqualTo(400);
      queryId = f.submit("SELECT COUNT(*) AS n FROM STREAM(300, TIME)");
      try (Sse sse = f.sse(queryId)) {
        List<Event> events = sse.all();
        assertThat(events.get(events.size() - 1).isFinal()).isTrue();
      }
      // another user opens the shared link, but cannot change or delete it
      f.token = "bob-0123456789abcdef";
      assertThat(f.get("/api/saved/" + savedId).statusCode()).isEqualTo(200);
      assertThat(f.putJson("/api/saved/" + savedId, "{\"name\": \"mine\"}").statusCode())
          .isEqualTo(403);
      assertThat(f.delete("/api/saved/" + savedId).statusCode()).isEqualTo(403);
      assertThat(ServiceFixture.json(f.get("/api/saved").body()).get("saved").size()).isZero();
      assertThat(ServiceFixture.json(f.get("/api/history").body()).get("history").size()).isZero();
    }
    assertThat(data.resolve(Database.FILE)).exists();

    try (ServiceFixture f = ServiceFixture.start(data, b -> b.tokensFile = tokens)) {
      f.token = "alice-0123456789abcdef";
      JsonNode list = ServiceFixture.json(f.get("/api/saved").body()).get("saved");
      assertThat(list.size()).isEqualTo(1);
      JsonNode s = list.get(0);
      assertThat(s.get("id").asText()).isEqualTo(savedId);
      assertThat(s.get("name").asText()).isEqualTo("errors");
      assertThat(s.get("owner").asText()).isEqualTo("alice");
      assertThat(s.get("query").asText()).isEqualTo("SELECT COUNT(*) FROM STREAM(10s, TIME)");
      assertThat(s.get("created").asLong()).isPositive();

      HttpResponse<String> renamed =
          f.putJson("/api/saved/" + savedId, "{\"name\": \"errors by country\"}");
      assertThat(renamed.statusCode()).isEqualTo(200);
      assertThat(ServiceFixture.json(renamed.body()).get("name").asText())
          .isEqualTo("errors by country");
      assertThat(ServiceFixture.json(renamed.body()).get("query").asText())
          .isEqualTo("SELECT COUNT(*) FROM STREAM(10s, TIME)");

      JsonNode history = ServiceFixture.json(f.get("/api/history").body()).get("history");
      assertThat(history.size()).isEqualTo(1);
      assertThat(history.get(0).get("id").asText()).isEqualTo(queryId);
      assertThat(history.get(0).get("state").asText()).isEqualTo("finished");
      assertThat(history.get(0).get("results").asLong()).isEqualTo(1);
      assertThat(f.get("/api/history?limit=0").statusCode()).isEqualTo(400);

      assertThat(f.delete("/api/saved/" + savedId).statusCode()).isEqualTo(204);
      assertThat(f.get("/api/saved/" + savedId).statusCode()).isEqualTo(404);
    }
  }
}

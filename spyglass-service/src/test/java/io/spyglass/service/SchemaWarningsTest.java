package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** /api/validate warns of fields the stream has not shown lately, with the names it has. */
class SchemaWarningsTest {
  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    f = ServiceFixture.start(data, b -> b.sampleEveryN = 1);
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (ServiceFixture.json(f.get("/api/schema").body()).get("records").asLong() < 200) {
      assertThat(System.nanoTime()).as("records sampled in time").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  private static JsonNode validate(String query) {
    HttpResponse<String> r = f.post("/api/validate", "text/plain", query);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return ServiceFixture.json(r.body());
  }

  @Test
  void aMistypedFieldIsNamedWithTheOneMeant() {
    JsonNode v = validate("SELECT COUNT(*) AS n FROM STREAM(10s, TIME) WHERE devise = 'tablet'");
    assertThat(v.get("warnings")).hasSize(1);
    JsonNode w = v.get("warnings").get(0);
    assertThat(w.get("field").asText()).isEqualTo("devise");
    assertThat(w.get("message").asText())
        .isEqualTo("devise has not been seen in the stream lately");
    assertThat(w.get("fix").asText()).isEqualTo("Did you mean device?");
  }

  @Test
  void fieldsTheStreamHasAndWholeRecordsGiveNoWarning() {
    assertThat(
            validate("SELECT device, COUNT(*) FROM STREAM(10s, TIME) GROUP BY device")
                .get("warnings"))
        .isEmpty();
    assertThat(validate("SELECT * FROM STREAM(10s, TIME) LIMIT 1").get("warnings")).isEmpty();
    JsonNode far = validate("SELECT COUNT(*) FROM STREAM(10s, TIME) WHERE zzzzzzzzzz = 1");
    assertThat(far.get("warnings").get(0).has("fix")).isFalse();
  }
}

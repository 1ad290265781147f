package io.spyglass.service;

import static io.spyglass.service.MeteringApiTest.COUNT;
import static io.spyglass.service.MeteringApiTest.T0;
import static io.spyglass.service.MeteringApiTest.doc;
import static io.spyglass.service.MeteringApiTest.ingest;
import static io.spyglass.service.MeteringApiTest.settings;
import static io.spyglass.service.MeteringApiTest.totals;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 202 means counted: every document the engine would skip (too deep, a number too long, over 4
 * MiB), has a key twice, or an id over 256 bytes is rejected at ingest with its reason, and the
 * standing query's totals are those of the documents accepted. Over a real server on a loopback
 * port.
 */
class IngestValidationTest {
  @TempDir Path data;

  static String nested(String id, int depth) {
    return "{\"id\":\""
        + id
        + "\",\"quantity\":1,\"time\":"
        + (T0 + 1_000)
        + ",\"n\":"
        + "[".repeat(depth - 1)
        + "]".repeat(depth - 1)
        + "}";
  }

  static JsonNode send(ServiceFixture f, List<String> docs) {
    HttpResponse<String> r = ingest(f, String.join("\n", docs) + "\n");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    return ServiceFixture.json(r.body());
  }

  static String reason(JsonNode answer, int index) {
    for (JsonNode r : answer.get("rejected")) {
      if (r.get("index").asInt() == index) {
        return r.get("reason").asText();
      }
    }
    throw new AssertionError("document " + index + " was not rejected: " + answer);
  }

  @Test
  void documentsTheEngineWouldSkipAreRejectedWithTheirReasonNotAcknowledged() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      String create =
          ServiceFixture.JSON.createObjectNode().put("name", "n").put("query", COUNT).toString();
      assertThat(f.postJson("/api/standing-queries", create).statusCode()).isEqualTo(201);
      String bigNumber = "1".repeat(1_001); // the engine reads numbers of up to 1,000 characters
      JsonNode o =
          send(
              f,
              List.of(
                  doc("plain", 1),
                  nested("depth-33", 33),
                  nested("depth-70", 70),
                  nested("depth-999", 999),
                  "{\"id\":\"number\",\"quantity\":" + bigNumber + ",\"time\":" + T0 + "}",
                  "{\"id\":\"huge\",\"quantity\":1,\"time\":"
                      + T0
                      + ",\"s\":\""
                      + "x".repeat(5 << 20)
                      + "\"}"));
      assertThat(o.get("accepted").asInt()).as(o.toString()).isEqualTo(2);
      assertThat(o.get("rejected")).hasSize(4);
      assertThat(reason(o, 2)).contains("nested too deeply").contains("64");
      assertThat(reason(o, 3)).contains("nested too deeply");
      assertThat(reason(o, 4)).contains("a number longer than the limit");
      assertThat(reason(o, 5)).contains("longer than the record size limit").contains("4194304");

      // what was rejected is not remembered: sent again within the limits, it is taken
      JsonNode again = send(f, List.of(doc("depth-70", 1), doc("number", 1)));
      assertThat(again.get("accepted").asInt()).isEqualTo(2);
      assertThat(totals(f, "n", 4)).containsExactly(4, 4, 0);
      JsonNode health = ServiceFixture.json(f.get("/api/health").body());
      assertThat(health.get("recordsMalformed").asLong()).isZero();
    }
  }

  @Test
  void whatTheEngineReadsIsTakenWhateverJacksonsOwnDefaultsWouldSay() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      String create =
          ServiceFixture.JSON.createObjectNode().put("name", "n").put("query", COUNT).toString();
      assertThat(f.postJson("/api/standing-queries", create).statusCode()).isEqualTo(201);
      // a 150-digit number, and a 60,000-byte name (Jackson refuses names over 50,000 by default)
      JsonNode o =
          send(
              f,
              List.of(
                  "{\"id\":\"long-number\",\"quantity\":1,\"time\":"
                      + T0
                      + ",\"big\":"
                      + "7".repeat(150)
                      + "}",
                  "{\"id\":\"long-name\",\"quantity\":1,\"time\":"
                      + T0
                      + ",\""
                      + "n".repeat(60_000)
                      + "\":1}"));
      assertThat(o.get("accepted").asInt()).as(o.toString()).isEqualTo(2);
      assertThat(totals(f, "n", 2)).containsExactly(2, 2, 0);
    }
  }

  @Test
  void aKeyGivenTwiceIsRejectedNotCountedWithTheLastValue() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      String create =
          ServiceFixture.JSON.createObjectNode().put("name", "n").put("query", COUNT).toString();
      assertThat(f.postJson("/api/standing-queries", create).statusCode()).isEqualTo(201);
      JsonNode o =
          send(
              f,
              List.of(
                  "{\"id\":\"dupkey\",\"quantity\":1,\"quantity\":1000,\"time\":" + T0 + "}",
                  "{\"id\":\"a\",\"id\":\"b\",\"quantity\":1,\"time\":" + T0 + "}",
                  "{\"id\":\"inner\",\"quantity\":1,\"time\":" + T0 + ",\"m\":{\"k\":1,\"k\":2}}",
                  doc("fine", 5),
                  "{\"id\":\"escaped\",\"quantity\":1,\"time\":" + T0 + ",\"\\u0071uantity\":9}",
                  "{\"id\":\"deep\",\"quantity\":1,\"time\":"
                      + T0
                      + ",\"l\":[{\"k\":1},{\"k\":2,\"j\":[{\"z\":1,\"z\":2}]}]}"));
      assertThat(o.get("accepted").asInt()).as(o.toString()).isEqualTo(1);
      assertThat(reason(o, 0)).contains("given twice").contains("'quantity'");
      assertThat(reason(o, 1)).contains("given twice").contains("'id'");
      assertThat(reason(o, 2)).contains("given twice").contains("'k'");
      assertThat(reason(o, 4)).contains("given twice").contains("'quantity'");
      assertThat(reason(o, 5)).contains("given twice").contains("'z'");
      assertThat(totals(f, "n", 1)).containsExactly(1, 5, 0);
    }
  }

  @Test
  void idsCompareAsTextAndAreAtMost256Bytes() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      // 7 and "7" are one id: the second is a duplicate (docs/metering.md says so)
      JsonNode same = send(f, List.of("{\"id\":7}", "{\"id\":\"7\"}"));
      assertThat(same.get("accepted").asInt()).isEqualTo(1);
      assertThat(same.get("duplicates").asInt()).isEqualTo(1);

      String longest = "é".repeat(128); // 256 bytes in UTF-8
      JsonNode o =
          send(
              f,
              List.of(
                  "{\"id\":\"" + longest + "\"}",
                  "{\"id\":\"" + longest + "x\"}",
                  "{\"id\":\"" + "x".repeat(100_000) + "\"}"));
      assertThat(o.get("accepted").asInt()).as(o.toString()).isEqualTo(1);
      assertThat(reason(o, 1)).contains("257 bytes").contains("at most 256 bytes");
      assertThat(reason(o, 2)).contains("100000 bytes");
    }
  }
}

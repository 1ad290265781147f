package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command reading a topic of a real single-node KRaft broker of its own ({@link TestKafka}),
 * started once for the class and stopped by the last test.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaIT {
  private static final int RECORDS = 50;

  private static TestKafka kafka;
  private static String bootstrap;
  private static final Set<String> produced = new HashSet<>();

  @TempDir static Path dir;

  @BeforeAll
  static void startBrokerAndProduce() throws Exception {
    kafka = TestKafka.start();
    bootstrap = kafka.bootstrap();
    kafka.createTopic("events", 2);
    try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
      for (int i = 0; i < RECORDS; i++) {
        String id = "k" + i;
        String json = "{\"id\": \"" + id + "\", \"status\": " + (i % 5 == 0 ? 500 : 200) + "}";
        producer
            .send(
                new ProducerRecord<>("events", i % 2, null, json.getBytes(StandardCharsets.UTF_8)))
            .get(30, TimeUnit.SECONDS);
        produced.add(id);
      }
    }
  }

  @AfterAll
  static void stopBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  @Order(1)
  void rawLimitAndCountOverATopicFromEarliest() throws Exception {
    Path queries = dir.resolve("queries.bql");
    Files.writeString(
        queries,
        "SELECT * FROM STREAM(10000, TIME) LIMIT 5\n"
            + "SELECT COUNT(*) AS n, SUM(status) AS s FROM STREAM(5s, TIME)\n");
    Spyglass.Run run =
        Spyglass.run(
            "query",
            "--source",
            "kafka://" + bootstrap + "/events?from=earliest",
            "--format",
            "json",
            "--queries",
            queries.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    // a normal end says nothing (closing the consumer under a poll is not an error)
    assertThat(run.stderr()).as(run.toString()).doesNotContain("ERROR", "Exception");

    List<JsonNode> raw = run.results("q1");
    assertThat(raw).as(run.toString()).hasSize(1);
    assertThat(raw.get(0).at("/meta/final").asBoolean()).isTrue();
    List<String> ids = new ArrayList<>();
    for (JsonNode row : raw.get(0).get("records")) {
      ids.add(row.get("id").asText());
      assertThat(row.get("status").asInt()).isIn(200, 500);
    }
    assertThat(ids).hasSize(5).doesNotHaveDuplicates();
    assertThat(produced).containsAll(ids);

    List<JsonNode> count = run.results("q2");
    assertThat(count).as(run.toString()).hasSize(1);
    assertThat(count.get(0).at("/meta/final").asBoolean()).isTrue();
    assertThat(count.get(0).at("/records/0/n").asLong()).isEqualTo(RECORDS);
    assertThat(count.get(0).at("/records/0/s").asDouble()).isEqualTo(10 * 500 + 40 * 200);
  }

  @Test
  @Order(2)
  void aKafkaPropertyReachesTheSourcesConsumer() throws Exception {
    String group = "spyglass-it-properties";
    try (Spyglass.Running cmd =
        Spyglass.start(
            "query",
            "--source",
            "kafka://" + bootstrap + "/events?from=earliest&group=" + group,
            "--kafka-property",
            "client.id=spyglass-it-reader",
            "--format",
            "json",
            "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(500, TIME)")) {
      cmd.awaitResult("the topic counted", r -> r.at("/records/0/n").asLong() == RECORDS);
      // the broker knows the consumer by the client.id given
      try (var admin = kafka.admin()) {
        var members =
            admin
                .describeConsumerGroups(List.of(group))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(group)
                .members();
        assertThat(members).isNotEmpty();
        assertThat(members)
            .allSatisfy(m -> assertThat(m.clientId()).isEqualTo("spyglass-it-reader"));
      }
      cmd.interrupt();
      assertThat(cmd.awaitExit()).as(cmd.toString()).isEqualTo(130);
    }
  }

  @Test
  @Order(3)
  void aBadKafkaPropertyIsRefusedNamingIt() throws Exception {
    Spyglass.Run query =
        Spyglass.run(
            "query",
            "--source",
            "kafka://" + bootstrap + "/events",
            "--kafka-property",
            "security.protocol=NOPE",
            "SELECT COUNT(*) FROM STREAM(1s, TIME)");
    assertThat(query.exitCode()).as(query.toString()).isEqualTo(1);
    assertThat(query.stderr()).as(query.toString()).contains("security.protocol").contains("NOPE");

    Spyglass.Run serve =
        Spyglass.run(
            "serve",
            "--port",
            "0",
            "--data",
            dir.resolve("serve-data").toString(),
            "--source",
            "kafka://" + bootstrap + "/events",
            "--kafka-property",
            "security.protocol=NOPE");
    assertThat(serve.exitCode()).as(serve.toString()).isEqualTo(1);
    assertThat(serve.stderr())
        .as(serve.toString())
        .startsWith("spyglass: cannot serve: ")
        .contains("security.protocol")
        .contains("NOPE");
  }

  @Test
  @Order(9)
  void aStoppedBrokerIsSaidWhileTheQueryGoesOn() throws Exception {
    try (Spyglass.Running cmd =
        Spyglass.start(
            "query",
            "--source",
            "kafka://" + bootstrap + "/events?from=earliest",
            "--format",
            "json",
            "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(500, TIME)")) {
      cmd.awaitResult("the topic counted", r -> r.at("/records/0/n").asLong() == RECORDS);
      stopBroker();
      JsonNode said =
          cmd.awaitResult(
              "a window that says the broker does not answer",
              r -> r.at("/meta/errors/0/message").asText().contains("does not answer"));
      assertThat(said.at("/meta/errors/0/fatal").asBoolean()).isFalse();
      assertThat(said.at("/meta/final").asBoolean()).isFalse();
      cmd.interrupt();
      assertThat(cmd.awaitExit()).as(cmd.toString()).isEqualTo(130);
      assertThat(cmd.stderr())
          .as(cmd.toString())
          .contains("spyglass: kafka://" + bootstrap + "/events?from=earliest: Kafka at ")
          .contains("does not answer; results miss its records while this lasts");
    }
  }
}

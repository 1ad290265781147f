package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.RawHttp.Answer;
import io.spyglass.service.http.EdgeGuards;
import io.spyglass.service.http.EdgeSettings;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory of request bodies being read, over a real server on a loopback port and raw sockets:
 * 10 MiB per user and 20 MiB in all here, reserved from each body's declared length before a byte
 * of it is read. Review finding 6: a token holder could open 1,024 connections per address, each
 * holding a body of up to 1 MiB.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BodyMemoryTest {
  static final String ALICE = "alice-token-0123456789";
  static final String BOB = "bob-token-0123456789";
  static final String CAROL = "carol-token-0123456789";
  static final int BODY = 1_000_000;

  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(tokens, ALICE + " alice\n" + BOB + " bob\n" + CAROL + " carol\n");
    f =
        ServiceFixture.start(
            data.resolve("d"),
            b -> {
              b.tokensFile = tokens;
              b.edge = EdgeSettings.DEFAULTS.withBody(60_000, 64 << 10); // held bodies wait
              b.guards = EdgeGuards.DEFAULTS.withBodyMemory(20L << 20, 10L << 20);
            });
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  /** A connection that declared a body of {@link #BODY} bytes and sent none of it yet. */
  static Socket holding(String token) throws IOException {
    Socket s = RawHttp.connect("127.0.0.1", f.service.port());
    RawHttp.send(s, head(token, BODY));
    return s;
  }

  static String head(String token, int length) {
    return "POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
        + "Authorization: Bearer "
        + token
        + "\r\nContent-Length: "
        + length
        + "\r\n\r\n";
  }

  static Answer refused(String token) throws IOException {
    try (Socket s = holding(token)) {
      return RawHttp.read(s); // answered from the head: the body is never sent
    }
  }

  static Answer validate(String token) throws IOException {
    String bql = "SELECT COUNT(*) FROM STREAM(1s, TIME)";
    return RawHttp.exchange(
        "127.0.0.1",
        f.service.port(),
        head(token, bql.length()).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n") + bql);
  }

  static long held() throws IOException {
    Answer m =
        RawHttp.exchange(
            "127.0.0.1",
            f.service.port(),
            "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                + ALICE
                + "\r\nConnection: close\r\n\r\n");
    return m.body()
        .lines()
        .filter(l -> l.startsWith("spyglass_request_body_bytes "))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.indexOf(' ') + 1)))
        .sum();
  }

  static void closeAll(List<Socket> sockets) {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  @Test
  void bodiesHoldTheirUsersShareAndTheWholeFromTheirHeads() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < 10; i++) {
        held.add(holding(BOB));
      }
      EdgeAbuseTest.await(() -> heldNow() == 10L * BODY, "bob's ten bodies are held");
      // bob's eleventh does not fit his share: refused from its head, nothing read
      Answer bob = refused(BOB);
      assertThat(bob.status()).isEqualTo(429);
      assertThat(bob.headers().get("retry-after")).isNotBlank();
      JsonNode e = ServiceFixture.json(bob.body()).get("error");
      assertThat(e.get("limit").asText()).isEqualTo("max-request-body-memory-per-user");
      assertThat(e.get("message").asText()).contains("bob");
      // alice has her own share; once she holds ten too, the whole is full for carol
      assertThat(validate(ALICE).status()).isEqualTo(200);
      for (int i = 0; i < 10; i++) {
        held.add(holding(ALICE));
      }
      EdgeAbuseTest.await(() -> heldNow() == 20L * BODY, "twenty bodies are held");
      Answer carol = refused(CAROL);
      assertThat(carol.status()).isEqualTo(429);
      assertThat(ServiceFixture.json(carol.body()).get("error").get("limit").asText())
          .isEqualTo("max-request-body-memory");
      // bodies without a token are refused before any memory: 401
      try (Socket s = RawHttp.connect("127.0.0.1", f.service.port())) {
        RawHttp.send(s, head("nope-0123456789abcdef", BODY));
        assertThat(RawHttp.read(s).status()).isEqualTo(401);
      }
    } finally {
      closeAll(held);
    }
    // closed connections give their memory back
    EdgeAbuseTest.await(() -> heldNow() == 0, "the bodies' memory is given back");
    assertThat(validate(BOB).status()).isEqualTo(200);
    assertThat(validate(CAROL).status()).isEqualTo(200);
  }

  static long heldNow() {
    try {
      return held();
    } catch (IOException e) {
      return -1;
    }
  }

  @Test
  void theSharesHoldTheLargestBody() {
    assertThatThrownBy(() -> EdgeGuards.DEFAULTS.withBodyMemory(64L << 20, 4L << 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--max-request-body-memory-per-user must be at least 10MiB");
    assertThatThrownBy(() -> EdgeGuards.DEFAULTS.withBodyMemory(12L << 20, 16L << 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be at least --max-request-body-memory-per-user");
    EdgeGuards small = EdgeGuards.forHeap(256L << 20);
    assertThat(small.maxBodyMemory()).isEqualTo(64L << 20);
    assertThat(small.maxBodyMemoryPerUser()).isEqualTo(16L << 20);
    EdgeGuards big = EdgeGuards.forHeap(8L << 30);
    assertThat(big.maxBodyMemory()).isEqualTo(1L << 30);
    assertThat(big.maxBodyMemoryPerUser()).isEqualTo(256L << 20);
  }
}

package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * A service behind a reverse proxy (127.0.0.9, trusted), over a real server on a loopback port and
 * raw sockets: wrong tokens are counted per client the proxy names, a client cannot name itself
 * through an address that is not a trusted proxy, and the proxy's connections are not held to the
 * per-address cap. Review finding 2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TrustedProxiesTest {
  static final String ALICE = "alice-token-0123456789";
  static final String PROXY = "127.0.0.9";

  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(tokens, ALICE + " alice\n");
    f =
        ServiceFixture.start(
            data.resolve("d"),
            b -> {
              b.tokensFile = tokens;
              b.edge =
                  EdgeSettings.DEFAULTS
                      .withMaxConnectionsPerAddress(5)
                      .withMaxAuthFailuresPerMinute(3);
              b.guards = EdgeGuards.DEFAULTS.withTrustedProxies(List.of(PROXY, "fd00::/8"));
            });
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  static Answer get(String from, String headers, String token) throws IOException {
    return RawHttp.exchange(
        from,
        f.service.port(),
        "GET /api/saved HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + headers
            + "Authorization: Bearer "
            + token
            + "\r\n\r\n");
  }

  /** Wrong tokens from {@code from} with {@code headers} until 429; how many got 401. */
  static int guessUntilThrottled(String from, String headers) throws IOException {
    for (int i = 0; i < 10; i++) {
      Answer a = get(from, headers, "guess-" + i);
      if (a.status() == 429) {
        assertThat(a.headers().get("retry-after")).isNotBlank();
        return i;
      }
      assertThat(a.status()).isEqualTo(401);
    }
    throw new AssertionError("never throttled");
  }

  @Test
  void wrongTokensCountPerClientTheProxyNames() throws Exception {
    String client = "X-Forwarded-For: 198.51.100.7\r\n";
    assertThat(guessUntilThrottled(PROXY, client)).isEqualTo(3);
    // the same client, by the other header or behind a chain of proxies: throttled
    assertThat(get(PROXY, "Forwarded: for=198.51.100.7;proto=https\r\n", "x").status())
        .isEqualTo(429);
    assertThat(get(PROXY, "Forwarded: for=\"198.51.100.7:4711\"\r\n", "x").status()).isEqualTo(429);
    assertThat(get(PROXY, "X-Forwarded-For: 198.51.100.7, 127.0.0.9\r\n", "x").status())
        .isEqualTo(429);
    // what a client writes before the address the proxy saw changes nothing
    assertThat(get(PROXY, "X-Forwarded-For: 203.0.113.1, 198.51.100.7\r\n", "x").status())
        .isEqualTo(429);
    // its valid token is served; another client behind the same proxy is not throttled
    assertThat(get(PROXY, client, ALICE).status()).isEqualTo(200);
    assertThat(get(PROXY, "X-Forwarded-For: 198.51.100.8\r\n", "x").status()).isEqualTo(401);
    assertThat(get(PROXY, "X-Forwarded-For: 198.51.100.8\r\n", ALICE).status()).isEqualTo(200);
  }

  @Test
  void anAddressThatIsNotATrustedProxyCannotNameAnotherClient() throws Exception {
    String from = "127.0.0.10";
    assertThat(guessUntilThrottled(from, "X-Forwarded-For: 198.51.100.20\r\n")).isEqualTo(3);
    // its headers are not believed: a new name in them is still this address
    assertThat(get(from, "X-Forwarded-For: 198.51.100.21\r\n", "x").status()).isEqualTo(429);
    assertThat(get(from, "Forwarded: for=198.51.100.22\r\n", "x").status()).isEqualTo(429);
    assertThat(get(from, "", ALICE).status()).isEqualTo(200);
  }

  @Test
  void aTrustedProxyIsNotHeldToThePerAddressCap() throws Exception {
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < 12; i++) {
        Socket s = RawHttp.connect(PROXY, f.service.port());
        held.add(s);
        RawHttp.send(s, "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assertThat(RawHttp.read(s).status()).isEqualTo(200); // kept alive: still counted
      }
      // another address is held to 5
      boolean refused = false;
      for (int i = 0; i < 8 && !refused; i++) {
        Socket s = RawHttp.connect("127.0.0.11", f.service.port());
        held.add(s);
        RawHttp.send(s, "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        try {
          assertThat(RawHttp.read(s).status()).isEqualTo(200);
        } catch (IOException e) {
          refused = true;
        }
      }
      assertThat(refused).isTrue();
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  @Test
  void aTrustedProxyIsAnAddressOrARangeNeverAName() {
    assertThatThrownBy(() -> EdgeGuards.DEFAULTS.withTrustedProxies(List.of("proxy.example")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("never a name");
    assertThatThrownBy(() -> EdgeGuards.DEFAULTS.withTrustedProxies(List.of("10.0.0.0/33")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(
            EdgeGuards.DEFAULTS
                .withTrustedProxies(List.of("10.0.0.0/8", "192.168.1.5", "::1"))
                .trustedProxies())
        .hasSize(3);
  }
}

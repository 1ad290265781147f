package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.source.GeneratorSource;
import io.spyglass.service.http.EdgeSettings;
import io.spyglass.service.http.Listening;
import io.spyglass.service.runtime.EmbeddedRuntime;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve}'s way to start: the port bound first ({@link SpyglassService#bind}), then the
 * service on it, over a real engine on a loopback port. The server took the socket over beside a
 * connector of its own on the same port, so that a given port was bound twice ("Port already in
 * use") and, on any free port, the edge's connection caps held on a port nobody called.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ListeningTest {
  @Test
  void theServiceServesOnThePortBoundFirstWithItsConnectionCaps(@TempDir Path dir)
      throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    ServiceConfig config =
        ServiceConfig.defaults()
            .with(
                b -> {
                  b.port = port;
                  b.dataDir = dir;
                  b.edge = EdgeSettings.DEFAULTS.withMaxConnectionsPerAddress(3);
                });
    Listening listening = SpyglassService.bind(config);
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRate(100)),
            EngineConfig.defaults().withWorkers(1));
    List<Socket> held = new ArrayList<>();
    try (SpyglassService service = SpyglassService.start(config, listening, runtime, null)) {
      assertThat(service.port()).isEqualTo(port);
      boolean refused = false;
      for (int i = 0; i < 6 && !refused; i++) {
        Socket s = RawHttp.connect("127.0.0.21", port);
        held.add(s);
        RawHttp.send(s, "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        try {
          assertThat(RawHttp.read(s).status()).isEqualTo(200);
        } catch (IOException e) {
          refused = true;
        }
      }
      assertThat(refused).as("the per-address cap holds on the port served").isTrue();
      assertThat(held).hasSize(4);
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }
}

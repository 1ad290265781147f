package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.http.StreamSettings;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WebSocket client that stops reading is dropped by the rule an SSE stream is (the service's one
 * slow-client policy): with an error message and close code 1008, while the engine goes on. Over a
 * real server, with a raw socket (a WebSocket client library reads for its user).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketSlowClientTest {
  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    f = ServiceFixture.start(data, b -> b.streams = new StreamSettings(8, 4_000, 200));
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void aSocketThatNeverReadsIsDroppedWithAnErrorAndCloseCode1008() throws Exception {
    // about 600 KB a second of results: a client that does not read fills its connection fast
    String id =
        f.submit("SELECT * FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100, TIME) LIMIT 1000", true);
    long droppedBefore = f.service.metrics().droppedClients();
    try (Socket slow = new Socket()) {
      slow.setReceiveBufferSize(4096);
      slow.connect(new InetSocketAddress("127.0.0.1", f.service.port()));
      slow.setSoTimeout(30_000);
      OutputStream out = slow.getOutputStream();
      byte[] key = new byte[16];
      ThreadLocalRandom.current().nextBytes(key);
      out.write(
          ("GET /api/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  + "Sec-WebSocket-Key: "
                  + Base64.getEncoder().encodeToString(key)
                  + "\r\nSec-WebSocket-Version: 13\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      DataInputStream in = new DataInputStream(slow.getInputStream());
      assertThat(head(in)).startsWith("HTTP/1.1 101");
      out.write(textFrame("{\"type\":\"subscribe\",\"id\":\"" + id + "\"}"));
      out.flush();

      // the client reads nothing more: its socket is dropped
      long read0 = f.service.runtime().stats().recordsRead();
      long t0 = System.nanoTime();
      long deadline = System.currentTimeMillis() + 20_000;
      while (f.service.metrics().droppedClients() == droppedBefore
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertThat(f.service.metrics().droppedClients()).isEqualTo(droppedBefore + 1);
      // the engine kept reading at the source's pace (2,000 records/s), whatever the slow client
      double seconds = (System.nanoTime() - t0) / 1e9;
      long read = f.service.runtime().stats().recordsRead() - read0;
      assertThat(read).isGreaterThan((long) (2_000 * seconds * 0.5));

      // reading at last, the client finds the results it had not read, then the error, then the
      // close frame
      List<String> texts = new ArrayList<>();
      int closeCode = -1;
      while (closeCode < 0) {
        Frame fr = frame(in);
        if (fr.opcode() == 1) {
          texts.add(new String(fr.payload(), StandardCharsets.UTF_8));
        } else if (fr.opcode() == 8) {
          closeCode = ((fr.payload()[0] & 0xff) << 8) | (fr.payload()[1] & 0xff);
        }
      }
      assertThat(closeCode).isEqualTo(1008);
      assertThat(texts).isNotEmpty();
      assertThat(ServiceFixture.json(texts.get(0)).get("type").asText()).isEqualTo("result");
      JsonNode last = ServiceFixture.json(texts.get(texts.size() - 1));
      assertThat(last.get("type").asText()).isEqualTo("error");
      assertThat(last.get("status").asInt()).isEqualTo(429);
      assertThat(last.at("/error/message").asText()).contains("too far behind");
      assertThat(last.at("/error/resolution").asText()).contains("reconnect");
    }
    assertThat(f.get("/metrics").body())
        .contains("spyglass_stream_clients_dropped_total{stream=\"websocket\"} 1.0");
    // the socket gave its place back: it is no longer one of the query's clients or streams
    long until = System.currentTimeMillis() + 10_000;
    while (f.service.server().openStreams() > 0 && System.currentTimeMillis() < until) {
      Thread.sleep(20);
    }
    assertThat(f.service.server().openStreams()).isZero();
    f.delete("/api/queries/" + id);
  }

  /** The answer's head, up to its empty line. */
  private static String head(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      b.write(c);
      String s = b.toString(StandardCharsets.US_ASCII);
      if (s.endsWith("\r\n\r\n")) {
        return s;
      }
    }
    throw new EOFException("the connection closed in the answer's head: " + b);
  }

  /** A client's text frame: final, masked. */
  private static byte[] textFrame(String text) {
    byte[] payload = text.getBytes(StandardCharsets.UTF_8);
    assertThat(payload.length).isLessThan(126);
    byte[] mask = new byte[4];
    ThreadLocalRandom.current().nextBytes(mask);
    byte[] frame = new byte[2 + 4 + payload.length];
    frame[0] = (byte) 0x81;
    frame[1] = (byte) (0x80 | payload.length);
    System.arraycopy(mask, 0, frame, 2, 4);
    for (int i = 0; i < payload.length; i++) {
      frame[6 + i] = (byte) (payload[i] ^ mask[i % 4]);
    }
    return frame;
  }

  private record Frame(int opcode, byte[] payload) {}

  /** The server's next frame (unmasked); continuation frames are joined to their first. */
  private static Frame frame(DataInputStream in) throws IOException {
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    int opcode = -1;
    while (true) {
      int b0 = in.readUnsignedByte();
      int b1 = in.readUnsignedByte();
      long length = b1 & 0x7f;
      if (length == 126) {
        length = in.readUnsignedShort();
      } else if (length == 127) {
        length = in.readLong();
      }
      byte[] p = new byte[Math.toIntExact(length)];
      in.readFully(p);
      int op = b0 & 0x0f;
      if (op >= 8) {
        return new Frame(op, p); // control frames come whole, between fragments too
      }
      if (opcode < 0) {
        opcode = op;
      }
      payload.write(p);
      if ((b0 & 0x80) != 0) {
        return new Frame(opcode, payload.toByteArray());
      }
    }
  }
}

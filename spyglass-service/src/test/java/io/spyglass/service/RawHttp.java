package io.spyglass.service;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a plain socket, for requests an HTTP client would not send (no body after a
 * Content-Length, a foreign Host, a WebSocket handshake) and from a chosen loopback address.
 */
final class RawHttp {
  private RawHttp() {}

  /** An answer: status, headers (names in lower case) and body. */
  record Answer(int status, Map<String, String> headers, String body) {}

  /** A socket to the service on {@code port}, from {@code from} (e.g. 127.0.0.2). */
  static Socket connect(String from, int port) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(from, 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    s.setSoTimeout(10_000);
    return s;
  }

  static void send(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    s.getOutputStream().flush();
  }

  /** Sends a whole request on a new connection and reads its answer. */
  static Answer exchange(String from, int port, String text) throws IOException {
    try (Socket s = connect(from, port)) {
      send(s, text);
      return read(s);
    }
  }

  /** Reads one answer: its head, then Content-Length bytes (or to the end without one). */
  static Answer read(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      head.write(c);
      byte[] h = head.toByteArray();
      int n = h.length;
      if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') {
        break;
      }
    }
    if (head.size() == 0) {
      throw new IOException("closed without an answer");
    }
    String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new TreeMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(
            lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).strip());
      }
    }
    if (status == 101) {
      return new Answer(status, headers, "");
    }
    String length = headers.get("content-length");
    byte[] body;
    if (length != null) {
      body = in.readNBytes(Integer.parseInt(length));
    } else {
      body = in.readAllBytes();
    }
    return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
  }

  /** A WebSocket handshake for {@code path}, with {@code extra} header lines (each ending CRLF). */
  static String upgrade(String path, String host, String extra) {
    return "GET "
        + path
        + " HTTP/1.1\r\nHost: "
        + host
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + extra
        + "\r\n";
  }
}

package io.spyglass.sinks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Reads one HTTP/1.1 answer from the bytes of a connection as they come: its status line and
 * headers, then its body, discarded ({@code Content-Length}, chunked, or until the connection
 * closes). Interim answers ({@code 1xx}) are skipped. Not thread-safe: one per connection.
 */
final class AnswerReader {
  static final int MORE = 0;
  static final int DONE = 1;

  private enum State {
    HEAD,
    LENGTH,
    CHUNK_SIZE,
    CHUNK_DATA,
    CHUNK_END,
    TRAILERS,
    UNTIL_CLOSE
  }

  private State state = State.HEAD;
  private long left;

  /** The answer, once its head is read. */
  Http1Client.Answer answer;

  /** Whether the connection may carry another request after this answer. */
  boolean keepAlive = true;

  /** Whether the body ends when the connection closes. */
  boolean untilClose;

  void reset() {
    state = State.HEAD;
    left = 0;
    answer = null;
    keepAlive = true;
    untilClose = false;
  }

  /**
   * Consumes what it can of {@code in} (from its position to its limit); what it leaves is an
   * incomplete line, to be read again with more bytes after it.
   *
   * @return {@link #DONE} when the answer ended (what follows it is left in {@code in}), else
   *     {@link #MORE}
   * @throws IOException when the bytes are not an HTTP/1.x answer
   */
  int read(ByteBuffer in) throws IOException {
    while (true) {
      switch (state) {
        case HEAD -> {
          int end = headEnd(in);
          if (end < 0) {
            return MORE;
          }
          byte[] head = new byte[end - in.position()];
          in.get(head);
          in.position(end + 4);
          if (head(new String(head, StandardCharsets.ISO_8859_1))) {
            return DONE;
          }
        }
        case LENGTH -> {
          int n = (int) Math.min(left, in.remaining());
          in.position(in.position() + n);
          left -= n;
          if (left > 0) {
            return MORE;
          }
          return DONE;
        }
        case CHUNK_SIZE -> {
          String line = line(in);
          if (line == null) {
            return MORE;
          }
          int semi = line.indexOf(';');
          String size = (semi >= 0 ? line.substring(0, semi) : line).strip();
          try {
            left = Long.parseLong(size, 16);
          } catch (NumberFormatException e) {
            throw new IOException("the receiver's answer has a bad chunk size: " + size);
          }
          if (left < 0) {
            throw new IOException("the receiver's answer has a bad chunk size: " + size);
          }
          state = left == 0 ? State.TRAILERS : State.CHUNK_DATA;
        }
        case CHUNK_DATA -> {
          int n = (int) Math.min(left, in.remaining());
          in.position(in.position() + n);
          left -= n;
          if (left > 0) {
            return MORE;
          }
          state = State.CHUNK_END;
        }
        case CHUNK_END -> {
          String line = line(in);
          if (line == null) {
            return MORE;
          }
          state = State.CHUNK_SIZE;
        }
        case TRAILERS -> {
          String line = line(in);
          if (line == null) {
            return MORE;
          }
          if (line.isEmpty()) {
            return DONE;
          }
        }
        case UNTIL_CLOSE -> {
          in.position(in.limit());
          return MORE;
        }
      }
    }
  }

  /** Reads a head; true when the answer has no body. */
  private boolean head(String head) throws IOException {
    String[] lines = head.split("\r\n");
    String status = lines[0];
    if (!status.startsWith("HTTP/1.") || status.length() < 12) {
      throw new IOException(
          "the receiver did not answer in HTTP/1.1: "
              + status.substring(0, Math.min(40, status.length())));
    }
    int code;
    try {
      code = Integer.parseInt(status.substring(9, 12));
    } catch (NumberFormatException e) {
      throw new IOException("the receiver's answer has a bad status line: " + status);
    }
    boolean http10 = status.startsWith("HTTP/1.0");
    long length = -1;
    boolean chunked = false;
    String connection = "";
    String retryAfter = null;
    for (int i = 1; i < lines.length; i++) {
      String l = lines[i];
      int colon = l.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = l.substring(0, colon).strip().toLowerCase(Locale.ROOT);
      String value = l.substring(colon + 1).strip();
      switch (name) {
        case "content-length" -> {
          try {
            length = Long.parseLong(value);
          } catch (NumberFormatException e) {
            throw new IOException("the receiver's answer has a bad Content-Length: " + value);
          }
        }
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "connection" -> connection = value.toLowerCase(Locale.ROOT);
        case "retry-after" -> retryAfter = value;
        default -> {
          // not needed
        }
      }
    }
    if (code >= 100 && code < 200) {
      return false; // an interim answer: the real one follows (state stays HEAD)
    }
    answer = new Http1Client.Answer(code, retryAfter);
    keepAlive = http10 ? connection.contains("keep-alive") : !connection.contains("close");
    if (code == 204 || code == 304) {
      return true;
    }
    if (chunked) {
      state = State.CHUNK_SIZE;
      return false;
    }
    if (length >= 0) {
      left = length;
      state = State.LENGTH;
      return length == 0;
    }
    untilClose = true;
    keepAlive = false;
    state = State.UNTIL_CLOSE;
    return false;
  }

  /** Where the head ends ({@code \r\n\r\n}) from {@code in}'s position; -1 when not there yet. */
  private static int headEnd(ByteBuffer in) {
    for (int i = in.position(); i + 3 < in.limit(); i++) {
      if (in.get(i) == '\r'
          && in.get(i + 1) == '\n'
          && in.get(i + 2) == '\r'
          && in.get(i + 3) == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** The next line (without its {@code \r\n}), consumed; null when it is not all there yet. */
  private static String line(ByteBuffer in) {
    for (int i = in.position(); i + 1 < in.limit(); i++) {
      if (in.get(i) == '\r' && in.get(i + 1) == '\n') {
        byte[] b = new byte[i - in.position()];
        in.get(b);
        in.position(i + 2);
        return new String(b, StandardCharsets.ISO_8859_1);
      }
    }
    return null;
  }
}

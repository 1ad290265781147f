package io.spyglass.scenarios;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Many Server-Sent Events clients on a thread per core, so that ten thousand of them fit in a
 * benchmark and their own cost stays out of what is measured: plain sockets on a few selectors, a
 * small buffer each, events cut at their blank line and read by byte search (the result's number,
 * its {@code emitTime}, whether it is final), never parsed as JSON. Each result's delay (received -
 * emitted, the wall clock read as each socket is read) goes into one {@link Delays}.
 *
 * <p>Thread-safe: {@link #open} from any thread; the counters are read after {@link #await}.
 */
final class SseSwarm implements AutoCloseable {
  private static final byte[] EMIT = "\"emitTime\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FINAL = "\"final\":true".getBytes(StandardCharsets.US_ASCII);

  /** One stream: its connection, what it got, and whether it ended. */
  final class Stream {
    final String path;
    private SocketChannel channel;
    private ByteBuffer out;
    private byte[] buf = new byte[4096];
    private int len;
    private boolean headersDone;
    private boolean chunked;
    private long chunkLeft = -1; // -1: a chunk-size line is next
    private byte[] body = new byte[4096];
    private int bodyLen;
    volatile int status;
    volatile long results;
    volatile long lastId;
    volatile boolean sawFinal;
    volatile boolean ended;
    volatile String error;

    Stream(String path) {
      this.path = path;
    }

    /** A problem with what it got, or null: ids 1.. without a gap, ending with the final one. */
    String problem() {
      if (error != null) {
        return error;
      }
      if (status != 200) {
        return "HTTP " + status;
      }
      return sawFinal ? null : "no final result among " + results;
    }
  }

  private final InetSocketAddress server;
  private final String host;
  private final String authorization;
  private final Loop[] loops;
  private int next;
  private final List<Stream> all = new ArrayList<>();
  private final Delays delays = new Delays();
  // the same delays by the result's emitTime (a window's): each window's own spread
  private final java.util.TreeMap<Long, Delays> byEmit = new java.util.TreeMap<>();
  private volatile boolean closed;
  private volatile long liveAfterMs = Long.MAX_VALUE;
  private final int maxConnecting;

  /** One selector and its thread, serving a share of the streams. */
  private final class Loop {
    final Selector selector;
    final Thread thread;
    final Queue<Stream> pending = new ConcurrentLinkedQueue<>();
    int connecting;

    Loop(int i) throws IOException {
      selector = Selector.open();
      thread = new Thread(() -> loop(this), "bench-sse-swarm-" + i);
      thread.setDaemon(true);
      thread.start();
    }
  }

  /**
   * Clients of {@code server}, sending {@code Host: host} and, unless null, {@code Authorization};
   * at most {@code maxConnecting} connections being opened at once (the rest wait their turn). The
   * streams are shared among one selector thread per core.
   */
  SseSwarm(InetSocketAddress server, String host, String authorization, int maxConnecting)
      throws IOException {
    this.server = server;
    this.host = host;
    this.authorization = authorization;
    int n = Math.max(1, Machine.cores());
    this.maxConnecting = Math.max(1, maxConnecting / n);
    this.loops = new Loop[n];
    for (int i = 0; i < n; i++) {
      loops[i] = new Loop(i);
    }
  }

  /** Opens a stream of {@code path} (e.g. {@code /api/queries/ID/results}). */
  Stream open(String path) {
    Stream s = new Stream(path);
    Loop l;
    synchronized (all) {
      all.add(s);
      l = loops[next++ % loops.length];
    }
    l.pending.add(s);
    l.selector.wakeup();
    return s;
  }

  /** Delays of results emitted at or after {@code ms} are recorded from now on. */
  void recordFrom(long ms) {
    liveAfterMs = ms;
  }

  /** Streams whose response head arrived (any status). */
  int connected() {
    int n = 0;
    for (Stream s : streams()) {
      if (s.status != 0) {
        n++;
      }
    }
    return n;
  }

  List<Stream> streams() {
    synchronized (all) {
      return new ArrayList<>(all);
    }
  }

  /** The delays recorded; read once the streams ended ({@link #await}). */
  Delays delays() {
    synchronized (delays) {
      return delays;
    }
  }

  /**
   * The delays recorded by the emission time of their result (one entry per window of a windowed
   * query), oldest first; read once the streams ended ({@link #await}).
   */
  java.util.SortedMap<Long, Delays> delaysByEmit() {
    synchronized (delays) {
      return new java.util.TreeMap<>(byEmit);
    }
  }

  /** Waits until every stream has its response head; false at the timeout. */
  boolean awaitConnected(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (connected() < streams().size()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  /** Waits until every stream has ended; false at the timeout. */
  boolean await(long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (streams().stream().anyMatch(s -> !s.ended)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  private void loop(Loop l) {
    ArrayDeque<Stream> waiting = new ArrayDeque<>();
    Selector selector = l.selector;
    while (!closed) {
      try {
        for (Stream s; (s = l.pending.poll()) != null; ) {
          waiting.add(s);
        }
        while (!waiting.isEmpty() && l.connecting < maxConnecting) {
          connect(l, waiting.poll());
        }
        selector.select(100);
        for (SelectionKey k : selector.selectedKeys()) {
          Stream s = (Stream) k.attachment();
          try {
            if (k.isConnectable()) {
              s.channel.finishConnect();
              k.interestOps(SelectionKey.OP_WRITE);
            }
            if (k.isValid() && k.isWritable()) {
              s.channel.write(s.out);
              if (!s.out.hasRemaining()) {
                s.out = null;
                k.interestOps(SelectionKey.OP_READ);
              }
            }
            if (k.isValid() && k.isReadable()) {
              read(l, s, k, System.currentTimeMillis()); // when this socket's bytes came in
            }
          } catch (IOException | RuntimeException e) {
            end(l, s, k, e.toString());
          }
        }
        selector.selectedKeys().clear();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void connect(Loop l, Stream s) throws IOException {
    SocketChannel ch = SocketChannel.open();
    ch.configureBlocking(false);
    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    s.channel = ch;
    String req =
        "GET "
            + s.path
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nAccept: text/event-stream\r\n"
            + (authorization != null ? "Authorization: " + authorization + "\r\n" : "")
            + "\r\n";
    s.out = ByteBuffer.wrap(req.getBytes(StandardCharsets.US_ASCII));
    l.connecting++;
    if (ch.connect(server)) {
      ch.register(l.selector, SelectionKey.OP_WRITE, s);
    } else {
      ch.register(l.selector, SelectionKey.OP_CONNECT, s);
    }
  }

  private void read(Loop l, Stream s, SelectionKey k, long now) throws IOException {
    while (true) {
      if (s.len == s.buf.length) {
        s.buf = Arrays.copyOf(s.buf, s.buf.length * 2);
      }
      int n = s.channel.read(ByteBuffer.wrap(s.buf, s.len, s.buf.length - s.len));
      if (n < 0) {
        end(l, s, k, null);
        return;
      }
      if (n == 0) {
        return;
      }
      s.len += n;
      consume(l, s, now);
    }
  }

  /** Takes what it can of the bytes read: the response head, then the body (de-chunked). */
  private void consume(Loop l, Stream s, long now) {
    int at = 0;
    if (!s.headersDone) {
      int end = indexOf(s.buf, 0, s.len, new byte[] {'\r', '\n', '\r', '\n'});
      if (end < 0) {
        return;
      }
      String head = new String(s.buf, 0, end, StandardCharsets.ISO_8859_1);
      s.status = Integer.parseInt(head.substring(9, 12));
      s.chunked = head.toLowerCase().contains("transfer-encoding: chunked");
      s.headersDone = true;
      l.connecting--;
      at = end + 4;
    }
    if (!s.chunked) {
      append(s, s.buf, at, s.len - at);
      at = s.len;
    } else {
      while (at < s.len) {
        if (s.chunkLeft < 0) {
          int eol = indexOf(s.buf, at, s.len, new byte[] {'\r', '\n'});
          if (eol < 0) {
            break;
          }
          String size = new String(s.buf, at, eol - at, StandardCharsets.ISO_8859_1).strip();
          int semi = size.indexOf(';');
          s.chunkLeft = Long.parseLong(semi >= 0 ? size.substring(0, semi) : size, 16);
          at = eol + 2;
          if (s.chunkLeft == 0) {
            at = s.len; // the last chunk: the stream is over
            break;
          }
        } else if (s.chunkLeft == 0) {
          if (s.len - at < 2) {
            break; // the CRLF after a chunk
          }
          at += 2;
          s.chunkLeft = -1;
        } else {
          int take = (int) Math.min(s.chunkLeft, s.len - at);
          append(s, s.buf, at, take);
          at += take;
          s.chunkLeft -= take;
        }
      }
    }
    System.arraycopy(s.buf, at, s.buf, 0, s.len - at);
    s.len -= at;
    events(s, now);
  }

  private static void append(Stream s, byte[] from, int at, int n) {
    if (s.bodyLen + n > s.body.length) {
      s.body = Arrays.copyOf(s.body, Math.max(s.body.length * 2, s.bodyLen + n));
    }
    System.arraycopy(from, at, s.body, s.bodyLen, n);
    s.bodyLen += n;
  }

  /** Each whole event (up to its blank line) of the body. */
  private void events(Stream s, long now) {
    int start = 0;
    while (true) {
      int end = indexOf(s.body, start, s.bodyLen, new byte[] {'\n', '\n'});
      if (end < 0) {
        break;
      }
      event(s, start, end, now);
      start = end + 2;
    }
    System.arraycopy(s.body, start, s.body, 0, s.bodyLen - start);
    s.bodyLen -= start;
  }

  private void event(Stream s, int from, int to, long now) {
    if (startsWith(s.body, from, "event: error")
        || indexOf(s.body, from, to, "\nevent: error".getBytes(StandardCharsets.US_ASCII)) >= 0) {
      s.error = new String(s.body, from, to - from, StandardCharsets.UTF_8);
      return;
    }
    if (!startsWith(s.body, from, "id: ")) {
      return; // a comment (keep-alive)
    }
    long id = number(s.body, from + 4, to);
    if (id != s.lastId + 1 && s.error == null) {
      s.error = "result " + id + " after " + s.lastId;
    }
    s.lastId = id;
    s.results++;
    boolean isFinal = indexOf(s.body, from, to, FINAL) >= 0;
    s.sawFinal |= isFinal;
    int e = indexOf(s.body, from, to, EMIT);
    if (e >= 0 && !isFinal) {
      long emit = number(s.body, e + EMIT.length, to);
      if (emit >= liveAfterMs) {
        synchronized (delays) {
          delays.record(now - emit);
          byEmit.computeIfAbsent(emit, k -> new Delays()).record(now - emit);
        }
      }
    }
  }

  private void end(Loop l, Stream s, SelectionKey k, String error) {
    if (error != null && s.error == null) {
      s.error = error;
    }
    if (!s.headersDone) {
      l.connecting--;
      s.headersDone = true;
    }
    s.ended = true;
    k.cancel();
    try {
      s.channel.close();
    } catch (IOException e) {
      // closed anyway
    }
  }

  private static boolean startsWith(byte[] b, int at, String prefix) {
    if (at + prefix.length() > b.length) {
      return false;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (b[at + i] != prefix.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static long number(byte[] b, int at, int to) {
    long v = 0;
    for (int i = at; i < to && b[i] >= '0' && b[i] <= '9'; i++) {
      v = v * 10 + (b[i] - '0');
    }
    return v;
  }

  static int indexOf(byte[] b, int from, int to, byte[] needle) {
    outer:
    for (int i = from; i <= to - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (b[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /** Closes every stream's connection. */
  @Override
  public void close() throws IOException {
    closed = true;
    for (Loop l : loops) {
      l.selector.wakeup();
      try {
        l.thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      for (SelectionKey k : l.selector.keys()) {
        k.channel().close();
      }
      l.selector.close();
    }
  }
}

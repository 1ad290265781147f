package io.spyglass.sinks;

import io.spyglass.core.SpyglassClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The HTTP/1.1 client of webhooks over plain {@code http}: a POST per document on connections kept
 * alive per host and port, the request written by the thread that sends it, every answer read by
 * one thread on one selector. Each connection stays registered for reading, so that sending a
 * request changes nothing in the selector (no wake-up, no registration), and a connection the
 * receiver closed while idle is seen and dropped.
 *
 * <p>It does what a webhook needs and no more: no redirects (the caller gives them up), no proxies,
 * no TLS ({@code https} webhooks go through the JDK's client), no compression, no pipelining. An
 * answer's body is read and discarded ({@code Content-Length}, chunked, or until the connection
 * closes).
 *
 * <p>Thread-safe.
 */
final class Http1Client implements AutoCloseable {
  /** What a receiver answered: its status and its {@code Retry-After}, or null. */
  record Answer(int status, String retryAfter) {}

  /** The longest head of an answer it reads (status line and headers). */
  static final int MAX_HEAD = 64 * 1024;

  private final Selector selector;
  private final Thread thread;
  private final Map<String, ArrayDeque<Conn>> idle = new HashMap<>();
  private final Set<Conn> busy = ConcurrentHashMap.newKeySet();
  private final ConcurrentLinkedQueue<Conn> toRegister = new ConcurrentLinkedQueue<>();
  private volatile boolean closed;
  private final SpyglassClock clock;

  Http1Client(String threadName) {
    this(threadName, SpyglassClock.system());
  }

  /** Requests' timeouts on {@code clock}. */
  Http1Client(String threadName, SpyglassClock clock) {
    this.clock = clock;
    try {
      selector = Selector.open();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
    thread.start();
  }

  /** Whether this client takes {@code uri}: plain http, no user info. */
  static boolean takes(URI uri) {
    return "http".equalsIgnoreCase(uri.getScheme())
        && uri.getRawUserInfo() == null
        && uri.getHost() != null;
  }

  /**
   * POSTs {@code body} to {@code uri}; the answer (or the failure: a refused connection, a timeout,
   * a connection closed before its answer) completes the future, on this client's thread.
   *
   * @param headers the request's other headers, as {@code name, value} pairs
   * @throws IllegalArgumentException when a header's value has a line break or a control character
   */
  CompletableFuture<Answer> post(URI uri, List<String> headers, byte[] body, long timeoutMs) {
    if (closed) {
      return CompletableFuture.failedFuture(new IOException("the client is closed"));
    }
    ByteBuffer head = head(uri, headers, body.length);
    String host = uri.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = uri.getPort() >= 0 ? uri.getPort() : 80;
    String target = host.toLowerCase(Locale.ROOT) + ":" + port;
    Exchange x =
        new Exchange(new ByteBuffer[] {head, ByteBuffer.wrap(body)}, clock.deadlineIn(timeoutMs));
    Conn c = takeIdle(target);
    if (c != null && c.start(x)) {
      return x.answer;
    }
    try {
      SocketChannel ch = SocketChannel.open();
      ch.configureBlocking(false);
      ch.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
      c = new Conn(target, ch);
      c.exchange = x;
      busy.add(c);
      ch.connect(new InetSocketAddress(host, port));
    } catch (IOException | RuntimeException e) {
      if (c != null) {
        c.close();
      }
      return CompletableFuture.failedFuture(e);
    }
    toRegister.add(c);
    selector.wakeup();
    return x.answer;
  }

  /** The request's head: its line and headers, ASCII. */
  static ByteBuffer head(URI uri, List<String> headers, int length) {
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    if (uri.getRawQuery() != null) {
      path += "?" + uri.getRawQuery();
    }
    StringBuilder sb = new StringBuilder(160 + path.length());
    sb.append("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(uri.getHost());
    if (uri.getPort() >= 0 && uri.getPort() != 80) {
      sb.append(':').append(uri.getPort());
    }
    sb.append("\r\n");
    for (int i = 0; i + 1 < headers.size(); i += 2) {
      String value = headers.get(i + 1);
      for (int j = 0; j < value.length(); j++) {
        char ch = value.charAt(j);
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f || ch > 0xff) {
          throw new IllegalArgumentException(
              "the header " + headers.get(i) + " has a character a header cannot carry");
        }
      }
      sb.append(headers.get(i)).append(": ").append(value).append("\r\n");
    }
    sb.append("Content-Length: ").append(length).append("\r\n\r\n");
    return ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
  }

  private Conn takeIdle(String target) {
    synchronized (idle) {
      ArrayDeque<Conn> q = idle.get(target);
      Conn c = q == null ? null : q.pollLast(); // the most recently used: the least likely closed
      if (q != null && q.isEmpty()) {
        idle.remove(target);
      }
      return c;
    }
  }

  private void giveBack(Conn c) {
    if (closed) {
      c.close();
      return;
    }
    synchronized (idle) {
      idle.computeIfAbsent(c.target, t -> new ArrayDeque<>()).addLast(c);
    }
  }

  private void forgetIdle(Conn c) {
    synchronized (idle) {
      ArrayDeque<Conn> q = idle.get(c.target);
      if (q != null && q.remove(c) && q.isEmpty()) {
        idle.remove(c.target);
      }
    }
  }

  /** One request and its answer. */
  private static final class Exchange {
    final ByteBuffer[] request;
    final long deadlineNanos;
    final CompletableFuture<Answer> answer = new CompletableFuture<>();

    Exchange(ByteBuffer[] request, long deadlineNanos) {
      this.request = request;
      this.deadlineNanos = deadlineNanos;
    }

    boolean written() {
      return !request[request.length - 1].hasRemaining();
    }
  }

  /** One connection: idle, or carrying one exchange. */
  private final class Conn {
    final String target;
    final SocketChannel ch;
    volatile SelectionKey key;

    /** The exchange under way; null when idle. Guarded by this. */
    Exchange exchange;

    boolean open = true;

    /** What was read of the answer so far. Only on the client's thread. */
    ByteBuffer in = ByteBuffer.allocate(1024);

    final AnswerReader reader = new AnswerReader();

    Conn(String target, SocketChannel ch) {
      this.target = target;
      this.ch = ch;
    }

    /**
     * Starts an exchange on this idle connection, writing what the socket takes now; false when it
     * was closed meanwhile (the caller opens another).
     */
    boolean start(Exchange x) {
      boolean rest;
      synchronized (this) {
        if (!open) {
          return false;
        }
        exchange = x;
        busy.add(this);
        try {
          ch.write(x.request);
        } catch (IOException e) {
          exchange = null;
          busy.remove(this);
          closeLocked();
          return false; // a connection the receiver closed: another one
        }
        rest = !x.written();
      }
      if (rest) { // the socket's buffer is full: the client's thread writes the rest
        toRegister.add(this);
        selector.wakeup();
      }
      return true;
    }

    void close() {
      synchronized (this) {
        closeLocked();
      }
    }

    private void closeLocked() {
      if (!open) {
        return;
      }
      open = false;
      SelectionKey k = key;
      if (k != null) {
        k.cancel();
      }
      try {
        ch.close();
      } catch (IOException e) {
        // closed anyway
      }
    }
  }

  private void run() {
    long lastSweep = clock.nanos();
    try {
      while (!closed) {
        selector.select(250);
        Conn c;
        while ((c = toRegister.poll()) != null) {
          register(c);
        }
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
          SelectionKey k = it.next();
          it.remove();
          Conn conn = (Conn) k.attachment();
          try {
            if (k.isConnectable()) {
              connected(conn);
            } else {
              if (k.isValid() && k.isWritable()) {
                writeRest(conn);
              }
              if (k.isValid() && k.isReadable()) {
                readable(conn);
              }
            }
          } catch (CancelledKeyException e) {
            // closed meanwhile
          }
        }
        long now = clock.nanos();
        if (now - lastSweep > 200_000_000L) {
          lastSweep = now;
          sweep(now);
        }
      }
    } catch (IOException | ClosedSelectorException e) {
      // closed
    } finally {
      failAll(new IOException("the client was closed"));
    }
  }

  private void register(Conn c) {
    synchronized (c) {
      if (!c.open) {
        return;
      }
      try {
        if (c.key == null) {
          int ops = c.ch.isConnectionPending() ? SelectionKey.OP_CONNECT : SelectionKey.OP_READ;
          c.key = c.ch.register(selector, ops, c);
        } else if (c.exchange != null && !c.exchange.written()) {
          c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }
      } catch (IOException | RuntimeException e) {
        fail(c, e);
      }
    }
  }

  private void connected(Conn c) {
    synchronized (c) {
      try {
        c.ch.finishConnect();
        c.key.interestOps(SelectionKey.OP_READ);
        Exchange x = c.exchange;
        if (x != null) {
          c.ch.write(x.request);
          if (!x.written()) {
            c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
          }
        }
      } catch (IOException | RuntimeException e) {
        fail(c, e);
      }
    }
  }

  private void writeRest(Conn c) {
    synchronized (c) {
      Exchange x = c.exchange;
      try {
        if (x != null) {
          c.ch.write(x.request);
        }
        if (x == null || x.written()) {
          c.key.interestOps(SelectionKey.OP_READ);
        }
      } catch (IOException | RuntimeException e) {
        fail(c, e);
      }
    }
  }

  private void readable(Conn c) {
    Exchange done = null;
    Answer answer = null;
    boolean reuse = false;
    synchronized (c) {
      if (!c.open) {
        return;
      }
      int n;
      try {
        if (!c.in.hasRemaining()) {
          c.in = grow(c.in);
        }
        n = c.ch.read(c.in);
      } catch (IOException e) {
        fail(c, e);
        return;
      }
      if (c.exchange == null) { // idle: the receiver closed it, or talks out of turn
        c.closeLocked();
        busy.remove(c);
        forgetIdle(c);
        return;
      }
      if (n < 0) {
        if (c.reader.untilClose && c.reader.answer != null) {
          answer = c.reader.answer;
          done = c.exchange;
          c.exchange = null;
          c.closeLocked();
          busy.remove(c);
        } else {
          fail(c, new IOException("the receiver closed the connection before its answer"));
          return;
        }
      } else {
        c.in.flip();
        int result;
        try {
          result = c.reader.read(c.in);
        } catch (IOException e) {
          c.in.compact();
          fail(c, e);
          return;
        }
        c.in.compact();
        if (result == AnswerReader.DONE) {
          answer = c.reader.answer;
          done = c.exchange;
          c.exchange = null;
          c.reader.reset();
          busy.remove(c);
          reuse = c.reader.keepAlive && c.in.position() == 0;
          if (!reuse) {
            c.closeLocked();
          }
        }
      }
    }
    if (done != null) {
      if (reuse) {
        giveBack(c);
      }
      done.answer.complete(answer);
    }
  }

  private static ByteBuffer grow(ByteBuffer b) throws IOException {
    if (b.capacity() >= MAX_HEAD) {
      throw new IOException("the receiver's answer has a head longer than " + MAX_HEAD + " bytes");
    }
    ByteBuffer bigger = ByteBuffer.allocate(Math.min(MAX_HEAD, b.capacity() * 4));
    b.flip();
    bigger.put(b);
    return bigger;
  }

  /** Fails the exchange of {@code c} and closes it. */
  private void fail(Conn c, Throwable t) {
    Exchange x;
    synchronized (c) {
      x = c.exchange;
      c.exchange = null;
      c.closeLocked();
    }
    busy.remove(c);
    forgetIdle(c);
    if (x != null) {
      x.answer.completeExceptionally(t);
    }
  }

  /** Fails the exchanges past their deadline. */
  private void sweep(long now) {
    List<Conn> late = new ArrayList<>();
    for (Conn c : busy) {
      Exchange x;
      synchronized (c) {
        x = c.exchange;
      }
      if (x != null && now - x.deadlineNanos > 0) {
        late.add(c);
      }
    }
    for (Conn c : late) {
      fail(c, new java.net.http.HttpTimeoutException("request timed out"));
    }
  }

  private void failAll(IOException e) {
    for (Conn c : new ArrayList<>(busy)) {
      fail(c, e);
    }
    synchronized (idle) {
      idle.values().forEach(q -> q.forEach(Conn::close));
      idle.clear();
    }
  }

  @Override
  public void close() {
    closed = true;
    selector.wakeup();
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      selector.close();
    } catch (IOException e) {
      // closed anyway
    }
  }
}

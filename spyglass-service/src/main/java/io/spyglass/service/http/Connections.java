package io.spyglass.service.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ManagedSelector;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;

/**
 * The server's listening connector, with two caps on connections: over all (Jetty's {@link
 * NetworkConnectionLimit}: at the cap it stops accepting until some close, so that the process
 * keeps descriptors for its files instead of failing with "too many open files"), and per client
 * address (a connection over its address's cap is closed as soon as it opens, so that one client
 * cannot use up the overall cap). A connection is counted from its opening to its closing, a
 * WebSocket included. The per-address cap is applied when a connection opens, before any byte of a
 * request: behind a reverse proxy it counts the proxy's connections, so the proxy's addresses are
 * either trusted ({@code --trusted-proxies}: their connections are not held to the per-address cap,
 * only to the overall one) or the per-address cap is raised to what the proxy opens.
 */
final class Connections extends ServerConnector {
  private final int perAddress;
  private final TrustedProxies proxies;
  private final Map<InetAddress, Integer> open = new ConcurrentHashMap<>();
  // a closed endpoint no longer knows its remote address: kept from its opening, in the endpoint
  // itself ({@link Counted}: no map entry for each of ten thousand streams), here for any other
  private final Map<EndPoint, InetAddress> addresses = new ConcurrentHashMap<>();
  private final AtomicLong refused = new AtomicLong();

  private Connections(
      Server server, HttpConfiguration http, int perAddress, TrustedProxies proxies, Tls tls) {
    super(server, factories(http, tls));
    this.perAddress = perAddress;
    this.proxies = proxies;
  }

  /** HTTP/1.1, over TLS when {@code tls} is not null (requests then say they are secure). */
  private static org.eclipse.jetty.server.ConnectionFactory[] factories(
      HttpConfiguration http, Tls tls) {
    if (tls == null) {
      return new org.eclipse.jetty.server.ConnectionFactory[] {new HttpConnectionFactory(http)};
    }
    // the Host a request names is the edge's to check (Gate), not the certificate's
    http.addCustomizer(new SecureRequestCustomizer(false));
    return new org.eclipse.jetty.server.ConnectionFactory[] {
      new SslConnectionFactory(tls.factory(), "http/1.1"), new HttpConnectionFactory(http)
    };
  }

  /**
   * A connector with the caps of {@code edge} (trusted proxies held to the overall one only), added
   * to {@code server}: on the socket {@code listening} bound already (it takes it over), or on
   * {@code bind:port} when that is null; HTTPS when {@code tls} is not null. A connection is
   * counted from its opening, before its TLS handshake.
   */
  static Connections create(
      Server server,
      HttpConfiguration http,
      String bind,
      int port,
      EdgeSettings edge,
      TrustedProxies proxies,
      Listening listening,
      Tls tls) {
    Connections c = new Connections(server, http, edge.maxConnectionsPerAddress(), proxies, tls);
    c.setHost(bind);
    c.setPort(port);
    if (listening != null) {
      try {
        c.open(listening.channel());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    int max = edge.maxConnections() > 0 ? edge.maxConnections() : automaticMax();
    server.addBean(new NetworkConnectionLimit(max, c));
    return c;
  }

  /** Three quarters of the process's open-file limit (at least 64), or 10,000 where unknown. */
  static int automaticMax() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean u) {
      long fds = u.getMaxFileDescriptorCount();
      return (int) Math.max(64, Math.min(Integer.MAX_VALUE, fds * 3 / 4));
    }
    return 10_000;
  }

  /** Connections open now from {@code address}. */
  int open(InetAddress address) {
    return open.getOrDefault(address, 0);
  }

  /** Connections closed at once because their address had too many open. */
  long refused() {
    return refused.get();
  }

  @Override
  protected void onEndPointOpened(EndPoint ep) {
    super.onEndPointOpened(ep);
    InetAddress a = address(ep);
    if (a == null) {
      return;
    }
    if (ep instanceof Counted c) {
      c.counted = a;
    } else {
      addresses.put(ep, a);
    }
    if (open.merge(a, 1, Integer::sum) > perAddress && !proxies.trusts(a)) {
      refused.incrementAndGet();
      ep.close();
    }
  }

  @Override
  protected void onEndPointClosed(EndPoint ep) {
    InetAddress a;
    if (ep instanceof Counted c) {
      a = c.counted;
      c.counted = null;
    } else {
      a = addresses.remove(ep);
    }
    if (a != null) {
      open.computeIfPresent(a, (k, n) -> n <= 1 ? null : n - 1);
    }
    super.onEndPointClosed(ep);
  }

  /**
   * Accepts one connection as Jetty's connector does, with its options set on the channel itself:
   * Jetty's own sets them through {@link SocketChannel#socket()}, an adaptor the channel then keeps
   * for as long as it is open (80 bytes a connection: 0.8 MB for ten thousand result streams).
   */
  @Override
  public void accept(int acceptorID) throws IOException {
    ServerSocketChannel server = (ServerSocketChannel) getTransport();
    if (server == null || !server.isOpen()) {
      return;
    }
    SocketChannel channel = server.accept();
    if (channel == null) {
      return;
    }
    channel.configureBlocking(false);
    try {
      channel.setOption(StandardSocketOptions.TCP_NODELAY, getAcceptedTcpNoDelay());
      if (getAcceptedReceiveBufferSize() > -1) {
        channel.setOption(StandardSocketOptions.SO_RCVBUF, getAcceptedReceiveBufferSize());
      }
      if (getAcceptedSendBufferSize() > -1) {
        channel.setOption(StandardSocketOptions.SO_SNDBUF, getAcceptedSendBufferSize());
      }
    } catch (SocketException e) {
      // as Jetty: a connection whose options could not be set is served with the system's
    }
    getSelectorManager().accept(channel);
  }

  @Override
  protected SocketChannelEndPoint newEndPoint(
      SocketChannel channel, ManagedSelector selector, SelectionKey key) {
    SocketChannelEndPoint ep = new Counted(channel, selector, key, getScheduler());
    ep.setIdleTimeout(getIdleTimeout());
    return ep;
  }

  /**
   * A connection's endpoint that keeps the address it was counted under from its opening to its
   * closing (a closed endpoint no longer knows its remote address).
   */
  private static final class Counted extends SocketChannelEndPoint {
    /** The address its opening was counted under; null when none, or once it closed. */
    private volatile InetAddress counted;

    Counted(
        SocketChannel channel,
        ManagedSelector selector,
        SelectionKey key,
        org.eclipse.jetty.util.thread.Scheduler scheduler) {
      super(channel, selector, key, scheduler);
    }
  }

  private static InetAddress address(EndPoint ep) {
    SocketAddress s = ep.getRemoteSocketAddress();
    return s instanceof InetSocketAddress i ? i.getAddress() : null;
  }
}

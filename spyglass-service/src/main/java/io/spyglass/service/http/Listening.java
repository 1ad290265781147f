package io.spyglass.service.http;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;

/**
 * The service's listening socket, bound before anything else starts: a port in use is found, and
 * said plainly, before the engine reads a record or a standing query is restored. {@link ApiServer}
 * takes it over; until then, {@link #close} frees the port.
 */
public final class Listening implements AutoCloseable {
  private final ServerSocketChannel channel;

  private Listening(ServerSocketChannel channel) {
    this.channel = channel;
  }

  /**
   * Binds {@code address}:{@code port} (0 for any free port).
   *
   * @throws IOException when the port is in use or the address cannot be bound; the message says
   *     what to do
   */
  public static Listening bind(String address, int port) throws IOException {
    ServerSocketChannel ch = ServerSocketChannel.open();
    try {
      ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      ch.bind(new InetSocketAddress(address, port));
    } catch (BindException e) {
      ch.close();
      throw new IOException(
          "port "
              + port
              + " on "
              + address
              + " is in use ("
              + e.getMessage()
              + "): stop the process that listens there, or give another --port",
          e);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw new IOException("cannot listen on " + address + ":" + port + ": " + e.getMessage(), e);
    }
    return new Listening(ch);
  }

  /** The port bound (the one given, or the free one found for 0). */
  public int port() {
    return channel.socket().getLocalPort();
  }

  ServerSocketChannel channel() {
    return channel;
  }

  /** Frees the port, unless the server has taken it over (it closes it then). */
  @Override
  public void close() throws IOException {
    channel.close();
  }
}

package io.spyglass.service.http;

import io.spyglass.service.metering.Metering;
import java.util.List;

/**
 * Which proxies the HTTP edge believes about a client's address, how much memory request bodies
 * being read may hold, and how many threads the web server runs requests on. See {@code
 * docs/api.md} "Limits" and "Behind a reverse proxy", {@code docs/operations.md} "Sizing".
 *
 * @param trustedProxies IP addresses and CIDR ranges of reverse proxies ({@code
 *     --trusted-proxies}): from their connections, the client address that counts wrong tokens is
 *     taken from {@code Forwarded} or {@code X-Forwarded-For}, and their connections are not held
 *     to {@code --max-connections-per-address}; empty (the default): no header is believed
 * @param maxBodyMemory bytes that request bodies being read may hold at once, over all requests
 *     ({@code --max-request-body-memory}); a body that does not fit is refused from its head (429)
 * @param maxBodyMemoryPerUser the same for one user's requests ({@code
 *     --max-request-body-memory-per-user}); at least the largest body a route takes (10 MiB)
 * @param maxThreads most threads of the web server's pool ({@code --max-threads}), at least {@link
 *     #MIN_THREADS}: requests beyond them wait for one in its queue. No request holds a thread
 *     while it waits on a client or a query (streams, exports, bodies and runs are asynchronous),
 *     so threads beyond the cores' work only wait on locks; a burst of connections (thousands of
 *     streams opened at once) grew a pool of Javalin's size (250) by a thread a request in flight,
 *     each thread's stack resident until it ended
 */
public record EdgeGuards(
    List<String> trustedProxies, long maxBodyMemory, long maxBodyMemoryPerUser, int maxThreads) {
  /** The smallest a user's share may be: the largest request body, an ingestion's. */
  public static final long MIN_BODY_MEMORY_PER_USER = Metering.MAX_BODY_BYTES;

  /**
   * The fewest threads the web server's pool may have: its acceptor and selectors hold some of them
   * for good (up to 8 on a large machine), and requests need the rest.
   */
  public static final int MIN_THREADS = 16;

  /** The web server's threads by default: 64, or 8 a core where that is more. */
  public static final int DEFAULT_MAX_THREADS =
      Math.max(64, 8 * Runtime.getRuntime().availableProcessors());

  /**
   * No trusted proxy; request bodies within an eighth of the heap (at least 64 MiB), a quarter of
   * that per user (at least 16 MiB); {@link #DEFAULT_MAX_THREADS} threads.
   */
  public static final EdgeGuards DEFAULTS = forHeap(Runtime.getRuntime().maxMemory());

  public EdgeGuards {
    trustedProxies = List.copyOf(trustedProxies);
    TrustedProxies.of(trustedProxies); // checked when built: an IP address or range each
    if (maxBodyMemory < MIN_BODY_MEMORY_PER_USER) {
      throw new IllegalArgumentException(
          "--max-request-body-memory must be at least 10MiB, the largest request body (POST"
              + " /api/ingest): "
              + maxBodyMemory
              + " bytes");
    }
    if (maxBodyMemoryPerUser < MIN_BODY_MEMORY_PER_USER) {
      throw new IllegalArgumentException(
          "--max-request-body-memory-per-user must be at least 10MiB, the largest request body"
              + " (POST /api/ingest): "
              + maxBodyMemoryPerUser
              + " bytes");
    }
    if (maxBodyMemory < maxBodyMemoryPerUser) {
      throw new IllegalArgumentException(
          "--max-request-body-memory ("
              + maxBodyMemory
              + " bytes) must be at least --max-request-body-memory-per-user ("
              + maxBodyMemoryPerUser
              + " bytes)");
    }
    if (maxThreads < MIN_THREADS) {
      throw new IllegalArgumentException(
          "--max-threads must be at least "
              + MIN_THREADS
              + " (the web server's acceptor and selectors hold some of them): "
              + maxThreads);
    }
  }

  /** The defaults for a heap of {@code maxHeapBytes} (see {@link #DEFAULTS}). */
  public static EdgeGuards forHeap(long maxHeapBytes) {
    long all = Math.max(64L << 20, maxHeapBytes / 8);
    return new EdgeGuards(List.of(), all, perUser(all), DEFAULT_MAX_THREADS);
  }

  /** A user's share of {@code all} by default: a quarter, at least 16 MiB, at most all. */
  public static long perUser(long all) {
    return Math.min(all, Math.max(16L << 20, all / 4));
  }

  public EdgeGuards withTrustedProxies(List<String> v) {
    return new EdgeGuards(v, maxBodyMemory, maxBodyMemoryPerUser, maxThreads);
  }

  public EdgeGuards withBodyMemory(long all, long perUser) {
    return new EdgeGuards(trustedProxies, all, perUser, maxThreads);
  }

  public EdgeGuards withMaxThreads(int v) {
    return new EdgeGuards(trustedProxies, maxBodyMemory, maxBodyMemoryPerUser, v);
  }

  TrustedProxies proxies() {
    return TrustedProxies.of(trustedProxies);
  }
}

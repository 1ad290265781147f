package io.spyglass.sinks;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP receiver on a loopback port for tests: records every POST it gets (its key and body)
 * and answers as {@link #answer} says for each call.
 */
final class Receiver implements AutoCloseable {
  /** One request received. */
  record Call(int index, String key, String body, String contentType, int status) {}

  /** What to answer to call {@code index} (0 for the first) of document {@code key}. */
  @FunctionalInterface
  interface Answer {
    int status(int index, String key) throws InterruptedException;
  }

  private final List<Call> calls = new ArrayList<>();
  private final AtomicInteger count = new AtomicInteger();
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  volatile Answer answer = (i, k) -> 200;
  volatile String retryAfter;

  Receiver() throws IOException {
    this(0);
  }

  /** On {@code port} (0 for any free one). */
  Receiver(int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 100);
    server.setExecutor(threads);
    server.createContext(
        "/",
        ex -> {
          String body;
          try (InputStream in = ex.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          }
          String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
          int index = count.getAndIncrement();
          int status;
          try {
            status = answer.status(index, key);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = 500;
          }
          synchronized (calls) {
            calls.add(
                new Call(
                    index, key, body, ex.getRequestHeaders().getFirst("Content-Type"), status));
          }
          if (retryAfter != null && status != 200) {
            ex.getResponseHeaders().add("Retry-After", retryAfter);
          }
          if (status >= 300 && status < 400) {
            ex.getResponseHeaders().add("Location", "http://10.0.0.1/elsewhere");
          }
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    server.start();
  }

  /** Requests that arrived so far, answered or not. */
  int arrivals() {
    return count.get();
  }

  int port() {
    return server.getAddress().getPort();
  }

  String url() {
    return "http://127.0.0.1:" + port() + "/hook";
  }

  List<Call> calls() {
    synchronized (calls) {
      return new ArrayList<>(calls);
    }
  }

  /** The calls answered 2xx: the documents delivered. */
  List<Call> accepted() {
    return calls().stream().filter(c -> c.status() >= 200 && c.status() < 300).toList();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}

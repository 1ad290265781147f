package io.spyglass.service;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.function.BooleanSupplier;

/**
 * A webhook receiver for tests: a real HTTP server on a loopback port that records each POST and
 * answers as {@link #answer} says (it may hold the answer: a slow receiver).
 */
final class HookReceiver implements AutoCloseable {
  /** What to answer to call {@code index} (0 for the first). */
  @FunctionalInterface
  interface Answer {
    int status(int index) throws InterruptedException;
  }

  /** One POST: its body and the status answered. */
  record Call(String body, int status) {
    JsonNode json() {
      return ServiceFixture.json(body);
    }
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<Call> calls = new ArrayList<>();
  private final AtomicInteger arrived = new AtomicInteger();
  volatile Answer answer = i -> 200;

  HookReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    server.setExecutor(threads);
    server.createContext(
        "/",
        ex -> {
          String body;
          try (InputStream in = ex.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
          }
          int status;
          try {
            status = answer.status(arrived.getAndIncrement());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = 500;
          }
          synchronized (calls) {
            calls.add(new Call(body, status));
          }
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    server.start();
  }

  /** {@code HOST:PORT} as {@code --sink-allow} takes it. */
  String hostPort() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  String url() {
    return "http://" + hostPort() + "/hook";
  }

  int arrived() {
    return arrived.get();
  }

  List<Call> calls() {
    synchronized (calls) {
      return new ArrayList<>(calls);
    }
  }

  /** The documents taken (2xx), in the order answered. */
  List<JsonNode> taken() {
    return calls().stream().filter(c -> c.status() / 100 == 2).map(Call::json).toList();
  }

  /** Waits until {@code condition} holds; fails saying {@code what} after 30 s. */
  static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 30 s: " + what);
      }
      Thread.sleep(10);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}

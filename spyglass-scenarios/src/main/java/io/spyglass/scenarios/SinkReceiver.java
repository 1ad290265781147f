package io.spyglass.scenarios;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The webhook receiver of the sinks' bench ({@link SinksPart}), in a JVM of its own as a real
 * deployment's receiver runs elsewhere: the service's CPU is then the service's alone. It answers
 * every POST 204 and times each document from its window's end ({@code meta.window.emitTime}) to
 * its arrival, by the same wall clock as the service's (one machine).
 *
 * <p>Its standard input takes {@code measure FROM_MS TO_MS} (count the documents of windows that
 * end from {@code FROM_MS} until before {@code TO_MS}, forgetting those counted before; answers
 * {@code ok}) and {@code stats} (answers {@code stats RECEIVED P50 P99 MAX CPU_NANOS ALL}: the
 * documents counted, their delays in ms, this process's CPU time so far and every document it got);
 * it stops at the end of its input.
 */
final class SinkReceiver {
  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(2);
  private final Delays delays = new Delays();
  private long received;
  private long all;
  private long measureFromMs = Long.MAX_VALUE;
  private long measureToMs = Long.MAX_VALUE;

  private SinkReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    server.setExecutor(threads);
    server.createContext(
        "/",
        ex -> {
          byte[] body;
          try (InputStream in = ex.getRequestBody()) {
            body = in.readAllBytes();
          }
          long now = System.currentTimeMillis();
          long emit = emitTime(body);
          synchronized (this) {
            all++;
            if (emit > 0 && emit >= measureFromMs && emit < measureToMs) {
              received++;
              delays.record(now - emit);
            }
          }
          ex.sendResponseHeaders(204, -1);
          ex.close();
        });
    server.start();
  }

  private static final byte[] EMIT_TIME = "\"emitTime\":".getBytes(StandardCharsets.US_ASCII);

  /** {@code meta.window.emitTime} of a document, found in its bytes; 0 when it has none. */
  static long emitTime(byte[] doc) {
    int at = indexOf(doc, EMIT_TIME);
    if (at < 0) {
      return 0;
    }
    long v = 0;
    int i = at + EMIT_TIME.length;
    int from = i;
    while (i < doc.length && doc[i] >= '0' && doc[i] <= '9') {
      v = v * 10 + (doc[i++] - '0');
    }
    return i > from ? v : 0;
  }

  private static int indexOf(byte[] in, byte[] what) {
    outer:
    for (int i = 0; i + what.length <= in.length; i++) {
      for (int j = 0; j < what.length; j++) {
        if (in[i + j] != what[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private synchronized void measure(long fromMs, long toMs) {
    received = 0;
    delays.clear();
    measureFromMs = fromMs;
    measureToMs = toMs;
  }

  private synchronized String stats() {
    long cpu = -1;
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      cpu = os.getProcessCpuTime();
    }
    return String.format(
        "stats %d %.0f %.0f %.0f %d %d",
        received,
        delays.count() == 0 ? -1 : delays.percentile(50),
        delays.count() == 0 ? -1 : delays.percentile(99),
        delays.count() == 0 ? -1 : delays.max(),
        cpu,
        all);
  }

  /** Prints {@code port N}, then answers its standard input; stops at its end. */
  public static void main(String[] args) throws Exception {
    SinkReceiver r = new SinkReceiver();
    PrintWriter out =
        new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    out.println("port " + r.server.getAddress().getPort());
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] words = line.strip().split("\\s+");
      if (words[0].equals("measure") && words.length == 3) {
        r.measure(Long.parseLong(words[1]), Long.parseLong(words[2]));
        out.println("ok");
      } else if (words[0].equals("stats")) {
        out.println(r.stats());
      }
    }
    r.server.stop(0);
    r.threads.shutdownNow();
    System.exit(0);
  }

  /** What {@code stats} answered. */
  record Stats(long received, double p50, double p99, double max, long cpuNanos, long all) {
    static Stats parse(String line) {
      String[] w = line.strip().split(" ");
      return new Stats(
          Long.parseLong(w[1]),
          nan(Double.parseDouble(w[2])),
          nan(Double.parseDouble(w[3])),
          nan(Double.parseDouble(w[4])),
          Long.parseLong(w[5]),
          Long.parseLong(w[6]));
    }

    private static double nan(double v) {
      return v < 0 ? Double.NaN : v;
    }
  }

  /** A receiver in a JVM of its own, started from this JVM's class path. */
  static final class Process implements AutoCloseable {
    private final java.lang.Process process;
    private final BufferedReader out;
    private final PrintWriter in;
    private final int port;

    private Process(java.lang.Process process) throws IOException {
      this.process = process;
      this.out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      this.in =
          new PrintWriter(
              new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
      this.port = Integer.parseInt(reply("port ").substring("port ".length()).strip());
    }

    static Process start() throws IOException {
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      List<String> command = new ArrayList<>();
      command.add(java.toString());
      command.add("-Xmx256m");
      command.add("-XX:+UseSerialGC");
      command.add("-XX:+ExitOnOutOfMemoryError");
      command.addAll(
          List.of("-cp", System.getProperty("java.class.path"), SinkReceiver.class.getName()));
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.redirectError(ProcessBuilder.Redirect.INHERIT);
      return new Process(pb.start());
    }

    private String reply(String prefix) throws IOException {
      String line;
      while ((line = out.readLine()) != null) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      throw new IOException("the receiver's process ended before it said '" + prefix + "'");
    }

    String hostPort() {
      return "127.0.0.1:" + port;
    }

    /**
     * Counts the documents of windows that end from {@code fromMs} until before {@code toMs},
     * forgetting those counted before.
     */
    void measure(long fromMs, long toMs) throws IOException {
      in.println("measure " + fromMs + " " + toMs);
      reply("ok");
    }

    /** What it counted, and its CPU time so far. */
    Stats stats() throws IOException {
      in.println("stats");
      return Stats.parse(reply("stats "));
    }

    @Override
    public void close() {
      in.close(); // its end: the receiver stops
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}

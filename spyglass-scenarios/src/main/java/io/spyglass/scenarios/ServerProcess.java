package io.spyglass.scenarios;

import io.spyglass.engine.EngineConfig;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.sources.GeneratorSource;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A service in a JVM of its own ({@link #main}), on this JVM's class path: its memory is its own,
 * and clients in this process do not share its heap or its collections. Its standard input takes
 * {@code gc} (a full GC, then the heap used, its direct buffers, its live threads and the heap the
 * JVM keeps) and closes it at its end.
 */
public final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final java.io.BufferedReader out;
  private final java.io.PrintWriter in;
  private final int port;

  private ServerProcess(Process process) throws IOException {
    this.process = process;
    this.out =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(
                process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
    this.in =
        new java.io.PrintWriter(
            new java.io.OutputStreamWriter(
                process.getOutputStream(), java.nio.charset.StandardCharsets.UTF_8),
            true);
    String line = reply("port ");
    this.port = Integer.parseInt(line.substring("port ".length()).strip());
  }

  /**
   * Starts a service over the generator at {@code rate} records/s (0: unpaced), taking {@code
   * maxQueries} queries and {@code maxConnections} connections from loopback. {@code shrinkHeap}:
   * after a full GC its heap shrinks to what it holds, so that its resident set says what it holds
   * (the memory part); otherwise the JVM's defaults, as {@code bin/spyglass} runs it (a heap kept
   * that small made the young collections of the fan-out part frequent). {@code compilerQuietMs}:
   * each {@link #gc} first waits until the service's JIT has been quiet that long ({@link
   * CompilerQuiet}; 0: no wait).
   */
  static ServerProcess start(
      long rate,
      int recordBytes,
      int maxQueries,
      int maxConnections,
      boolean shrinkHeap,
      long compilerQuietMs)
      throws IOException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.add("-XX:+UseG1GC");
    if (shrinkHeap) {
      // after a full GC the heap shrinks to what it holds: its resident set is comparable
      command.add("-XX:MinHeapFreeRatio=1");
      command.add("-XX:MaxHeapFreeRatio=10");
    }
    // its memory readings wait for its JIT as the Kafka benches' reads do
    command.add("-D" + CompilerQuiet.PROPERTY + "=" + compilerQuietMs);
    // -Dspyglass.bench.service.jvm='-XX:StartFlightRecording=...' to look inside it
    String more = System.getProperty("spyglass.bench.service.jvm", "").strip();
    if (!more.isEmpty()) {
      command.addAll(List.of(more.split("\\s+")));
    }
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            ServerProcess.class.getName(),
            Long.toString(rate),
            Integer.toString(recordBytes),
            Integer.toString(maxQueries),
            Integer.toString(maxConnections)));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    return new ServerProcess(pb.start());
  }

  private String reply(String prefix) throws IOException {
    String line;
    while ((line = out.readLine()) != null) {
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    throw new IOException("the service process ended before it said '" + prefix + "'");
  }

  InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", port);
  }

  String base() {
    return "http://127.0.0.1:" + port;
  }

  long recordsRead(HttpClient http) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base() + "/api/health")).build(),
            HttpResponse.BodyHandlers.ofString());
    return SseClient.JSON.readTree(r.body()).path("recordsRead").asLong();
  }

  /**
   * Once the service's JIT is quiet (when started with a wait), a full GC in its JVM, then {@code
   * settleMs} for G1 to give the shrunk heap back to the system, then the C library gives back what
   * the JVM freed; the heap it uses after the GC.
   */
  long gc(long settleMs) throws IOException {
    in.println("gc " + settleMs);
    String[] words = reply("heap ").split(" ");
    lastDirect = Long.parseLong(words[3]);
    lastThreads = Integer.parseInt(words[5]);
    lastCommitted = Long.parseLong(words[7]);
    lastRss = Long.parseLong(words[9]);
    return Long.parseLong(words[1]);
  }

  private long lastDirect;
  private int lastThreads;
  private long lastCommitted;
  private long lastRss;

  /**
   * The service's live threads at the last {@link #gc}: the web server's pool grows with the
   * requests in flight and shrinks after a minute idle, and each thread's stack is resident.
   */
  int threads() {
    return lastThreads;
  }

  /** The heap the service's JVM kept (committed) at the last {@link #gc}, used or not. */
  long committedBytes() {
    return lastCommitted;
  }

  /** The bytes of direct and mapped buffers at the last {@link #gc}. */
  long directBytes() {
    return lastDirect;
  }

  /**
   * The service process's resident set after full collections: the least reading over two full GCs
   * (the last {@link #gc} and one more), read by the service every few milliseconds through each
   * one's settling and by this process after it (the pages the service's garbage touches after a
   * collection, and its threads' malloc arenas, swing a single reading by megabytes).
   */
  long settledRssBytes(long settleMs) throws IOException {
    long least = least(lastRss, rssBytes());
    gc(settleMs);
    return Math.min(least, least(lastRss, rssBytes()));
  }

  /** The lesser of two readings of which either may be 0 (unknown). */
  private static long least(long a, long b) {
    return a <= 0 ? b : b <= 0 ? a : Math.min(a, b);
  }

  /** The service process's resident set (Linux), in bytes; 0 where unknown. */
  long rssBytes() throws IOException {
    return rssBytes(Path.of("/proc", Long.toString(process.pid()), "status"));
  }

  @Override
  public void close() throws IOException {
    in.close(); // its end: the service stops
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The service process of {@link ServerProcess}: {@code RATE RECORD_BYTES MAX_QUERIES
   * MAX_CONNECTIONS}. Prints {@code port N}, then answers {@code gc} with {@code heap BYTES direct
   * BYTES threads N committed BYTES rss BYTES}; stops at the end of its standard input.
   */
  public static void main(String[] args) throws Exception {
    long rate = Long.parseLong(args[0]);
    int recordBytes = Integer.parseInt(args[1]);
    int maxQueries = Integer.parseInt(args[2]);
    int maxConnections = Integer.parseInt(args[3]);
    GeneratorSource source =
        new GeneratorSource(
            GeneratorSource.Options.DEFAULTS.withRate(rate).withRecordBytes(recordBytes));
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            source, EngineConfig.defaults().withMaxQueries(maxQueries + 16).withResultQueue(8_192));
    Path data = Files.createTempDirectory("spyglass-bench-service");
    SpyglassService service =
        SpyglassService.start(
            ServiceConfig.defaults()
                .with(
                    b -> {
                      b.port = 0;
                      b.dataDir = data;
                      b.maxQueries = maxQueries;
                      b.maxQueriesPerUser = maxQueries;
                      b.edge =
                          b.edge
                              .withMaxConnectionsPerAddress(maxConnections)
                              .withMaxStreamsPerUser(maxConnections);
                    }),
            runtime);
    System.out.println("port " + service.port());
    System.out.flush();
    java.io.BufferedReader commands =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
    String line;
    int dumps = 0;
    long quietMs = CompilerQuiet.quietMs();
    while ((line = commands.readLine()) != null) {
      // "gc MS": once the JIT is quiet, a full GC, the heap read, then MS for the heap to shrink,
      // then the C library's trim
      if (line.startsWith("gc ")) {
        // a compilation in progress holds its arenas (megabytes for a large method), and what the
        // JIT compiles between two readings is its warming, not the queries'
        CompilerQuiet.await(quietMs);
        System.gc();
        System.gc();
        // the heap the objects hold, read at once: what the service allocates in the next
        // seconds (records, heartbeats) is garbage, not held
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        // G1 gives the shrunk heap back to the system concurrently, and the C library what the
        // JVM freed (compiler arenas, the collector's scratch) when asked, as
        // -XX:TrimNativeHeapInterval does in a service that runs with it: what is resident is
        // then what the process holds, as the heap after a full GC is what its objects hold. The
        // resident set is read every few milliseconds meanwhile and the least reading kept: the
        // records and heartbeats of the next seconds touch fresh pages of the heap (garbage,
        // until the next collection) and their threads' malloc arenas, megabytes that one
        // reading at one moment catches or not
        long settleMs = Long.parseLong(line.substring("gc ".length()).strip());
        StringBuilder series = new StringBuilder();
        long least = Long.MAX_VALUE;
        long start = System.nanoTime();
        long nextTrim = 0;
        while (true) {
          long at = (System.nanoTime() - start) / 1_000_000;
          if (at >= nextTrim) {
            trimNativeHeap();
            nextTrim = at + 250;
          }
          long rss = ownRssBytes();
          series.append(at).append(' ').append(rss).append('\n');
          if (rss > 0) {
            least = Math.min(least, rss);
          }
          if (at >= settleMs) {
            break;
          }
          Thread.sleep(20);
        }
        long direct = 0;
        for (java.lang.management.BufferPoolMXBean b :
            java.lang.management.ManagementFactory.getPlatformMXBeans(
                java.lang.management.BufferPoolMXBean.class)) {
          direct += b.getMemoryUsed();
        }
        int threads = java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        dump(dumps, series);
        dumps++;
        System.out.println(
            "heap "
                + used
                + " direct "
                + direct
                + " threads "
                + threads
                + " committed "
                + rt.totalMemory()
                + " rss "
                + (least == Long.MAX_VALUE ? 0 : least));
        System.out.flush();
      }
    }
    service.shutdown(10_000);
    try (Stream<Path> files = Files.walk(data)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
    System.exit(0);
  }

  /** This process's resident set (Linux), in bytes; 0 where unknown. */
  private static long ownRssBytes() throws IOException {
    return rssBytes(Path.of("/proc/self/status"));
  }

  /** The resident set a {@code /proc/PID/status} file says, in bytes; 0 where unknown. */
  private static long rssBytes(Path status) throws IOException {
    if (!Files.exists(status)) {
      return 0;
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    return 0;
  }

  /**
   * Has the C library give the system back the memory the JVM freed ({@code jcmd PID
   * System.trim_native_heap}); nothing where the JVM cannot (then the resident set also holds what
   * the JVM freed).
   */
  private static void trimNativeHeap() {
    try {
      command(
          java.lang.management.ManagementFactory.getPlatformMBeanServer(),
          new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
          "systemTrimNativeHeap",
          new String[0]);
    } catch (Exception e) {
      // a JVM without the command: the reading as before
    }
  }

  /**
   * With {@code -Dspyglass.bench.service.dump=DIR} (given to the service's JVM through {@code
   * -Dspyglass.bench.service.jvm}): the class histogram of its heap and, when the JVM tracks it
   * ({@code -XX:NativeMemoryTracking=summary}), its native memory summary, and (Linux) its mappings
   * with their resident sizes, written to {@code DIR/histogram-N.txt}, {@code DIR/native-N.txt} and
   * {@code DIR/smaps-N.txt} at its {@code N}th reading, so that two readings can be compared by
   * class, by native category and by mapping.
   */
  private static void dump(int n, CharSequence rssSeries) throws Exception {
    String dir = System.getProperty("spyglass.bench.service.dump", "").strip();
    if (dir.isEmpty()) {
      return;
    }
    javax.management.MBeanServer server =
        java.lang.management.ManagementFactory.getPlatformMBeanServer();
    javax.management.ObjectName dcmd =
        new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand");
    Path to = Path.of(dir);
    Files.createDirectories(to);
    Files.writeString(
        to.resolve("histogram-" + n + ".txt"),
        (String) command(server, dcmd, "gcClassHistogram", new String[0]));
    Files.writeString(
        to.resolve("native-" + n + ".txt"),
        (String) command(server, dcmd, "vmNativeMemory", new String[] {"summary"}));
    Files.writeString(to.resolve("rss-" + n + ".txt"), rssSeries);
    Path smaps = Path.of("/proc/self/smaps");
    if (Files.isReadable(smaps)) {
      Files.write(to.resolve("smaps-" + n + ".txt"), Files.readAllBytes(smaps));
    }
  }

  private static Object command(
      javax.management.MBeanServer server,
      javax.management.ObjectName dcmd,
      String name,
      String[] args)
      throws Exception {
    return server.invoke(dcmd, name, new Object[] {args}, new String[] {String[].class.getName()});
  }
}

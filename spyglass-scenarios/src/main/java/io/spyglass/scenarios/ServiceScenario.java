package io.spyglass.scenarios;

import io.spyglass.core.result.Result;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.QueryHandle;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.sources.GeneratorSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code spyglass bench service}: the engine behind {@code spyglass serve}, driven over loopback
 * HTTP by many clients at once. Five parts: many SSE clients on one windowed query; many
 * simultaneous queries, each from its own connection; the delay from a record's arrival to its SSE
 * event next to the command line's path (a query handle polled in process, as {@code spyglass
 * query} does) on the same records; the engine's record rate with and without the service,
 * alternated; ten thousand idle queries with their streams held, health answering meanwhile, and
 * the service's memory per idle query; and ten thousand windowed queries with a webhook sink each
 * against the same without ({@link SinksPart}).
 */
final class ServiceScenario implements Scenario {
  private static final String FAN_OUT_QUERY =
      "SELECT device, COUNT(*) AS n, AVG(duration) AS d FROM STREAM(MAX, TIME)"
          + " GROUP BY device WINDOWING TUMBLING(1000, TIME)";

  @Override
  public String name() {
    return "service";
  }

  @Override
  public String description() {
    return "spyglass serve over loopback HTTP: SSE fan-out to many clients, many simultaneous"
        + " queries, record -> SSE event delay next to the CLI's path, engine rate with and"
        + " without the service, 10,000 idle streams (health meanwhile, memory per query),"
        + " 10,000 windowed queries with a webhook sink each";
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    // --queries N sets both counts
    int clients = s.queriesOr(List.of(s.quick() ? 50 : 1_000)).get(0);
    int queries = clients;
    report.note(
        String.format(
            "%,d SSE clients, %,d simultaneous queries, %d cores; server and clients share this"
                + " machine (and its cores) over loopback",
            clients, queries, Machine.cores()));
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    // -Dspyglass.bench.service.parts=1,5 runs only those parts (all by default)
    List<String> parts =
        List.of(System.getProperty("spyglass.bench.service.parts", "1,2,3,4,5,6").split(","));
    if (parts.contains("1")) {
      fanOut(s, report, http, clients);
    }
    if (parts.contains("2")) {
      simultaneousQueries(s, report, http, queries);
    }
    if (parts.contains("3")) {
      latency(s, report, http);
    }
    if (parts.contains("4")) {
      rateWithAndWithout(s, report, http, clients);
    }
    if (parts.contains("5")) {
      manyStreams(s, report, http, s.quick() ? 100 : IDLE_STREAMS);
    }
    if (parts.contains("6")) {
      new SinksPart(s, report, http).run();
    }
  }

  /** The idle result streams part 5 holds: one query each. */
  static final int IDLE_STREAMS = 10_000;

  /** A service on the generator, for one part of the run. */
  private record Served(SpyglassService service, GeneratorSource source, Path data, String base)
      implements AutoCloseable {
    static Served start(long rate, int recordBytes, int maxQueries) throws IOException {
      GeneratorSource source =
          new GeneratorSource(
              GeneratorSource.Options.DEFAULTS.withRate(rate).withRecordBytes(recordBytes));
      EmbeddedRuntime runtime =
          EmbeddedRuntime.start(
              source,
              EngineConfig.defaults().withMaxQueries(maxQueries + 16).withResultQueue(8_192));
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
                        // every client is one user on one address: the bench's crowd, not abuse
                        b.edge =
                            b.edge
                                .withMaxConnectionsPerAddress(Math.max(1_024, 2 * maxQueries))
                                .withMaxStreamsPerUser(Math.max(1_024, 2 * maxQueries));
                      }),
              runtime);
      return new Served(service, source, data, "http://127.0.0.1:" + service.port());
    }

    @Override
    public void close() throws IOException {
      service.close();
      try (Stream<Path> files = Files.walk(data)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static String submit(HttpClient http, String base, String bql, boolean detached)
      throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(base + "/api/queries" + (detached ? "?detached=true" : "")))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(bql))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("submit answered " + r.statusCode() + ": " + r.body());
    }
    return SseClient.JSON.readTree(r.body()).get("id").asText();
  }

  private static void kill(HttpClient http, String base, String id)
      throws IOException, InterruptedException {
    http.send(
        HttpRequest.newBuilder(URI.create(base + "/api/queries/" + id)).DELETE().build(),
        HttpResponse.BodyHandlers.discarding());
  }

  /** Opens {@code n} SSE clients on one query; waits until all are connected. */
  private static List<SseClient> connect(HttpClient http, String url, int n)
      throws InterruptedException {
    List<SseClient> out = new ArrayList<>();
    List<CompletableFuture<?>> opened = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      SseClient c = new SseClient(false);
      out.add(c);
      opened.add(c.open(http, url));
    }
    try {
      CompletableFuture.allOf(opened.toArray(new CompletableFuture<?>[0]))
          .get(120, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // counted as problems by the callers through each client's error
    }
    return out;
  }

  private static void awaitEnded(List<SseClient> clients, long timeoutMs) {
    try {
      CompletableFuture.allOf(
              clients.stream().map(SseClient::ended).toArray(CompletableFuture[]::new))
          .get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // the clients that did not end are problems below
    }
  }

  /**
   * Part 1: {@code clients} SSE clients on one windowed query, the service in a process of its own
   * and the clients on one thread ({@link SseSwarm}), so that what is measured is the service's
   * delivery, not the clients' parsing.
   */
  private void fanOut(Settings s, Report report, HttpClient http, int clients) throws Exception {
    report.heading("1. " + clients + " SSE clients on one windowed query");
    long rate = s.rateOr(s.quick() ? 5_000 : 10_000);
    int windows = s.quick() ? 2 : 10;
    try (ServerProcess sv = ServerProcess.start(rate, s.recordBytes(), 64, clients + 64, false, 0);
        SseSwarm swarm = new SseSwarm(sv.address(), "127.0.0.1", null, 256)) {
      String id = submit(http, sv.base(), FAN_OUT_QUERY, true);
      long t0 = System.nanoTime();
      for (int i = 0; i < clients; i++) {
        swarm.open("/api/queries/" + id + "/results");
      }
      if (!swarm.awaitConnected(120_000)) {
        report.problem("only " + swarm.connected() + " of " + clients + " clients connected");
      }
      double connectS = (System.nanoTime() - t0) / 1e9;
      // a few windows unmeasured first: the first ones run while the service's code compiles
      Thread.sleep(s.quick() ? 0 : 5_000);
      long live = System.currentTimeMillis();
      swarm.recordFrom(live);
      long read0 = sv.recordsRead(http);
      Thread.sleep(windows * 1_000L + 500);
      double rps = (sv.recordsRead(http) - read0) / ((System.currentTimeMillis() - live) / 1000.0);
      kill(http, sv.base(), id);
      if (!swarm.await(30_000)) {
        report.problem("not every fan-out stream ended within 30 s of the query's end");
      }
      Delays delay = swarm.delays();
      int problems = 0;
      long events = 0;
      for (SseSwarm.Stream c : swarm.streams()) {
        String p = c.problem();
        if (p != null && problems++ < 5) {
          report.problem("fan-out client: " + p);
        }
        events += c.results;
      }
      Table t =
          new Table(
              "service-fanout",
              clients
                  + " SSE clients on one windowed query (1 result a second), generator at "
                  + Table.count(rate)
                  + " records/s; the service in its own process, the clients on one thread; the"
                  + " windows after the first five",
              "measure",
              "value");
      t.row("clients connected in (s)", Table.num(connectS, 2));
      t.row("results delivered", Table.count(events));
      t.row(
          "clients with every result, in order, to the final one",
          (clients - problems) + " of " + clients);
      t.row("window emitted -> event received, p50 (ms)", Table.num(delay.percentile(50), 0));
      t.row("window emitted -> event received, p99 (ms)", Table.num(delay.percentile(99), 0));
      t.row("window emitted -> event received, max (ms)", Table.num(delay.max(), 0));
      t.row("engine records/s meanwhile", Table.count(rps));
      t.row("machine load (1 min) at the end", Table.num(Machine.loadAverage(), 1));
      report.table(t);
      // each window's own spread: the first ones may pay for compiling, a busy machine for others
      Table w =
          new Table(
              "service-fanout-windows",
              "The same delays window by window (its emission time after the first one measured)",
              "window emitted at (ms)",
              "events",
              "p50 (ms)",
              "p99 (ms)",
              "max (ms)");
      var byEmit = swarm.delaysByEmit();
      long first = byEmit.isEmpty() ? 0 : byEmit.firstKey();
      byEmit.forEach(
          (emit, d) ->
              w.row(
                  Table.count(emit - first),
                  Table.count(d.count()),
                  Table.num(d.percentile(50), 0),
                  Table.num(d.percentile(99), 0),
                  Table.num(d.max(), 0)));
      report.table(w);
    }
  }

  /** Part 2: {@code n} queries submitted at once, each from its own connection, each streamed. */
  private void simultaneousQueries(Settings s, Report report, HttpClient http, int n)
      throws Exception {
    report.heading("2. " + n + " simultaneous queries from " + n + " connections");
    long rate = s.rateOr(s.quick() ? 5_000 : 10_000);
    long durationMs = s.quick() ? 2_000 : 5_000;
    try (Served sv = Served.start(rate, s.recordBytes(), n + 16)) {
      Map<Integer, Long> submitMs = new ConcurrentHashMap<>();
      List<SseClient> cs = new ArrayList<>();
      List<CompletableFuture<?>> all = new ArrayList<>();
      long t0 = System.currentTimeMillis();
      for (int i = 0; i < n; i++) {
        int q = i;
        SseClient c = new SseClient(false);
        cs.add(c);
        String bql =
            "SELECT COUNT(*) AS n FROM STREAM("
                + durationMs
                + ", TIME) WHERE duration > "
                + q
                + " WINDOWING TUMBLING(1000, TIME)";
        long start = System.nanoTime();
        all.add(
            http.sendAsync(
                    HttpRequest.newBuilder(URI.create(sv.base() + "/api/queries"))
                        .header("Content-Type", "text/plain")
                        .POST(HttpRequest.BodyPublishers.ofString(bql))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .thenCompose(
                    r -> {
                      submitMs.put(q, (System.nanoTime() - start) / 1_000_000);
                      if (r.statusCode() != 201) {
                        throw new IllegalStateException("HTTP " + r.statusCode() + " " + r.body());
                      }
                      try {
                        String id = SseClient.JSON.readTree(r.body()).get("id").asText();
                        return c.open(http, sv.base() + "/api/queries/" + id + "/results");
                      } catch (IOException e) {
                        throw new UncheckedIOException(e);
                      }
                    }));
      }
      int failed = 0;
      for (CompletableFuture<?> f : all) {
        try {
          f.get(120, TimeUnit.SECONDS);
        } catch (Exception e) {
          if (failed++ < 5) {
            report.problem("a query was not started: " + e.getMessage());
          }
        }
      }
      long allSubmitted = System.currentTimeMillis() - t0;
      awaitEnded(cs, durationMs + 60_000);
      long allEnded = System.currentTimeMillis() - t0;
      Delays submit = new Delays();
      submitMs.values().forEach(submit::record);
      Delays delivery = new Delays();
      int complete = 0;
      long results = 0;
      for (SseClient c : cs) {
        String p = c.check();
        if (p == null) {
          complete++;
        } else if (failed++ < 5) {
          report.problem("query stream: " + p);
        }
        for (SseClient.Received r : c.received()) {
          results++;
          delivery.record(r.receivedMs() - r.emitMs());
        }
      }
      Table t =
          new Table(
              "service-queries",
              n
                  + " queries of "
                  + durationMs
                  + " ms submitted at once, each streamed on its own"
                  + " connection; generator at "
                  + Table.count(rate)
                  + " records/s",
              "measure",
              "value");
      t.row("all submitted and streaming after (ms)", Table.count(allSubmitted));
      t.row("submit round trip, p50 (ms)", Table.num(submit.percentile(50), 0));
      t.row("submit round trip, p99 (ms)", Table.num(submit.percentile(99), 0));
      t.row("queries with every result to the final one", complete + " of " + n);
      t.row("results delivered", Table.count(results));
      t.row("result emitted -> event received, p50 (ms)", Table.num(delivery.percentile(50), 0));
      t.row("result emitted -> event received, p99 (ms)", Table.num(delivery.percentile(99), 0));
      t.row("all ended after (ms)", Table.count(allEnded));
      report.table(t);
    }
  }

  /** Part 3: record read -> SSE event, next to record read -> handle poll, on the same records. */
  private void latency(Settings s, Report report, HttpClient http) throws Exception {
    report.heading("3. From a record's arrival to its SSE event, next to the command line's path");
    long rate = s.rateOr(s.quick() ? 2_000 : 20_000);
    long probeMs = s.quick() ? 2_000 : 20_000;
    String probe =
        "SELECT _read_ms, probe_seq FROM STREAM("
            + (probeMs + 30_000)
            + ", TIME)"
            + " WHERE id = 'service-probe' WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)";
    try (Served sv = Served.start(rate, s.recordBytes(), 16)) {
      Engine engine = ((EmbeddedRuntime) sv.service().runtime()).engine();
      String id = submit(http, sv.base(), probe, true);
      SseClient sse = new SseClient(true);
      sse.open(http, sv.base() + "/api/queries/" + id + "/results").get(30, TimeUnit.SECONDS);
      QueryHandle direct = engine.submit(probe);
      direct.awaitRunning(30, TimeUnit.SECONDS);
      Map<Long, Long> cliReceived = new ConcurrentHashMap<>();
      Map<Long, Long> readMs = new ConcurrentHashMap<>();
      Thread poller =
          new Thread(
              () -> {
                try {
                  while (true) {
                    boolean done = direct.isDone(); // before the poll: nothing queued is missed
                    Result r = direct.poll(200, TimeUnit.MILLISECONDS);
                    long now = System.currentTimeMillis();
                    if (r == null) {
                      if (done) {
                        return;
                      }
                      continue;
                    }
                    for (Map<String, Object> rec : r.records()) {
                      if (rec.get("probe_seq") instanceof Number seq
                          && rec.get("_read_ms") instanceof Number read) {
                        cliReceived.put(seq.longValue(), now);
                        readMs.put(seq.longValue(), read.longValue());
                      }
                    }
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "bench-cli-path");
      poller.start();
      Thread.sleep(s.warmupMs());
      long end = System.currentTimeMillis() + probeMs;
      long seq = 0;
      while (System.currentTimeMillis() < end) {
        sv.source().insertNeedle(Map.of("id", "service-probe", "probe_seq", seq++));
        Thread.sleep(10);
      }
      Thread.sleep(1_000);
      direct.finish();
      kill(http, sv.base(), id);
      sse.ended().get(30, TimeUnit.SECONDS);
      poller.join(10_000);
      Map<Long, Long> sseReceived = new HashMap<>();
      for (SseClient.Received r : sse.received()) {
        for (var rec : r.records()) {
          if (rec.has("probe_seq")) {
            sseReceived.put(rec.get("probe_seq").asLong(), r.receivedMs());
            readMs.putIfAbsent(rec.get("probe_seq").asLong(), rec.get("_read_ms").asLong());
          }
        }
      }
      Delays viaSse = new Delays();
      Delays viaCli = new Delays();
      Delays extra = new Delays();
      int both = 0;
      for (long i = 0; i < seq; i++) {
        Long a = sseReceived.get(i);
        Long b = cliReceived.get(i);
        Long read = readMs.get(i);
        if (a != null && b != null && read != null) {
          both++;
          viaSse.record(a - read);
          viaCli.record(b - read);
          extra.record(a - b);
        }
      }
      if (both < seq * 0.9) {
        report.problem(both + " of " + seq + " probe records reached both paths");
      }
      Table t =
          new Table(
              "service-latency",
              "Record read -> result received (ms), "
                  + both
                  + " probe records every 10 ms,"
                  + " generator at "
                  + Table.count(rate)
                  + " records/s; both paths see the same"
                  + " records in one run",
              "path",
              "mean",
              "p50",
              "p99",
              "max");
      t.row(LatencyScenario.cat("CLI path (query handle polled in process)", viaCli.cells()));
      t.row(LatencyScenario.cat("service (SSE over loopback HTTP)", viaSse.cells()));
      t.row(LatencyScenario.cat("service minus CLI, per record", extra.cells()));
      report.table(t);
    }
  }

  /** Part 4: the engine's unpaced record rate alone and behind the service, alternated. */
  private void rateWithAndWithout(Settings s, Report report, HttpClient http, int clients)
      throws Exception {
    report.heading("4. The engine's record rate with and without the service");
    int rounds = s.quick() ? 1 : 3;
    List<Object[]> rows = new ArrayList<>();
    double without = 0;
    double with = 0;
    for (int round = 1; round <= rounds; round++) {
      double a = rateWithout(s);
      double b = rateWith(s, http, clients, report);
      without += a;
      with += b;
      rows.add(new Object[] {round, Table.count(a), Table.count(b), Table.num(b / a, 2)});
      report.progress(
          String.format("round %d: %,.0f records/s alone, %,.0f with the service", round, a, b));
    }
    Table t =
        new Table(
            "service-rate",
            "Engine records/s, generator unpaced ("
                + s.recordBytes()
                + " B records), one windowed"
                + " GROUP BY query; with the service its results go to "
                + clients
                + " SSE clients. Rounds alternate; compare within a round",
            "round",
            "engine alone",
            "behind the service",
            "ratio");
    for (Object[] r : rows) {
      t.row(r);
    }
    t.row(
        "mean",
        Table.count(without / rounds),
        Table.count(with / rounds),
        Table.num(with / without, 2));
    report.table(t);
  }

  private double rateWithout(Settings s) throws Exception {
    GeneratorSource source =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRecordBytes(s.recordBytes()));
    try (Engine engine = Engine.start(source, EngineConfig.defaults())) {
      QueryHandle h = engine.submit(FAN_OUT_QUERY);
      Thread drain =
          new Thread(
              () -> {
                try {
                  while (!h.isDone() || h.poll(0, TimeUnit.MILLISECONDS) != null) {
                    h.poll(100, TimeUnit.MILLISECONDS);
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "bench-drain");
      drain.setDaemon(true);
      drain.start();
      return measureRate(s, () -> engine.metrics().recordsProcessed());
    }
  }

  private double rateWith(Settings s, HttpClient http, int clients, Report report)
      throws Exception {
    try (Served sv = Served.start(0, s.recordBytes(), 64)) {
      String id = submit(http, sv.base(), FAN_OUT_QUERY, true);
      List<SseClient> cs = connect(http, sv.base() + "/api/queries/" + id + "/results", clients);
      EmbeddedRuntime rt = (EmbeddedRuntime) sv.service().runtime();
      double rate = measureRate(s, () -> rt.engine().metrics().recordsProcessed());
      kill(http, sv.base(), id);
      awaitEnded(cs, 30_000);
      long bad = cs.stream().filter(c -> c.check() != null).count();
      if (bad > 0) {
        report.problem(bad + " SSE clients did not get every result in the rate run");
      }
      return rate;
    }
  }

  private static double measureRate(Settings s, java.util.function.LongSupplier processed)
      throws InterruptedException {
    Thread.sleep(s.warmupMs());
    long n0 = processed.getAsLong();
    long t0 = System.nanoTime();
    // rounds of 5 s at least: the alternated rates are compared round by round
    Thread.sleep(s.quick() ? s.probeMs() : Math.max(5_000, s.probeMs()));
    return (processed.getAsLong() - n0) / ((System.nanoTime() - t0) / 1e9);
  }

  /**
   * Part 5: {@code n} idle queries, each with its SSE stream open, held by a service in a process
   * of its own: {@code GET /api/health} answering meanwhile (through the streams' heartbeats), and
   * the service's memory per idle query with its stream, from its resident set as they are added:
   * read with half of them (once two readings in a row, no query added between them, agree within
   * {@link #STEADY_BYTES}), then after each of five equal steps up to all of them, and the growth a
   * query fitted (least squares) to the five readings after the steps, each of which follows the
   * same work. Each reading is taken once the service's JIT is quiet, after a full GC, the heap
   * shrunk to what it holds, and the C library given back what the JVM freed: the least resident
   * set the service saw through two full GCs' settling. What the first ones grow once (compiled
   * code, the thread pool, buffer pools), what a young JVM grows whatever it holds and the free
   * heap the collector keeps after the first burst of work are in the first readings, not in the
   * growth; a single reading still swings by megabytes (the pages the collector happens to have
   * touched, the C library's arenas), which the fit over five spreads.
   */
  private void manyStreams(Settings s, Report report, HttpClient http, int n) throws Exception {
    report.heading("5. " + Table.count(n) + " idle queries, each with its SSE stream");
    long probeMs = s.quick() ? 1_000 : 25_000;
    // how long each full GC lets G1 give the shrunk heap back before its reading: quick runs
    // (a check of the tooling) read at once
    long settleMs = s.quick() ? 200 : 3_000;
    // each reading once the service's JIT is quiet (quick runs, a check of the tooling, at once)
    long quietMs = s.quick() ? 0 : CompilerQuiet.quietMs();
    try (ServerProcess sv =
            ServerProcess.start(1_000, s.recordBytes(), n + 64, 2 * n + 256, true, quietMs);
        SseSwarm swarm = new SseSwarm(sv.address(), "127.0.0.1", null, 256)) {
      int first = n / 2;
      int steps = 5;
      List<String> ids = new ArrayList<>();
      List<MemoryReading> readings = new ArrayList<>();
      List<MemoryReading> settling = new ArrayList<>();
      double submitS = 0;
      double connectS = 0;
      boolean all = true;
      for (int step = 0; step <= steps; step++) {
        int upTo = first + (int) ((long) (n - first) * step / steps);
        long t0 = System.nanoTime();
        List<String> more = submitIdle(http, sv.base(), "idle-" + step, upTo - ids.size());
        submitS += (System.nanoTime() - t0) / 1e9;
        long t1 = System.nanoTime();
        for (String id : more) {
          swarm.open("/api/queries/" + id + "/results");
        }
        all &= swarm.awaitConnected(300_000);
        connectS += (System.nanoTime() - t1) / 1e9;
        ids.addAll(more);
        Thread.sleep(1_000);
        MemoryReading m = MemoryReading.read(sv, ids.size(), settleMs);
        // the first reading once the resident set stopped growing with no query added: a JVM's
        // first minutes grow it by megabytes a reading whatever it holds (its collector's and
        // compiler's own memory), which would count as the queries' in the growth
        for (int i = 0; step == 0 && !s.quick() && i < MAX_SETTLING_READINGS; i++) {
          settling.add(m);
          MemoryReading again = MemoryReading.read(sv, ids.size(), settleMs);
          boolean steady = Math.abs(again.rss() - m.rss()) <= STEADY_BYTES;
          m = again;
          if (steady) {
            break;
          }
        }
        readings.add(m);
      }
      MemoryReading r0 = readings.get(0);
      MemoryReading r1 = readings.get(readings.size() - 1);
      // the growth is fitted to the readings after the steps, each of which follows the same work
      // (a step's submissions and streams): the collector keeps more of the heap it had free after
      // such a burst than after the quiet before the first reading (7.8 MiB more resident heap for
      // 2.8 MiB more objects at the first step, then about 1.2 for 1), which the first step would
      // count as its queries'
      List<MemoryReading> fitted = readings.subList(1, readings.size());
      int open = 0;
      for (SseSwarm.Stream st : swarm.streams()) {
        if (st.status == 200 && !st.ended) {
          open++;
        }
      }
      if (!all || open < n) {
        report.problem(open + " of " + n + " streams open (" + swarm.connected() + " answered)");
      }

      // health while they are held, through at least two rounds of heartbeats (every 10 s)
      Delays health = new Delays();
      int unhealthy = 0;
      long end = System.currentTimeMillis() + probeMs;
      while (System.currentTimeMillis() < end) {
        long a = System.nanoTime();
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(sv.base() + "/api/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        health.record((System.nanoTime() - a) / 1_000_000);
        if (r.statusCode() != 200) {
          unhealthy++;
        }
        Thread.sleep(50);
      }
      int stillOpen = 0;
      for (SseSwarm.Stream st : swarm.streams()) {
        if (st.status == 200 && !st.ended) {
          stillOpen++;
        }
      }
      Table t =
          new Table(
              "service-streams",
              Table.count(n)
                  + " idle STREAM(FOREVER) queries, each with one SSE stream, held by a service in"
                  + " its own process (generator at 1,000 records/s); GET /api/health every 50 ms"
                  + " for "
                  + probeMs / 1000
                  + " s meanwhile",
              "measure",
              "value");
      t.row("queries submitted in (s)", Table.num(submitS, 1));
      t.row("streams opened in (s)", Table.num(connectS, 1));
      t.row("streams open at the end", Table.count(stillOpen) + " of " + Table.count(n));
      t.row("GET /api/health, p50 (ms)", Table.num(health.percentile(50), 0));
      t.row("GET /api/health, p99 (ms)", Table.num(health.percentile(99), 0));
      t.row("GET /api/health, max (ms)", Table.num(health.max(), 0));
      t.row("GET /api/health not 200", Integer.toString(unhealthy));
      // the heap kept is steadier than the resident figure: the collector has not touched all the
      // heap it keeps at a reading, and how much of it differs from run to run
      // (docs/performance.md)
      Map<String, java.util.function.ToLongFunction<MemoryReading>> growths = new LinkedHashMap<>();
      growths.put(
          "service memory per idle query with its stream, resident set (bytes)",
          MemoryReading::rss);
      growths.put("of which heap after a full GC (bytes)", MemoryReading::heap);
      growths.put("service heap kept (committed) per idle query (bytes)", MemoryReading::committed);
      growths.put("of which direct buffers (bytes)", MemoryReading::direct);
      growths.forEach((name, what) -> t.row(name, Table.count(MemoryReading.growth(fitted, what))));
      // the figure as the first and the last reading alone give it, half of them and all (how
      // the part read it before): how much one pair of readings swings
      t.row(
          "the same from half of them and all alone (bytes)",
          Table.count((r1.rss() - r0.rss()) / (double) (r1.queries() - r0.queries())));
      t.row(
          "service resident set at each reading, "
              + Table.count(r0.queries())
              + " to "
              + Table.count(r1.queries())
              + " queries (MiB)",
          readings.stream()
              .map(m -> Table.count(m.rss() / 1048576.0))
              .collect(java.util.stream.Collectors.joining(", ")));
      t.row(
          "service resident set before the first reading, with no query added (MiB)",
          settling.isEmpty()
              ? "none"
              : settling.stream()
                  .map(m -> Table.count(m.rss() / 1048576.0))
                  .collect(java.util.stream.Collectors.joining(", ")));
      // what the resident set holds besides the objects: the heap the JVM keeps free, and the
      // stacks of the web server's threads (its pool grows with the requests in flight)
      t.row(
          "service heap kept (committed) at the first reading, at the last (MiB)",
          Table.count(r0.committed() / 1048576.0) + ", " + Table.count(r1.committed() / 1048576.0));
      t.row(
          "service threads at the first reading, at the last", r0.threads() + ", " + r1.threads());
      t.row("machine load (1 min) at the end", Table.num(Machine.loadAverage(), 1));
      report.table(t);
      for (String id : ids) {
        kill(http, sv.base(), id);
      }
      swarm.await(60_000);
    }
  }

  /**
   * Part 5's first reading is taken once two readings in a row, with no query added between them,
   * differ by at most this (at most {@link #MAX_SETTLING_READINGS} before it).
   */
  private static final long STEADY_BYTES = 1L << 20;

  private static final int MAX_SETTLING_READINGS = 8;

  /** One reading of part 5: the service's memory with {@code queries} idle queries held. */
  record MemoryReading(int queries, long rss, long heap, long committed, long direct, int threads) {
    /** Reads {@code sv}'s memory ({@link ServerProcess#gc}, then its settled resident set). */
    static MemoryReading read(ServerProcess sv, int queries, long settleMs) throws IOException {
      long heap = sv.gc(settleMs);
      long rss = sv.settledRssBytes(settleMs);
      return new MemoryReading(
          queries, rss, heap, sv.committedBytes(), sv.directBytes(), sv.threads());
    }

    /**
     * The growth a query of {@code what} over {@code readings}: the slope of the least-squares line
     * through them (NaN with fewer than two distinct counts).
     */
    static double growth(
        List<MemoryReading> readings, java.util.function.ToLongFunction<MemoryReading> what) {
      double mx = readings.stream().mapToDouble(MemoryReading::queries).average().orElse(0);
      double my = readings.stream().mapToDouble(what::applyAsLong).average().orElse(0);
      double sxy = 0;
      double sxx = 0;
      for (MemoryReading m : readings) {
        sxy += (m.queries() - mx) * (what.applyAsLong(m) - my);
        sxx += (m.queries() - mx) * (m.queries() - mx);
      }
      return sxx == 0 ? Double.NaN : sxy / sxx;
    }
  }

  /** Submits {@code n} idle queries (a rare id: the query index routes them no record). */
  private static List<String> submitIdle(HttpClient http, String base, String tag, int n)
      throws Exception {
    List<CompletableFuture<String>> all = new ArrayList<>();
    java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(16);
    for (int i = 0; i < n; i++) {
      inFlight.acquire();
      String bql =
          "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'bench-" + tag + "-" + i + "'";
      all.add(
          http.sendAsync(
                  HttpRequest.newBuilder(URI.create(base + "/api/queries"))
                      .header("Content-Type", "text/plain")
                      .POST(HttpRequest.BodyPublishers.ofString(bql))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .whenComplete((r, t) -> inFlight.release())
              .thenApply(
                  r -> {
                    if (r.statusCode() != 201) {
                      throw new IllegalStateException(
                          "submit answered " + r.statusCode() + ": " + r.body());
                    }
                    try {
                      return SseClient.JSON.readTree(r.body()).get("id").asText();
                    } catch (IOException e) {
                      throw new UncheckedIOException(e);
                    }
                  }));
    }
    List<String> ids = new ArrayList<>();
    for (CompletableFuture<String> f : all) {
      ids.add(f.get(120, TimeUnit.SECONDS));
    }
    return ids;
  }
}

package io.spyglass.scenarios;

import io.spyglass.bullet.BulletReferee;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.Query;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.sources.EventGenerator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Spyglass and Bullet's released engine (bullet-core 1.5.2, bullet-bql 1.3.2, in a class loader of
 * its own) side by side in one JVM: the same generated records, the same BQL, one thread each, runs
 * alternated in pairs so that both see the machine in the same state. Records/s per CPU-second of
 * the measuring thread and per wall second; the median of the pairs and their spread.
 *
 * <p>Inputs: a pool of 256 records built before the runs (in cache), a large pool (out of cache),
 * and JSON bytes (each engine reads them into its own records: Spyglass through {@link
 * FilterSet#read}, Bullet by Jackson into a map and then its typed record). Spyglass runs its
 * filter side ({@link FilterSet}: index, evaluation, partial aggregation); Bullet its {@code
 * QueryManager} (its partitioner where a workload enables it) and {@code Querier}s. Neither merges
 * or emits results here.
 */
final class VersusBulletScenario implements Scenario {
  private static final int BATCH = 256;
  private static final int SMALL_POOL = 256;
  private static final int NEEDLE_EVERY = 1_000;
  private static final long NOW_MS = 1_700_000_000_000L;

  /** Heap a record takes in both pools (Spyglass about 8 KB, Bullet about 3.6 KB), with room. */
  private static final long POOL_BYTES_PER_RECORD = 13_000;

  enum Workload {
    NEEDLES("equality queries on id, 1 record in 1,000 a match (Bullet: equality partitioner)"),
    GROUP_BY(
        "GROUP BY device, os_name (96 groups), COUNT, SUM, AVG",
        "SELECT device, os_name, COUNT(*) AS n, SUM(duration) AS total, AVG(duration) AS mean"
            + " FROM STREAM(MAX, TIME) GROUP BY device, os_name"),
    COUNT_DISTINCT(
        "COUNT DISTINCT ip_address",
        "SELECT COUNT(DISTINCT ip_address) AS ips FROM STREAM(MAX, TIME)"),
    QUANTILE(
        "QUANTILE of duration, 11 points",
        "SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(MAX, TIME)"),
    TOP_K(
        "TOP 10 of browser_name, os_name",
        "SELECT TOP(10, browser_name, os_name) AS n FROM STREAM(MAX, TIME)"),
    GROUP_BY_100("100 identical GROUP BY queries (as GROUP BY above)"),
    RLIKE_100("100 RLIKE queries on browser_name, matching nothing"),
    RANGE_100("100 range queries duration > k, about 0.2% of records each");

    final String label;
    final String bql;

    /** The name on the command line ({@code --workloads}): {@code group-by-100}. */
    String cli() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    Workload(String label) {
      this(label, null);
    }

    Workload(String label, String bql) {
      this.label = label;
      this.bql = bql;
    }
  }

  enum Input {
    SMALL_POOL("pool of 256 records"),
    LARGE_POOL("large pool"),
    JSON("JSON bytes");

    final String label;

    Input(String label) {
      this.label = label;
    }

    String cli() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /** The workloads' names, for the help text. */
  static final class WorkloadNames extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    WorkloadNames() {
      for (Workload w : Workload.values()) {
        add(w.cli());
      }
    }
  }

  /** The values of {@code E} named in {@code names} (all when empty); an unknown name throws. */
  private static <E extends Enum<E>> List<E> chosen(
      List<String> names, E[] values, java.util.function.Function<E, String> cli) {
    if (names.isEmpty()) {
      return List.of(values);
    }
    List<E> out = new ArrayList<>();
    for (String name : names) {
      E found = null;
      for (E v : values) {
        if (cli.apply(v).equals(name.strip())) {
          found = v;
        }
      }
      if (found == null) {
        List<String> known = new ArrayList<>();
        for (E v : values) {
          known.add(cli.apply(v));
        }
        throw new IllegalArgumentException(
            "Unknown name " + name + "; one of " + String.join(", ", known));
      }
      out.add(found);
    }
    return out;
  }

  @Override
  public String name() {
    return "versus-bullet";
  }

  @Override
  public String description() {
    return "Spyglass against bullet-core 1.5.2 in one JVM: same records, same BQL, one thread,"
        + " alternated pairs; records/s per CPU-second and per wall second";
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    long runMs = s.quick() ? 50 : s.full() ? 2_000 : 1_000;
    long warmMs = s.quick() ? 50 : s.full() ? 3_000 : 2_000;
    List<Workload> chosenWorkloads = chosen(s.workloads(), Workload.values(), Workload::cli);
    List<Input> inputs = chosen(s.inputs(), Input.values(), Input::cli);
    int needleQueries = s.queriesOr(List.of(s.quick() ? 500 : 10_000)).get(0);
    int jsonWanted = s.quick() ? 4_096 : 100_096;
    // without the large pool, only the records of the others are built
    int large =
        inputs.contains(Input.LARGE_POOL)
            ? largePool(s, report)
            : Math.max(SMALL_POOL, inputs.contains(Input.JSON) ? jsonWanted : SMALL_POOL);
    int jsonRecords = Math.min(large, jsonWanted);
    report.note(
        String.format(
            "%d pairs per comparison, %,d ms per run after %,d ms unmeasured; pools of %d and %,d"
                + " records, JSON cycled over %,d records (about %d B each); %,d needle queries",
            s.pairs(),
            runMs,
            warmMs,
            SMALL_POOL,
            large,
            jsonRecords,
            s.recordBytes(),
            needleQueries));

    report.progress("generating and building " + large + " records for each engine");
    Data data = new Data(s.recordBytes(), large, jsonRecords, needleQueries);
    BulletReferee plain = BulletReferee.load();
    BulletReferee partitioned =
        BulletReferee.load(
            Map.of(
                "bullet.query.partitioner.enable",
                true,
                "bullet.query.partitioner.equality.fields",
                List.of("id")));

    Table summary =
        new Table(
            "versus-bullet",
            String.format(
                "Records/s on one thread, Spyglass and Bullet on the same records and queries:"
                    + " median of %d alternated pairs (min-max)",
                s.pairs()),
            "workload",
            "input",
            "Spyglass / CPU-s",
            "Bullet / CPU-s",
            "ratio (CPU)",
            "Spyglass / s",
            "Bullet / s",
            "ratio (wall)",
            "Spyglass parsing first / CPU-s");
    Table runs =
        new Table(
            "versus-bullet-runs",
            "Every measured run",
            "workload",
            "input",
            "pair",
            "engine",
            "records",
            "cpu_ns",
            "wall_ns");

    // one Bullet pool in memory at a time: the needles' engine (with the partitioner) first
    for (BulletReferee bullet : List.of(partitioned, plain)) {
      List<Workload> workloads = new ArrayList<>();
      for (Workload w : Workload.values()) {
        if ((w == Workload.NEEDLES) == (bullet == partitioned)) {
          workloads.add(w);
        }
      }
      workloads.retainAll(chosenWorkloads);
      if (workloads.isEmpty()) {
        continue;
      }
      try (BulletReferee.RecordPool smallPool = bullet.pool(data.maps(0, SMALL_POOL));
          BulletReferee.RecordPool largePool =
              inputs.contains(Input.LARGE_POOL) ? data.bulletPool(bullet) : null) {
        for (Workload w : workloads) {
          compare(
              w, inputs, bullet, smallPool, largePool, data, s, runMs, warmMs, report, summary,
              runs);
        }
      }
    }
    report.table(summary);
    report.csv(runs);
  }

  /** One workload on every input, both engines, alternated pairs. */
  private static void compare(
      Workload w,
      List<Input> inputs,
      BulletReferee bullet,
      BulletReferee.RecordPool smallPool,
      BulletReferee.RecordPool largePool,
      Data data,
      Settings s,
      long runMs,
      long warmMs,
      Report report,
      Table summary,
      Table runs)
      throws MalformedRecordException {
    Map<String, String> queries = queries(w, data);
    BulletReferee.Queries bulletQueries = bullet.open(queries);
    if (!bulletQueries.rejected().isEmpty()) {
      report.problem(w + ": Bullet rejected " + bulletQueries.rejected());
    }
    FilterSet filters = new FilterSet(QueryLimits.DEFAULTS, () -> NOW_MS, (q, p) -> {});
    for (Map.Entry<String, String> q : queries.entrySet()) {
      filters.add(Query.parse(q.getKey(), q.getValue(), QueryLimits.DEFAULTS, NOW_MS));
    }
    for (Input in : inputs) {
      String inputLabel =
          switch (in) {
            case SMALL_POOL -> in.label;
            case LARGE_POOL -> String.format("pool of %,d records", data.records.length);
            default -> String.format("JSON bytes (%,d records cycled)", data.json.size());
          };
      report.progress(w + " on " + inputLabel);
      List<Engine> engines = new ArrayList<>();
      switch (in) {
        case SMALL_POOL -> {
          engines.add(new SpyglassPool(filters, Arrays.copyOf(data.records, SMALL_POOL)));
          engines.add(new BulletPool(bulletQueries, smallPool));
        }
        case LARGE_POOL -> {
          engines.add(new SpyglassPool(filters, data.records));
          engines.add(new BulletPool(bulletQueries, largePool));
        }
        default -> {
          engines.add(new SpyglassJson(filters, data.json));
          engines.add(new BulletJson(bulletQueries, data.json));
          engines.add(new SpyglassParsingFirst(filters, data.json));
        }
      }
      List<List<Measured>> byEngine = new ArrayList<>();
      for (Engine e : engines) {
        measure(e, warmMs);
        byEngine.add(new ArrayList<>());
      }
      for (int pair = 0; pair < s.pairs(); pair++) {
        for (int k = 0; k < engines.size(); k++) {
          int e = pair % 2 == 0 ? k : engines.size() - 1 - k;
          Measured m = measure(engines.get(e), runMs);
          byEngine.get(e).add(m);
          runs.row(w, in, pair, engines.get(e).name(), m.records, m.cpuNs, m.wallNs);
        }
      }
      summary.row(row(w, inputLabel, byEngine));
    }
    bulletQueries.finish();
    long matched = 0;
    for (String id : queries.keySet()) {
      matched += filters.stats(id).matched();
    }
    if (w == Workload.NEEDLES && matched == 0) {
      report.problem("no needle query matched a record");
    }
  }

  private static Object[] row(Workload w, String input, List<List<Measured>> byEngine) {
    Stats sCpu = Stats.of(byEngine.get(0), true);
    Stats bCpu = Stats.of(byEngine.get(1), true);
    Stats sWall = Stats.of(byEngine.get(0), false);
    Stats bWall = Stats.of(byEngine.get(1), false);
    String first = byEngine.size() > 2 ? Stats.of(byEngine.get(2), true).cell() : "";
    return new Object[] {
      w.label,
      input,
      sCpu.cell(),
      bCpu.cell(),
      Table.num(sCpu.median / bCpu.median, 1) + "x",
      sWall.cell(),
      bWall.cell(),
      Table.num(sWall.median / bWall.median, 1) + "x",
      first
    };
  }

  /** The median and range of records/s over runs, per CPU-second or per wall second. */
  private record Stats(double median, double min, double max) {
    static Stats of(List<Measured> runs, boolean cpu) {
      double[] rates =
          runs.stream().mapToDouble(m -> m.records * 1e9 / (cpu ? m.cpuNs : m.wallNs)).toArray();
      Arrays.sort(rates);
      int n = rates.length;
      double median = n % 2 == 1 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
      return new Stats(median, rates[0], rates[n - 1]);
    }

    String cell() {
      return Table.count(median) + " (" + Table.count(min) + "-" + Table.count(max) + ")";
    }
  }

  /** The query texts of a workload, by id. */
  private static Map<String, String> queries(Workload w, Data data) {
    Map<String, String> out = new LinkedHashMap<>();
    switch (w) {
      case NEEDLES -> {
        for (int i = 0; i < data.needles.length; i++) {
          out.put(
              "n" + i,
              "SELECT * FROM STREAM(MAX, TIME) WHERE id = '" + data.needles[i] + "' LIMIT 10");
        }
      }
      case GROUP_BY_100 -> {
        for (int i = 0; i < 100; i++) {
          out.put("g" + i, Workload.GROUP_BY.bql);
        }
      }
      case RLIKE_100 -> {
        String[] browsers = {"chrome", "safari", "edge", "firefox", "opera"};
        for (int i = 0; i < 100; i++) {
          out.put(
              "r" + i,
              "SELECT * FROM STREAM(MAX, TIME) WHERE browser_name RLIKE '^"
                  + browsers[i % browsers.length]
                  + "-"
                  + i
                  + "$' LIMIT 10");
        }
      }
      case RANGE_100 -> {
        for (int i = 0; i < 100; i++) {
          out.put(
              "d" + i,
              "SELECT * FROM STREAM(MAX, TIME) WHERE duration > "
                  + (5_000_000 + 10_000 * i)
                  + " LIMIT 10");
        }
      }
      default -> out.put("q", w.bql);
    }
    return out;
  }

  /** The large pool's size: as asked, or as many as the heap holds with room to spare. */
  private static int largePool(Settings s, Report report) {
    long room = Runtime.getRuntime().maxMemory() - (1L << 30) - 200L * s.recordBytes() * 1_000;
    int fits =
        (int) Math.max(SMALL_POOL, Math.min(Integer.MAX_VALUE, room / POOL_BYTES_PER_RECORD));
    int n = Math.max(SMALL_POOL, Math.min(s.poolRecords(), fits));
    if (n < s.poolRecords()) {
      report.note(
          String.format(
              "The heap holds %,d pooled records, not %,d: run with a larger -Xmx"
                  + " (SPYGLASS_JAVA_OPTS=-Xmx16g for 1,000,000).",
              n, s.poolRecords()));
    }
    return n - n % BATCH;
  }

  // ------------------------------------------------------------------ data

  /**
   * The generated records: as JSON, as Spyglass records (every field) and, on demand, as plain maps
   * for Bullet. One record in {@value #NEEDLE_EVERY} carries a needle query's id.
   */
  private static final class Data {
    final String[] needles;
    final Record[] records;
    final List<byte[]> json;

    Data(int recordBytes, int count, int jsonCount, int needleQueries) {
      needles = new String[needleQueries];
      EventGenerator ids = new EventGenerator(99, 64);
      for (int i = 0; i < needles.length; i++) {
        int len = ids.next(NOW_MS);
        String record = new String(ids.buffer(), 0, len, java.nio.charset.StandardCharsets.UTF_8);
        needles[i] = record.substring(7, 20); // {"id":"<13 characters>"
      }
      EventGenerator g = new EventGenerator(42, recordBytes);
      JsonRecordReader reader = new JsonRecordReader();
      records = new Record[count];
      json = new ArrayList<>(jsonCount);
      try {
        for (int i = 0; i < count; i++) {
          long time = NOW_MS + 10L * i;
          int len =
              i % NEEDLE_EVERY == 0
                  ? g.next(time, Map.of("id", needles[(i / NEEDLE_EVERY) % needles.length]))
                  : g.next(time);
          records[i] = new Record(48);
          reader.read(g.buffer(), 0, len, records[i]);
          if (i < jsonCount) {
            json.add(Arrays.copyOf(g.buffer(), len));
          }
        }
      } catch (MalformedRecordException e) {
        throw new IllegalStateException("generated records must be well formed", e);
      }
    }

    List<Map<String, Object>> maps(int from, int to) {
      List<Map<String, Object>> out = new ArrayList<>(to - from);
      for (int i = from; i < to; i++) {
        out.add(records[i].toMap());
      }
      return out;
    }

    /** Bullet's records of the whole pool, built a chunk at a time. */
    BulletReferee.RecordPool bulletPool(BulletReferee bullet) {
      int chunk = 10_000;
      BulletReferee.RecordPool pool = bullet.pool(maps(0, Math.min(chunk, records.length)));
      for (int from = chunk; from < records.length; from += chunk) {
        pool.add(maps(from, Math.min(from + chunk, records.length)));
      }
      return pool;
    }
  }

  // ------------------------------------------------------------------ engines and runs

  private record Measured(long records, long cpuNs, long wallNs) {}

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /** Feeds the engine batches for {@code ms} on this thread. */
  private static Measured measure(Engine e, long ms) throws MalformedRecordException {
    long cpu = THREADS.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    long deadline = start + ms * 1_000_000;
    long n = 0;
    long now;
    do {
      e.batch();
      n += BATCH;
      now = System.nanoTime();
    } while (now < deadline);
    return new Measured(n, THREADS.getCurrentThreadCpuTime() - cpu, now - start);
  }

  /** One engine on one input: each call hands it the next {@link #BATCH} records. */
  private interface Engine {
    String name();

    void batch() throws MalformedRecordException;
  }

  private static final class SpyglassPool implements Engine {
    private final FilterSet filters;
    private final Record[] pool;
    private int next;

    SpyglassPool(FilterSet filters, Record[] pool) {
      this.filters = filters;
      this.pool = pool;
    }

    @Override
    public String name() {
      return "spyglass";
    }

    @Override
    public void batch() {
      for (int i = 0; i < BATCH; i++) {
        filters.process(pool[next]);
        next = next + 1 == pool.length ? 0 : next + 1;
      }
      filters.endOfBatch();
    }
  }

  private static final class SpyglassJson implements Engine {
    private final FilterSet filters;
    private final List<byte[]> json;
    private final Record record = new Record(48);
    private int next;

    SpyglassJson(FilterSet filters, List<byte[]> json) {
      this.filters = filters;
      this.json = json;
    }

    @Override
    public String name() {
      return "spyglass";
    }

    @Override
    public void batch() throws MalformedRecordException {
      for (int i = 0; i < BATCH; i++) {
        byte[] b = json.get(next);
        next = next + 1 == json.size() ? 0 : next + 1;
        if (filters.read(b, 0, b.length, record)) {
          filters.process(record);
        }
      }
      filters.endOfBatch();
    }
  }

  /** Spyglass as its workers read before {@link FilterSet#read}: Jackson first, then filter. */
  private static final class SpyglassParsingFirst implements Engine {
    private final FilterSet filters;
    private final List<byte[]> json;
    private final JsonRecordReader reader = new JsonRecordReader();
    private final Record record = new Record(48);
    private int next;

    SpyglassParsingFirst(FilterSet filters, List<byte[]> json) {
      this.filters = filters;
      this.json = json;
    }

    @Override
    public String name() {
      return "spyglass-parsing-first";
    }

    @Override
    public void batch() throws MalformedRecordException {
      reader.select(filters.referencedFields());
      for (int i = 0; i < BATCH; i++) {
        byte[] b = json.get(next);
        next = next + 1 == json.size() ? 0 : next + 1;
        reader.read(b, 0, b.length, record);
        filters.process(record);
      }
      filters.endOfBatch();
    }
  }

  private static final class BulletPool implements Engine {
    private final BulletReferee.Queries queries;
    private final BulletReferee.RecordPool pool;
    private int next;

    BulletPool(BulletReferee.Queries queries, BulletReferee.RecordPool pool) {
      this.queries = queries;
      this.pool = pool;
    }

    @Override
    public String name() {
      return "bullet";
    }

    @Override
    public void batch() {
      queries.consume(pool, next, BATCH);
      next = (next + BATCH) % pool.size();
    }
  }

  private static final class BulletJson implements Engine {
    private final BulletReferee.Queries queries;
    private final List<byte[]> json;
    private int next;

    BulletJson(BulletReferee.Queries queries, List<byte[]> json) {
      this.queries = queries;
      this.json = json;
    }

    @Override
    public String name() {
      return "bullet";
    }

    @Override
    public void batch() {
      queries.consumeJson(json.subList(next, next + BATCH));
      next = next + BATCH >= json.size() ? 0 : next + BATCH;
    }
  }
}

package io.spyglass.bullet;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Yahoo's Bullet (bullet-core 1.5.2, bullet-bql 1.3.2, bullet-record 1.2.2), run as a referee.
 * Bullet and its dependencies (ANTLR 4.6 among them, which cannot share a class loader with
 * Spyglass's ANTLR 4.13) ship inside this module as resources; {@link #load} extracts them to a
 * temporary directory once per JVM and loads them in a class loader of their own whose parent is
 * the platform class loader. Everything crosses that boundary as JDK types: strings, maps, lists,
 * numbers, booleans.
 *
 * <p>Bullet's queries run on the wall clock: give them long durations ({@code STREAM(MAX, TIME)} or
 * minutes) so that only the records and {@link #run}'s explicit finish end them. Record windows and
 * windowless queries are then deterministic; time windows are not.
 *
 * <p>Records are plain maps as a JSON parser gives them. Bullet's records are typed: maps and lists
 * must hold one kind of primitive (or maps of one kind), nested at most one level; a value of
 * another shape has no Bullet type and is left out of Bullet's record. JSON integers are LONGs and
 * decimals DOUBLEs, as in Spyglass.
 *
 * <p>Not thread-safe: use one referee per thread.
 */
public final class BulletReferee {
  private static final String BUNDLE = "/io/spyglass/bullet/bundle/";
  private static final String RUNNER = "io.spyglass.bullet.runner.BulletRunner";
  private static ClassLoader loader;

  private final Function<Map<String, Object>, Map<String, Object>> runner;

  private BulletReferee(Function<Map<String, Object>, Map<String, Object>> runner) {
    this.runner = runner;
  }

  /** A referee with Bullet's default settings (its rate limit off). */
  public static BulletReferee load() {
    return load(Map.of());
  }

  /**
   * A referee with Bullet settings over its defaults, e.g. {@code
   * bullet.query.aggregation.raw.max.size}.
   *
   * @throws IllegalStateException if the bundled Bullet cannot be found or loaded
   */
  public static BulletReferee load(Map<String, Object> settings) {
    try {
      Class<?> type = Class.forName(RUNNER, true, classLoader());
      Object runner = type.getConstructor(Map.class).newInstance(Map.copyOf(settings));
      return new BulletReferee(asFunction(runner));
    } catch (ReflectiveOperationException e) {
      Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
      throw new IllegalStateException("Cannot start Bullet: " + cause, cause);
    }
  }

  @SuppressWarnings("unchecked")
  private static Function<Map<String, Object>, Map<String, Object>> asFunction(Object runner) {
    return (Function<Map<String, Object>, Map<String, Object>>) runner;
  }

  /** One window Bullet emitted: its records and its metadata, as Bullet names them. */
  public record Window(List<Map<String, Object>> records, Map<String, Object> meta) {}

  /** One of the errors Bullet rejects a query with: its message and resolutions. */
  public record Rejection(String message, List<String> resolutions) {}

  /**
   * What Bullet made of a query: its errors if it rejected it, else the windows it emitted.
   *
   * @param done whether the query ended before the last record (a raw query holding its LIMIT)
   */
  public record Outcome(List<Rejection> errors, List<Window> windows, boolean done) {
    public boolean rejected() {
      return !errors.isEmpty();
    }
  }

  /**
   * Runs one query over records, in order: each window that closes on a record (record windows, a
   * raw query's LIMIT) is read and reset as Bullet's join stage does, and the query is finished
   * after the last record, which emits its final window.
   */
  public Outcome run(String bql, List<Map<String, Object>> records) {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("op", "run");
    request.put("bql", bql);
    request.put("records", records);
    Map<String, Object> response = runner.apply(request);
    if (response.containsKey("errors")) {
      return new Outcome(errors(response.get("errors")), List.of(), false);
    }
    return new Outcome(
        List.of(), windows(response.get("windows")), Boolean.TRUE.equals(response.get("done")));
  }

  /**
   * Starts queries that share one Bullet {@code QueryManager} (and its partitioner, when the
   * settings enable it), to be fed many records: for throughput benchmarks.
   */
  public Queries open(Map<String, String> queries) {
    Map<String, Object> response = runner.apply(Map.of("op", "open", "queries", queries));
    Map<String, List<Rejection>> rejected = new LinkedHashMap<>();
    ((Map<?, ?>) response.get("rejected"))
        .forEach((id, errors) -> rejected.put((String) id, errors(errors)));
    return new Queries((Integer) response.get("handle"), rejected);
  }

  /**
   * Builds Bullet records from plain maps once, to be handed to queries many times with {@link
   * Queries#consume(RecordPool, int, int)}: for benchmarks that measure Bullet's queries apart from
   * making its records. Free it with {@link RecordPool#close()}.
   */
  public RecordPool pool(List<Map<String, Object>> records) {
    Map<String, Object> response = runner.apply(Map.of("op", "pool", "records", records));
    return new RecordPool((Integer) response.get("pool"), (Integer) response.get("records"));
  }

  /** Bullet records built once, held inside Bullet's class loader. */
  public final class RecordPool implements AutoCloseable {
    private final int handle;
    private int size;

    private RecordPool(int handle, int size) {
      this.handle = handle;
      this.size = size;
    }

    public int size() {
      return size;
    }

    /** Appends Bullet records built from these maps: a large pool is built a chunk at a time. */
    public void add(List<Map<String, Object>> records) {
      Map<String, Object> response =
          runner.apply(Map.of("op", "pool", "pool", handle, "records", records));
      size = (Integer) response.get("records");
    }

    @Override
    public void close() {
      runner.apply(Map.of("op", "drop", "pool", handle));
    }
  }

  /** Queries running in Bullet, fed in batches. Valid until {@link #finish}. */
  public final class Queries {
    private final int handle;
    private final Map<String, List<Rejection>> rejected;

    private Queries(int handle, Map<String, List<Rejection>> rejected) {
      this.handle = handle;
      this.rejected = rejected;
    }

    /** The queries Bullet rejected, by id, with its errors; the others run. */
    public Map<String, List<Rejection>> rejected() {
      return rejected;
    }

    /**
     * Parses each JSON object (one per array) into a Bullet record and hands it to the queries the
     * partitioner picks; windows that close are read and kept.
     *
     * @return the records consumed; malformed ones are skipped
     */
    public long consumeJson(List<byte[]> jsonObjects) {
      return consume("json", jsonObjects);
    }

    /** As {@link #consumeJson}, for records already parsed. */
    public long consumeRecords(List<Map<String, Object>> records) {
      return consume("records", records);
    }

    /**
     * Hands {@code count} records of a pool of Bullet records, from its record {@code from} on
     * (cycling), to the queries the partitioner picks: Bullet's filter stage on records it has
     * already built.
     */
    public void consume(RecordPool pool, int from, int count) {
      runner.apply(
          Map.of(
              "op",
              "consume",
              "handle",
              handle,
              "pool",
              pool.handle,
              "from",
              from,
              "count",
              count));
    }

    private long consume(String key, List<?> batch) {
      Map<String, Object> response =
          runner.apply(Map.of("op", "consume", "handle", handle, key, batch));
      return ((Number) response.get("records")).longValue();
    }

    /** Finishes every query: the windows each emitted, the final one last. Ends this handle. */
    public Map<String, List<Window>> finish() {
      Map<String, Object> response = runner.apply(Map.of("op", "finish", "handle", handle));
      Map<String, List<Window>> results = new LinkedHashMap<>();
      ((Map<?, ?>) response.get("results"))
          .forEach((id, windows) -> results.put((String) id, windows(windows)));
      return results;
    }
  }

  private static List<Rejection> errors(Object list) {
    List<Rejection> errors = new ArrayList<>();
    for (Object each : (List<?>) list) {
      Map<?, ?> e = (Map<?, ?>) each;
      List<String> resolutions = new ArrayList<>();
      ((List<?>) e.get("resolutions")).forEach(r -> resolutions.add(String.valueOf(r)));
      errors.add(new Rejection(String.valueOf(e.get("error")), List.copyOf(resolutions)));
    }
    return List.copyOf(errors);
  }

  @SuppressWarnings("unchecked")
  private static List<Window> windows(Object list) {
    List<Window> windows = new ArrayList<>();
    for (Object each : (List<?>) list) {
      Map<?, ?> w = (Map<?, ?>) each;
      windows.add(
          new Window(
              (List<Map<String, Object>>) w.get("records"), (Map<String, Object>) w.get("meta")));
    }
    return List.copyOf(windows);
  }

  /** Bullet's class loader: the bundle extracted once per JVM, parent the platform loader. */
  private static synchronized ClassLoader classLoader() {
    if (loader == null) {
      loader = new URLClassLoader("bullet", extract(), ClassLoader.getPlatformClassLoader());
    }
    return loader;
  }

  /** Extracts the runner and the jars of its class path to a temporary directory. */
  private static URL[] extract() {
    try {
      Path dir = Files.createTempDirectory("spyglass-bullet");
      dir.toFile().deleteOnExit();
      List<String> files = new ArrayList<>(List.of("runner.jar"));
      for (String jar : read("classpath.txt").strip().split(":")) {
        if (!jar.isBlank()) {
          files.add(jar.strip());
        }
      }
      List<URL> urls = new ArrayList<>();
      for (String file : files) {
        Path target = dir.resolve(file);
        Files.createDirectories(target.getParent());
        target.getParent().toFile().deleteOnExit();
        try (InputStream in = resource(file)) {
          Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
        target.toFile().deleteOnExit();
        urls.add(target.toUri().toURL());
      }
      return urls.toArray(new URL[0]);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot extract Bullet's bundle", e);
    }
  }

  private static String read(String file) throws IOException {
    try (InputStream in = resource(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static InputStream resource(String file) throws IOException {
    InputStream in = BulletReferee.class.getResourceAsStream(BUNDLE + file);
    if (in == null) {
      throw new IllegalStateException(
          "Bullet's bundle is missing " + BUNDLE + file + ": build spyglass-bullet with Maven");
    }
    return in;
  }
}

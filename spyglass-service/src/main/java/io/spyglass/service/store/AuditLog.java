package io.spyglass.service.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.service.query.QueryObserver;
import io.spyglass.service.query.ServiceQuery;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who started and stopped what: one JSON object a line, appended to a file (or written to standard
 * output) as queries start and end, standing queries are created and deleted, and the service
 * starts and stops. Written on a thread of its own, so that a slow disk never holds up a request or
 * a result; a file over {@link #ROTATE_BYTES} is renamed {@code NAME.1} (the older ones shifted to
 * {@code .2} ... {@code .}{@value #KEEP_ROTATED}, the oldest deleted) and a new one begun.
 *
 * <pre>{@code
 * {"time":"2026-11-27T09:12:03.120Z","event":"query-started","user":"alice","id":"q8usmywhjab4","detached":false,"query":"SELECT ..."}
 * {"time":"2026-11-27T09:13:05.004Z","event":"query-ended","user":"alice","id":"q8usmywhjab4","state":"stopped","reason":"requested","by":"bob","ranMs":61884,"results":61}
 * }</pre>
 *
 * <p>Thread-safe. A line that cannot be written is logged (once per failure streak) and dropped:
 * the audit never stops the service.
 */
public final class AuditLog implements QueryObserver, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);
  private static final JsonFactory JSON = new JsonFactory();

  /** The size past which the file is rotated. */
  public static final long ROTATE_BYTES = 64L << 20;

  /** Rotated files kept beside the current one. */
  public static final int KEEP_ROTATED = 4;

  private final Path file; // null: standard output
  private final OutputStream stdout;
  private final LongSupplier clock;
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "spyglass-audit");
            t.setDaemon(true);
            return t;
          });
  private long size = -1; // bytes of the current file, read at the first write
  private boolean failing;

  private AuditLog(Path file, OutputStream stdout, LongSupplier clock) {
    this.file = file;
    this.stdout = stdout;
    this.clock = clock;
  }

  /**
   * The audit log appended to {@code file} (its folder created if missing), or written to standard
   * output when {@code file} is {@code -}.
   *
   * @throws IOException when the file cannot be opened for appending
   */
  public static AuditLog open(Path file, LongSupplier clock) throws IOException {
    if (file.toString().equals("-")) {
      return new AuditLog(null, System.out, clock);
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    // opened once now: a path that cannot be written stops the start, said plainly
    Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND).close();
    return new AuditLog(file, null, clock);
  }

  /** Where it writes: the file, or {@code -} for standard output. */
  public String where() {
    return file == null ? "-" : file.toAbsolutePath().normalize().toString();
  }

  @Override
  public void started(ServiceQuery q) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("user", q.owner());
    e.put("id", q.id());
    e.put("detached", q.detached());
    e.put("query", q.text());
    write("query-started", e);
  }

  @Override
  public void ended(ServiceQuery q) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("user", q.owner());
    e.put("id", q.id());
    e.put("state", q.state());
    ServiceQuery.Stop stop = q.stop();
    if (q.interrupted()) {
      e.put("reason", "service-stop");
      e.put("by", ServiceQuery.Stop.SERVICE);
    } else if (stop != null) {
      e.put("reason", stop.reason());
      e.put("by", stop.by());
    }
    e.put("ranMs", q.elapsedMs(clock.getAsLong()));
    e.put("results", q.log().lastId());
    if (q.error() != null) {
      e.put("error", q.error());
    }
    write("query-ended", e);
  }

  /** A standing query was created by {@code user}. */
  public void standingCreated(String name, String query, String user) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("user", user);
    e.put("name", name);
    e.put("query", query);
    write("standing-query-created", e);
  }

  /** A standing query was deleted by {@code user}. */
  public void standingDeleted(String name, String user) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("user", user);
    e.put("name", name);
    write("standing-query-deleted", e);
  }

  /** An alert on standing query {@code standingQuery} was defined by {@code user}. */
  public void alertCreated(String name, String standingQuery, String user) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("user", user);
    e.put("name", name);
    e.put("standingQuery", standingQuery);
    write("alert-created", e);
  }

  /** An alert was muted until {@code untilMs} (0: unmuted) by {@code user}. */
  public void alertMuted(String name, long untilMs, String user) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("user", user);
    e.put("name", name);
    e.put("until", untilMs);
    write(untilMs == 0 ? "alert-unmuted" : "alert-muted", e);
  }

  /** An alert was deleted by {@code user}. */
  public void alertDeleted(String name, String user) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("user", user);
    e.put("name", name);
    write("alert-deleted", e);
  }

  /** The service started or stopped; {@code details} says more (may be empty). */
  public void service(String event, Map<String, Object> details) {
    write(event, details);
  }

  private void write(String event, Map<String, Object> fields) {
    byte[] line = line(clock.getAsLong(), event, fields);
    try {
      writer.execute(() -> append(line));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      LOG.warn(
          "audit after the log was closed, not written: {}",
          new String(line, java.nio.charset.StandardCharsets.UTF_8).strip());
    }
  }

  static byte[] line(long nowMs, String event, Map<String, Object> fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("time", Instant.ofEpochMilli(nowMs).toString());
      g.writeStringField("event", event);
      for (Map.Entry<String, Object> f : fields.entrySet()) {
        Object v = f.getValue();
        if (v instanceof Boolean b) {
          g.writeBooleanField(f.getKey(), b);
        } else if (v instanceof Number n) {
          g.writeNumberField(f.getKey(), n.longValue());
        } else {
          g.writeStringField(f.getKey(), String.valueOf(v));
        }
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.write('\n');
    return out.toByteArray();
  }

  private void append(byte[] line) {
    try {
      if (file == null) {
        synchronized (stdout) {
          stdout.write(line);
          stdout.flush();
        }
        return;
      }
      if (size < 0) {
        size = Files.exists(file) ? Files.size(file) : 0;
      }
      if (size > 0 && size + line.length > ROTATE_BYTES) {
        rotate();
      }
      Files.write(file, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      size += line.length;
      if (failing) {
        failing = false;
        LOG.info("the audit log is written again: {}", file);
      }
    } catch (IOException | RuntimeException e) {
      size = -1;
      if (!failing) {
        failing = true;
        LOG.error(
            "the audit log cannot be written ({}); its lines are dropped until it can",
            e.toString());
      }
    }
  }

  private void rotate() throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    String name = file.getFileName().toString();
    Files.deleteIfExists(dir.resolve(name + "." + KEEP_ROTATED));
    for (int i = KEEP_ROTATED - 1; i >= 1; i--) {
      Path from = dir.resolve(name + "." + i);
      if (Files.exists(from)) {
        Files.move(from, dir.resolve(name + "." + (i + 1)), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    Files.move(file, dir.resolve(name + ".1"), StandardCopyOption.REPLACE_EXISTING);
    size = 0;
  }

  /** Writes what is queued (for at most 5 s), then stops. */
  @Override
  public void close() {
    writer.shutdown();
    try {
      if (!writer.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("the audit log's last lines were not written within 5 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

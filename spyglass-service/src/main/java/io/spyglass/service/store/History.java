package io.spyglass.service.store;

import io.spyglass.service.health.Health;
import io.spyglass.service.query.QueryObserver;
import io.spyglass.service.query.ServiceQuery;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every query submitted, in the {@link Database}: written on a thread of its own as queries start
 * and end (so that a slow disk never holds up results), read by {@code GET /api/history}.
 */
public final class History implements QueryObserver, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(History.class);

  /** Entries kept per user by default; older ones are deleted as new ones come. */
  public static final int KEEP_PER_USER = 1_000;

  /** One past query; {@code endedMs} is null while it runs. */
  public record Entry(
      String id,
      String query,
      String owner,
      boolean detached,
      long submittedMs,
      Long endedMs,
      String state,
      long results,
      String error) {}

  /** The key under which it reports to {@link Health} that the database cannot be written. */
  public static final String HEALTH_KEY = "history-database";

  private final Database db;
  private final Health health;
  private final int keepPerUser;
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "spyglass-history");
            t.setDaemon(true);
            return t;
          });

  /** The history, keeping {@value #KEEP_PER_USER} entries per user. */
  public History(Database db) {
    this(db, KEEP_PER_USER, new Health());
  }

  /**
   * Opens the history: queries a previous process left running are marked {@code interrupted}, and
   * each user's entries beyond the newest {@code keepPerUser} are deleted, now and as new ones
   * come; {@code health} is told when entries cannot be written.
   */
  public History(Database db, int keepPerUser, Health health) {
    if (keepPerUser < 1) {
      throw new IllegalArgumentException("at least one past query is kept per user");
    }
    this.db = db;
    this.keepPerUser = keepPerUser;
    this.health = health;
    db.with(
        c -> {
          try (Statement s = c.createStatement()) {
            s.executeUpdate(
                "UPDATE query_history SET state = 'interrupted' WHERE state = 'running'");
            s.executeUpdate(
                "DELETE FROM query_history WHERE id IN (SELECT id FROM (SELECT id, ROW_NUMBER()"
                    + " OVER (PARTITION BY owner ORDER BY submitted_ms DESC) AS n FROM"
                    + " query_history) WHERE n > "
                    + keepPerUser
                    + ")");
          }
          return null;
        });
  }

  @Override
  public void started(ServiceQuery q) {
    write(
        "INSERT INTO query_history (id, owner, query, detached, submitted_ms, state)"
            + " VALUES (?, ?, ?, ?, ?, 'running')",
        q.id(),
        q.owner(),
        q.text(),
        q.detached() ? 1 : 0,
        q.submittedMs());
    // the owner's entries beyond the newest keepPerUser go as new ones come (by the index)
    write(
        "DELETE FROM query_history WHERE owner = ? AND id IN (SELECT id FROM query_history"
            + " WHERE owner = ? ORDER BY submitted_ms DESC, id DESC LIMIT -1 OFFSET ?)",
        q.owner(),
        q.owner(),
        keepPerUser);
  }

  @Override
  public void ended(ServiceQuery q) {
    write(
        "UPDATE query_history SET ended_ms = ?, state = ?, results = ?, error = ? WHERE id = ?",
        q.endedMs(),
        q.state(),
        q.log().lastId(),
        q.error(),
        q.id());
  }

  private void write(String sql, Object... args) {
    writer.execute(
        () -> {
          try {
            db.with(
                c -> {
                  try (PreparedStatement p = c.prepareStatement(sql)) {
                    for (int i = 0; i < args.length; i++) {
                      p.setObject(i + 1, args[i]);
                    }
                    return p.executeUpdate();
                  }
                });
            health.clear(HEALTH_KEY);
          } catch (RuntimeException e) {
            LOG.warn("history not written: {}", e.getMessage());
            health.report(
                HEALTH_KEY,
                Health.Problem.degraded(
                    "The database cannot be written: queries run, but their history is not"
                        + " recorded (the log says why)"));
          }
        });
  }

  /** The owner's newest queries, newest first. */
  public List<Entry> list(String owner, int limit) {
    flush();
    return db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement(
                  "SELECT id, query, owner, detached, submitted_ms, ended_ms, state, results,"
                      + " error FROM query_history WHERE owner = ?"
                      + " ORDER BY submitted_ms DESC, id LIMIT ?")) {
            p.setString(1, owner);
            p.setInt(2, limit);
            List<Entry> out = new ArrayList<>();
            try (ResultSet rs = p.executeQuery()) {
              while (rs.next()) {
                Long ended = rs.getObject(6) == null ? null : rs.getLong(6);
                out.add(
                    new Entry(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getInt(4) != 0,
                        rs.getLong(5),
                        ended,
                        rs.getString(7),
                        rs.getLong(8),
                        rs.getString(9)));
              }
            }
            return out;
          }
        });
  }

  /** Waits until what was written so far is in the database (a caller reads its own writes). */
  public void flush() {
    try {
      writer.submit(() -> {}).get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("history writer is behind: {}", e.toString());
    }
  }

  @Override
  public void close() {
    writer.shutdown();
    try {
      writer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.spyglass.service.metering;

import io.spyglass.core.SpyglassClock;
import io.spyglass.service.store.Migrations;
import io.spyglass.service.store.SqlConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Where standing queries, their saved states and their final windows are kept: a SQLite file under
 * the data folder ({@value #FILE}) or a PostgreSQL database ({@code jdbc:postgresql://...}). A
 * checkpoint is one transaction: the states, the final windows they cover and the ingest log
 * position, so that a restart finds them consistent.
 *
 * <p>Thread-safe: one connection, used by one caller at a time.
 */
public final class StandingStore implements AutoCloseable {
  /** The SQLite file's name under the data folder. */
  public static final String FILE = "standing.db";

  /**
   * The schema's steps, oldest first (never edit one that has shipped: add the next); the first
   * makes {@code standing_schema_version}, which holds the step numbers only.
   */
  static final Migrations.Schema SCHEMA =
      new Migrations.Schema(
          "standing-query",
          "another database",
          "standing_schema_version",
          false,
          StandingStore.class,
          "",
          List.of(
              "V1__standing_queries.sql",
              "V2__standing_query_error_and_groups.sql",
              "V3__standing_query_sinks.sql"));

  private final SqlConnection db;

  /**
   * A standing query as stored.
   *
   * @param error why it stopped for good; null while it runs
   * @param maxGroups the exact groups a window of it keeps, fixed when it was defined; null for one
   *     defined before they were stored (the engine's limit)
   * @param sinks where its results go besides its windows, a JSON array of sinks ({@code
   *     io.spyglass.sinks.SinkSpec#toJson}); null for none
   */
  public record Stored(
      String name,
      String query,
      String owner,
      long createdMs,
      byte[] state,
      String error,
      Integer maxGroups,
      String sinks) {
    /** One that runs, under the engine's limit of groups. */
    public Stored(String name, String query, String owner, long createdMs, byte[] state) {
      this(name, query, owner, createdMs, state, null, null, null);
    }

    /** One without sinks. */
    public Stored(
        String name,
        String query,
        String owner,
        long createdMs,
        byte[] state,
        String error,
        Integer maxGroups) {
      this(name, query, owner, createdMs, state, error, maxGroups, null);
    }
  }

  /**
   * A final window as stored: its records are a JSON array.
   *
   * @param error what is wrong with its records; null when nothing is
   */
  public record Window(long start, long end, String records, long late, String error) {}

  /** A late-document count to add to a final window. */
  public record Late(String name, long start, long count) {}

  /** What one checkpoint writes. */
  public record Commit(
      long logPosition,
      Map<String, byte[]> states,
      Map<String, List<Window>> finals,
      List<Late> late) {}

  /** When a checkpoint is taken (epoch milliseconds). */
  private final LongSupplier clock;

  private StandingStore(SqlConnection db, LongSupplier clock) {
    this.db = db;
    this.clock = clock;
  }

  /**
   * Opens the store: {@code url} is a JDBC URL ({@code jdbc:postgresql://HOST/DB?user=..}), or null
   * for SQLite under {@code dataDir}; its tables are created when missing.
   *
   * @throws IOException when it cannot be reached or read; the message says which
   */
  public static StandingStore open(Path dataDir, String url) throws IOException {
    return open(dataDir, url, SpyglassClock.system());
  }

  /** As {@link #open(Path, String)}, stamping checkpoints with the time of {@code clock}. */
  public static StandingStore open(Path dataDir, String url, LongSupplier clock)
      throws IOException {
    String jdbc = url;
    if (jdbc == null) {
      Files.createDirectories(dataDir);
      jdbc = "jdbc:sqlite:" + dataDir.resolve(FILE).toAbsolutePath();
    } else if (!jdbc.startsWith("jdbc:postgresql:") && !jdbc.startsWith("jdbc:sqlite:")) {
      throw new IOException(
          "--database must be a jdbc:postgresql:// or jdbc:sqlite: URL, not " + redact(jdbc));
    }
    String where = redact(jdbc);
    boolean pg = jdbc.startsWith("jdbc:postgresql:");
    SqlConnection db =
        SqlConnection.open(
            jdbc,
            where,
            "the database",
            c -> {
              if (!pg) {
                useSqlite(c);
                String damage = SqlConnection.quickCheck(c);
                if (damage != null) {
                  throw new IOException(
                      "the standing queries' database "
                          + where
                          + " is damaged ("
                          + damage
                          + "): restore it from a copy; or move it away and start with"
                          + " --reset-standing-queries to go on without the standing queries");
                }
              }
              Migrations.migrate(c, SCHEMA, sql -> sql.replace("${BLOB}", pg ? "BYTEA" : "BLOB"));
            },
            code ->
                "the standing queries' database is damaged ("
                    + code
                    + "): reports and checkpoints fail; stop Spyglass and restore it from a copy");
    return new StandingStore(db, clock);
  }

  /**
   * Sets a connection to the SQLite file up as every connection to it must be: a write-ahead log
   * synced at each commit, and waiting for another connection's write rather than failing.
   */
  public static void useSqlite(Connection c) throws SQLException {
    SqlConnection.useSqlite(c, "FULL");
  }

  /** The URL without its password, to print. */
  public static String redact(String url) {
    return SqlConnection.redact(url);
  }

  public String where() {
    return db.where();
  }

  /**
   * Why the database cannot do its job, found while it was used (a damaged page); null while none
   * was found.
   */
  public String problem() {
    return db.problem();
  }

  /** Every standing query, oldest first. */
  public List<Stored> list() {
    return db.with(
        c -> {
          List<Stored> out = new ArrayList<>();
          try (Statement s = c.createStatement();
              ResultSet rs =
                  s.executeQuery(
                      "SELECT name, query, owner, created_ms, state, error, max_groups, sinks"
                          + " FROM standing_query ORDER BY created_ms, name")) {
            while (rs.next()) {
              int groups = rs.getInt(7);
              Integer maxGroups = rs.wasNull() ? null : groups;
              out.add(
                  new Stored(
                      rs.getString(1),
                      rs.getString(2),
                      rs.getString(3),
                      rs.getLong(4),
                      rs.getBytes(5),
                      rs.getString(6),
                      maxGroups,
                      rs.getString(8)));
            }
          }
          return out;
        });
  }

  /** The log position of the last checkpoint, if any. */
  public OptionalLong logPosition() {
    return db.with(
        c -> {
          try (Statement s = c.createStatement();
              ResultSet rs =
                  s.executeQuery("SELECT log_position FROM ingest_checkpoint WHERE id = 1")) {
            return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
          }
        });
  }

  /** Final windows of a standing query that overlap {@code [fromMs, toMs)}, oldest first. */
  public List<Window> windows(String name, long fromMs, long toMs) {
    return db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement(
                  SELECT_WINDOW
                      + " WHERE name = ? AND window_end > ? AND window_start < ?"
                      + " ORDER BY window_start")) {
            p.setString(1, name);
            p.setLong(2, fromMs);
            p.setLong(3, toMs);
            return windows(p);
          }
        });
  }

  /**
   * Up to {@code limit} final windows of a standing query that start after {@code afterStart},
   * oldest first: what an alert evaluates next. A window is written once, final, by the checkpoint
   * that covers it; later only its late count changes.
   */
  public List<Window> windowsAfter(String name, long afterStart, int limit) {
    return db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement(
                  SELECT_WINDOW
                      + " WHERE name = ? AND window_start > ? ORDER BY window_start LIMIT ?")) {
            p.setString(1, name);
            p.setLong(2, afterStart);
            p.setInt(3, limit);
            return windows(p);
          }
        });
  }

  private static final String SELECT_WINDOW =
      "SELECT window_start, window_end, records, late, error FROM standing_window";

  /** The windows {@code p} selects ({@link #SELECT_WINDOW}'s columns). */
  private static List<Window> windows(PreparedStatement p) throws SQLException {
    List<Window> out = new ArrayList<>();
    try (ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Window(
                rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getLong(4), rs.getString(5)));
      }
    }
    return out;
  }

  /** The start of the newest final window written for a standing query, if any. */
  public OptionalLong lastWindowStart(String name) {
    return db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement("SELECT MAX(window_start) FROM standing_window WHERE name = ?")) {
            p.setString(1, name);
            try (ResultSet rs = p.executeQuery()) {
              rs.next(); // MAX gives one row: null when there is no window
              long v = rs.getLong(1);
              return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(v);
            }
          }
        });
  }

  /**
   * Writes a checkpoint in one transaction: the log position, the states, the final windows
   * (replacing a window of the same start) and the late counts; {@code added} is a standing query
   * that starts at this checkpoint, {@code removed} names one that ends (its windows go too).
   */
  public void commit(Commit commit, Stored added, String removed) {
    db.transaction(
        c -> {
          if (added != null) {
            try (PreparedStatement p =
                c.prepareStatement(
                    "INSERT INTO standing_query (name, query, owner, created_ms, state,"
                        + " max_groups, sinks) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
              p.setString(1, added.name());
              p.setString(2, added.query());
              p.setString(3, added.owner());
              p.setLong(4, added.createdMs());
              p.setBytes(5, added.state());
              p.setObject(6, added.maxGroups(), java.sql.Types.INTEGER);
              p.setString(7, added.sinks());
              p.executeUpdate();
            }
          }
          if (removed != null) {
            forget(c, removed);
          }
          try (PreparedStatement p =
              c.prepareStatement("UPDATE standing_query SET state = ? WHERE name = ?")) {
            for (Map.Entry<String, byte[]> e : commit.states().entrySet()) {
              p.setBytes(1, e.getValue());
              p.setString(2, e.getKey());
              p.addBatch();
            }
            p.executeBatch();
          }
          try (PreparedStatement p =
              c.prepareStatement(
                  "INSERT INTO standing_window (name, window_start, window_end, records, late,"
                      + " error) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name, window_start) DO"
                      + " UPDATE SET window_end = excluded.window_end, records ="
                      + " excluded.records, late = excluded.late, error = excluded.error")) {
            for (Map.Entry<String, List<Window>> e : commit.finals().entrySet()) {
              for (Window w : e.getValue()) {
                p.setString(1, e.getKey());
                p.setLong(2, w.start());
                p.setLong(3, w.end());
                p.setString(4, w.records());
                p.setLong(5, w.late());
                p.setString(6, w.error());
                p.addBatch();
              }
            }
            p.executeBatch();
          }
          try (PreparedStatement p =
              c.prepareStatement(
                  "UPDATE standing_window SET late = late + ? WHERE name = ? AND window_start = ?")) {
            for (Late l : commit.late()) {
              p.setLong(1, l.count());
              p.setString(2, l.name());
              p.setLong(3, l.start());
              p.addBatch();
            }
            p.executeBatch();
          }
          try (PreparedStatement p =
              c.prepareStatement(
                  "INSERT INTO ingest_checkpoint (id, log_position, taken_ms) VALUES (1, ?, ?)"
                      + " ON CONFLICT (id) DO UPDATE SET log_position = excluded.log_position,"
                      + " taken_ms = excluded.taken_ms")) {
            p.setLong(1, commit.logPosition());
            p.setLong(2, clock.getAsLong());
            p.executeUpdate();
          }
          return null;
        });
  }

  /**
   * Forgets a standing query and its windows, in one transaction, leaving the checkpoint as it is
   * (for a deletion whose checkpoint could not be taken).
   */
  public void remove(String name) {
    db.transaction(
        c -> {
          forget(c, name);
          return null;
        });
  }

  /** Deletes a standing query's row and its windows. */
  private static void forget(Connection c, String name) throws SQLException {
    for (String table : List.of("standing_query", "standing_window")) {
      try (PreparedStatement p = c.prepareStatement("DELETE FROM " + table + " WHERE name = ?")) {
        p.setString(1, name);
        p.executeUpdate();
      }
    }
  }

  /**
   * Writes one final window of a standing query run on the Flink job, at once and on its own
   * (replacing a window of the same start: a reply the job delivers again changes nothing). Nothing
   * is written for a query that is not defined as of {@code createdMs} (deleted meanwhile, or
   * defined again since; any definition when negative), unless {@code evenUndefined} (a query
   * started on the job whose row the checkpoint that defines it has yet to write).
   *
   * @return whether the window was written
   */
  public boolean putFinal(String name, long createdMs, Window w, boolean evenUndefined) {
    return db.transaction(
        c -> {
          boolean known = evenUndefined || defined(c, name, createdMs);
          if (known) {
            try (PreparedStatement p =
                c.prepareStatement(
                    "INSERT INTO standing_window (name, window_start, window_end, records, late,"
                        + " error) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name, window_start) DO"
                        + " UPDATE SET window_end = excluded.window_end, records ="
                        + " excluded.records, error = excluded.error")) {
              p.setString(1, name);
              p.setLong(2, w.start());
              p.setLong(3, w.end());
              p.setString(4, w.records());
              p.setLong(5, w.late());
              p.setString(6, w.error());
              p.executeUpdate();
            }
          }
          return known;
        });
  }

  /**
   * Adds a late update of a standing query run on the Flink job to its final window once: only when
   * {@code queryLate}, the query's count of late documents the update brings it to ({@code
   * meta.eventTime.late}), is past the count stored with the query, which it then becomes, in the
   * same transaction. A late update the job delivers again (its count not past) changes nothing.
   * Such a query's saved state is that count (the job keeps its real state in its checkpoints).
   *
   * @return whether the count was added (false: a repeat, or the query is not defined)
   */
  public boolean addLateOnce(String name, long createdMs, long start, long count, long queryLate) {
    return db.transaction(
        c -> {
          long stored = -1;
          boolean known = false;
          try (PreparedStatement p =
              c.prepareStatement("SELECT state, created_ms FROM standing_query WHERE name = ?")) {
            p.setString(1, name);
            try (ResultSet rs = p.executeQuery()) {
              if (rs.next() && (createdMs < 0 || rs.getLong(2) == createdMs)) {
                known = true;
                stored = jobLate(rs.getBytes(1));
              }
            }
          }
          boolean add = known && queryLate > stored;
          if (add) {
            try (PreparedStatement p =
                c.prepareStatement(
                    "UPDATE standing_window SET late = late + ? WHERE name = ? AND window_start"
                        + " = ?")) {
              p.setLong(1, count);
              p.setString(2, name);
              p.setLong(3, start);
              p.executeUpdate();
            }
            try (PreparedStatement p =
                c.prepareStatement("UPDATE standing_query SET state = ? WHERE name = ?")) {
              p.setBytes(1, java.nio.ByteBuffer.allocate(8).putLong(queryLate).array());
              p.setString(2, name);
              p.executeUpdate();
            }
          }
          return add;
        });
  }

  /** The late count a query run on the job saved as its state; -1 when none was. */
  private static long jobLate(byte[] state) {
    return state == null || state.length != 8 ? -1 : java.nio.ByteBuffer.wrap(state).getLong();
  }

  /** Whether {@code name} is defined, as defined at {@code createdMs} (any time when negative). */
  private static boolean defined(Connection c, String name, long createdMs) throws SQLException {
    try (PreparedStatement p =
        c.prepareStatement("SELECT created_ms FROM standing_query WHERE name = ?")) {
      p.setString(1, name);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() && (createdMs < 0 || rs.getLong(1) == createdMs);
      }
    }
  }

  /** Records that a standing query stopped for good, and why: a restart does not start it. */
  public void fail(String name, String error) {
    db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement("UPDATE standing_query SET error = ? WHERE name = ?")) {
            p.setString(1, error);
            p.setString(2, name);
            return p.executeUpdate();
          }
        });
  }

  @Override
  public void close() {
    db.close();
  }
}

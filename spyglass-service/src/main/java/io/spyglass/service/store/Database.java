package io.spyglass.service.store;

import io.spyglass.service.clock.ServiceClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The service's embedded database: one SQLite file under the data folder, opened with write-ahead
 * logging, and brought to the newest schema on open by {@link Migrations} (resources {@code
 * db/V<n>__<what>.sql}, recorded in {@code schema_version}).
 *
 * <p>Thread-safe: one connection, used by one caller at a time.
 */
public final class Database implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Database.class);

  /** The schema's steps, oldest first. Never edit one that has shipped: add the next. */
  static final Migrations.Schema SCHEMA =
      new Migrations.Schema(
          "saved queries and history",
          "another --data folder",
          "schema_version",
          true,
          Database.class,
          "db/",
          List.of("V1__saved_queries_and_history.sql"));

  /** The database file's name under the data folder. */
  public static final String FILE = "spyglass.db";

  private final Connection connection;
  private final Path file;

  /** A unit of work on the connection. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private final LongSupplier clock;

  private Database(Connection connection, Path file, LongSupplier clock) {
    this.connection = connection;
    this.file = file;
    this.clock = clock;
  }

  /**
   * Opens (creating if needed) the database under {@code dataDir} and migrates it.
   *
   * @throws IOException when the folder cannot be created or the database cannot be opened
   */
  public static Database open(Path dataDir) throws IOException {
    return open(dataDir, ServiceClock.system().wall());
  }

  /**
   * As {@link #open(Path)}, recording when each migration was applied by {@code clock} (epoch
   * milliseconds).
   */
  public static Database open(Path dataDir, LongSupplier clock) throws IOException {
    Files.createDirectories(dataDir);
    Path file = dataDir.resolve(FILE);
    Connection c;
    try {
      c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
    } catch (SQLException e) {
      throw new IOException("cannot open the database " + file + ": " + e.getMessage(), e);
    }
    try {
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=NORMAL");
        s.execute("PRAGMA busy_timeout=5000");
      }
      String damage = quickCheck(c);
      if (damage != null) {
        throw new IOException(
            "the database "
                + file
                + " is damaged ("
                + damage
                + "): restore it from a copy; or move it away to start with no saved queries and"
                + " history");
      }
      Database db = new Database(c, file, clock);
      db.migrate();
      return db;
    } catch (SQLException e) {
      closeAfter(c, e);
      throw new IOException("cannot open the database " + file + ": " + e.getMessage(), e);
    } catch (IOException | RuntimeException | Error e) {
      // whatever stops the opening, the connection (and its hold on the file) goes with it
      closeAfter(c, e);
      throw e;
    }
  }

  /** Closes a connection whose opening failed with {@code failure}. */
  private static void closeAfter(Connection c, Throwable failure) {
    try {
      c.close();
    } catch (SQLException again) {
      failure.addSuppressed(again);
    }
  }

  public Path file() {
    return file;
  }

  /** Runs {@code work} alone on the connection; SQL errors come back unchecked. */
  public synchronized <T> T with(Work<T> work) {
    try {
      return work.run(connection);
    } catch (SQLException e) {
      if (problem == null && isDamage(e)) {
        problem =
            "the database "
                + FILE
                + " is damaged ("
                + code(e)
                + "): saved queries and history fail; stop Spyglass and restore it from a copy";
        LOG.error("{}: {}", problem, file, e);
      }
      throw new IllegalStateException("database " + file + ": " + e.getMessage(), e);
    }
  }

  private volatile String problem;

  /**
   * Why the database cannot do its job, found while it was used (a damaged page); null while none
   * was found.
   */
  public String problem() {
    return problem;
  }

  /**
   * SQLite's {@code PRAGMA quick_check} on {@code c}: null when it finds nothing wrong, else the
   * first problems it names (or the error that kept it from reading the file).
   */
  public static String quickCheck(Connection c) throws SQLException {
    List<String> found = new java.util.ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA quick_check(5)")) {
      while (rs.next()) {
        found.add(rs.getString(1));
      }
    } catch (SQLException e) {
      if (isDamage(e)) {
        return "PRAGMA quick_check cannot read it: " + code(e);
      }
      throw e;
    }
    if (found.size() == 1 && "ok".equals(found.get(0))) {
      return null;
    }
    return "PRAGMA quick_check: " + String.join("; ", found);
  }

  /**
   * Whether an error says the database's file is damaged (SQLite's CORRUPT or NOTADB, PostgreSQL's
   * data or index corrupted), not a bad statement or a passing failure.
   */
  public static boolean isDamage(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        int primary = s.getErrorCode() & 0xFF;
        String state = s.getSQLState();
        String m = String.valueOf(s.getMessage());
        if ("XX001".equals(state)
            || "XX002".equals(state)
            || m.contains("SQLITE_CORRUPT")
            || m.contains("SQLITE_NOTADB")
            || (isSqlite(s) && (primary == 11 || primary == 26))) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean isSqlite(SQLException e) {
    return e.getClass().getName().startsWith("org.sqlite.");
  }

  /** The error's code, short: {@code SQLITE_CORRUPT}, or the SQL state. */
  public static String code(SQLException e) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("SQLITE_[A-Z_]+").matcher(String.valueOf(e.getMessage()));
    return m.find() ? m.group() : "SQL state " + e.getSQLState();
  }

  /** The newest migration applied. */
  public int version() {
    return with(c -> Migrations.version(c, SCHEMA.versionTable()));
  }

  private void migrate() throws SQLException {
    Migrations.migrate(connection, SCHEMA, sql -> sql, clock);
  }

  @Override
  public synchronized void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      // closing: nothing left to do with it
    }
  }
}

package io.spyglass.service.store;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The plumbing the service's databases share ({@link Database}'s SQLite file, the standing queries'
 * and the alerts' tables, on SQLite or PostgreSQL): one JDBC connection, opened and set up
 * (settings, checks, migrations) or closed again when that fails; work on it one caller at a time,
 * its SQL errors coming back unchecked and naming the database; transactions that write all or
 * nothing; and the damage of a file noticed while it is used.
 *
 * <p>Thread-safe: one caller at a time.
 */
public final class SqlConnection implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(SqlConnection.class);

  /** A unit of work on the connection. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /** What an opening does to the new connection before it is used: settings, checks, migrations. */
  @FunctionalInterface
  public interface SetUp {
    void run(Connection c) throws SQLException, IOException;
  }

  private final Connection connection;
  private final String where;
  private final UnaryOperator<String> damaged;
  private volatile String problem;

  private SqlConnection(Connection connection, String where, UnaryOperator<String> damaged) {
    this.connection = connection;
    this.where = where;
    this.damaged = damaged;
  }

  /**
   * Connects to {@code jdbc} and sets the connection up; one whose setting up fails is closed.
   *
   * @param where the database as messages name it: its file, or its URL without the password
   * @param what what a failure of the setting up says could not be opened, before {@code where}
   *     ({@code "the database"})
   * @param damaged the problem to record (and log) when work finds the database damaged, made of
   *     the error's code ({@link #code}); null to record none
   * @throws IOException when it cannot connect, or the setting up fails (its own IOException as it
   *     is)
   */
  public static SqlConnection open(
      String jdbc, String where, String what, SetUp setUp, UnaryOperator<String> damaged)
      throws IOException {
    Connection c;
    try {
      c = DriverManager.getConnection(jdbc);
    } catch (SQLException e) {
      throw new IOException("cannot open the database " + where + ": " + e.getMessage(), e);
    }
    try {
      setUp.run(c);
      return new SqlConnection(c, where, damaged);
    } catch (SQLException e) {
      closeAfter(c, e);
      throw new IOException("cannot open " + what + " " + where + ": " + e.getMessage(), e);
    } catch (IOException | RuntimeException | Error e) {
      // whatever stops the opening, the connection (and its hold on a file) goes with it
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

  /**
   * Sets a connection to a SQLite file up as every connection to it must be: a write-ahead log,
   * synced as {@code synchronous} says ({@code FULL}: at each commit), and waiting for another
   * connection's write rather than failing.
   */
  public static void useSqlite(Connection c, String synchronous) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=" + synchronous);
      s.execute("PRAGMA busy_timeout=5000");
    }
  }

  /** A JDBC URL without its password, to print. */
  public static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  /** The database as messages name it. */
  public String where() {
    return where;
  }

  /** Runs {@code work} alone on the connection; SQL errors come back unchecked. */
  public synchronized <T> T with(Work<T> work) {
    try {
      return work.run(connection);
    } catch (SQLException e) {
      if (damaged != null && problem == null && isDamage(e)) {
        problem = damaged.apply(code(e));
        LOG.error("{}: {}", problem, where, e);
      }
      throw new IllegalStateException("database " + where + ": " + e.getMessage(), e);
    }
  }

  /** Runs {@code work} in one transaction: all of it is written, or none. */
  public <T> T transaction(Work<T> work) {
    return with(
        c -> {
          c.setAutoCommit(false);
          try {
            T out = work.run(c);
            c.commit();
            return out;
          } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
          } finally {
            c.setAutoCommit(true);
          }
        });
  }

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
    List<String> found = new ArrayList<>();
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

  private static final Pattern SQLITE_CODE = Pattern.compile("SQLITE_[A-Z_]+");

  /** The error's code, short: {@code SQLITE_CORRUPT}, or the SQL state. */
  public static String code(SQLException e) {
    Matcher m = SQLITE_CODE.matcher(String.valueOf(e.getMessage()));
    return m.find() ? m.group() : "SQL state " + e.getSQLState();
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

package io.spyglass.service.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one migration runner of the service's databases (saved queries and history; standing
 * queries): brings a database to the newest schema this code knows by numbered steps, SQL scripts
 * named {@code V<n>__<what>.sql}, applied in order, each once, each in a transaction of its own
 * with the row that records it in the database's version table (so a step is applied whole or not
 * at all). A database whose version is newer than the code's steps is refused, unchanged, with a
 * message that says what to do.
 *
 * <p>Never edit a step that has shipped: add the next one.
 */
public final class Migrations {
  private static final Pattern STEP = Pattern.compile("V(\\d+)__[a-z0-9_]+\\.sql");

  private Migrations() {}

  /**
   * One database's schema.
   *
   * @param what what the database holds, for messages: "saved queries and history"
   * @param elsewhere what to use instead of a database that is too new, for messages: "another
   *     --data folder"
   * @param versionTable the table that records the steps applied, one row a step (its number in
   *     {@code version})
   * @param namedVersions whether the runner makes the version table with each step's name and the
   *     time it was applied ({@code schema_version}); false when the first step makes it with the
   *     number only ({@code standing_schema_version}, kept so for the databases that have it)
   * @param anchor the class beside which the scripts are resources, under {@code folder}
   * @param folder the scripts' folder relative to {@code anchor}'s package: "" or "db/"
   * @param steps the scripts' names, step 1 first ({@code V1__...}, {@code V2__...})
   */
  public record Schema(
      String what,
      String elsewhere,
      String versionTable,
      boolean namedVersions,
      Class<?> anchor,
      String folder,
      List<String> steps) {
    public Schema {
      steps = List.copyOf(steps);
      for (int i = 0; i < steps.size(); i++) {
        Matcher m = STEP.matcher(steps.get(i));
        if (!m.matches() || Integer.parseInt(m.group(1)) != i + 1) {
          throw new IllegalArgumentException(
              "step "
                  + (i + 1)
                  + " of "
                  + what
                  + " is "
                  + steps.get(i)
                  + ", not V"
                  + (i + 1)
                  + "__");
        }
      }
    }

    /** The newest version this code knows. */
    public int newest() {
      return steps.size();
    }
  }

  /**
   * Brings the database on {@code c} to the newest version of {@code schema}; returns the version
   * it was at.
   *
   * @param dialect turns a script into this database's SQL (its placeholders, e.g. {@code ${BLOB}})
   * @param clock the epoch milliseconds recorded with a named version
   * @throws SQLException when the database is newer than this code (nothing changed), or a step
   *     fails (that step rolled back, the ones before it kept); the message names which
   */
  public static int migrate(
      Connection c, Schema schema, UnaryOperator<String> dialect, LongSupplier clock)
      throws SQLException {
    int current = version(c, schema.versionTable());
    if (current > schema.newest()) {
      throw new SQLException(
          "its "
              + schema.what()
              + " tables are version "
              + current
              + ", newer than this Spyglass knows (it knows up to "
              + schema.newest()
              + "): run a newer Spyglass, or use "
              + schema.elsewhere());
    }
    for (int v = current + 1; v <= schema.newest(); v++) {
      String name = schema.steps().get(v - 1);
      String sql = dialect.apply(read(schema, name));
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        for (String one : statements(sql)) {
          s.execute(one);
        }
        record(c, schema, v, name, clock);
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw new SQLException(
            "step " + name + " of the " + schema.what() + " tables failed: " + e.getMessage(), e);
      } finally {
        c.setAutoCommit(auto);
      }
    }
    return current;
  }

  /**
   * As {@link #migrate(Connection, Schema, UnaryOperator, LongSupplier)}, for a schema whose
   * version table holds step numbers only (no time is recorded).
   */
  public static int migrate(Connection c, Schema schema, UnaryOperator<String> dialect)
      throws SQLException {
    if (schema.namedVersions()) {
      throw new IllegalArgumentException(
          schema.versionTable() + " records when each step was applied: give the clock");
    }
    return migrate(c, schema, dialect, () -> 0);
  }

  /** The newest step applied to the database on {@code c}: 0 before any. */
  public static int version(Connection c, String versionTable) throws SQLException {
    if (!exists(c, versionTable)) {
      return 0;
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM " + versionTable)) {
      return rs.next() ? rs.getInt(1) : 0;
    }
  }

  private static boolean exists(Connection c, String table) throws SQLException {
    try (ResultSet rs = c.getMetaData().getTables(null, null, table, null)) {
      return rs.next();
    }
  }

  private static void record(Connection c, Schema schema, int v, String name, LongSupplier clock)
      throws SQLException {
    if (!schema.namedVersions()) {
      try (PreparedStatement p =
          c.prepareStatement("INSERT INTO " + schema.versionTable() + " (version) VALUES (?)")) {
        p.setInt(1, v);
        p.executeUpdate();
      }
      return;
    }
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + schema.versionTable()
              + " (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms BIGINT NOT NULL)");
    }
    try (PreparedStatement p =
        c.prepareStatement(
            "INSERT INTO "
                + schema.versionTable()
                + " (version, name, applied_ms) VALUES (?, ?, ?)")) {
      p.setInt(1, v);
      p.setString(2, name);
      p.setLong(3, clock.getAsLong());
      p.executeUpdate();
    }
  }

  private static String read(Schema schema, String name) {
    String path = schema.folder() + name;
    try (InputStream in = schema.anchor().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("migration " + path + " is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Splits a script into statements: at semicolons that end a line; comment lines dropped. */
  public static List<String> statements(String script) {
    StringBuilder current = new StringBuilder();
    List<String> out = new ArrayList<>();
    for (String line : script.split("\n")) {
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (t.endsWith(";")) {
        out.add(current.toString().strip().replaceAll(";$", ""));
        current.setLength(0);
      }
    }
    if (!current.toString().isBlank()) {
      out.add(current.toString().strip());
    }
    return out;
  }
}

package io.spyglass.service.store;

import io.spyglass.core.SpyglassClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

  private final SqlConnection db;
  private final Path file;

  private Database(SqlConnection db, Path file) {
    this.db = db;
    this.file = file;
  }

  /**
   * Opens (creating if needed) the database under {@code dataDir} and migrates it.
   *
   * @throws IOException when the folder cannot be created or the database cannot be opened
   */
  public static Database open(Path dataDir) throws IOException {
    return open(dataDir, SpyglassClock.system());
  }

  /**
   * As {@link #open(Path)}, recording when each migration was applied by {@code clock} (epoch
   * milliseconds).
   */
  public static Database open(Path dataDir, LongSupplier clock) throws IOException {
    Files.createDirectories(dataDir);
    Path file = dataDir.resolve(FILE);
    SqlConnection db =
        SqlConnection.open(
            "jdbc:sqlite:" + file.toAbsolutePath(),
            file.toString(),
            "the database",
            c -> {
              SqlConnection.useSqlite(c, "NORMAL");
              String damage = SqlConnection.quickCheck(c);
              if (damage != null) {
                throw new IOException(
                    "the database "
                        + file
                        + " is damaged ("
                        + damage
                        + "): restore it from a copy; or move it away to start with no saved"
                        + " queries and history");
              }
              Migrations.migrate(c, SCHEMA, sql -> sql, clock);
            },
            code ->
                "the database "
                    + FILE
                    + " is damaged ("
                    + code
                    + "): saved queries and history fail; stop Spyglass and restore it from a copy");
    return new Database(db, file);
  }

  public Path file() {
    return file;
  }

  /** Runs {@code work} alone on the connection; SQL errors come back unchecked. */
  public <T> T with(SqlConnection.Work<T> work) {
    return db.with(work);
  }

  /**
   * Why the database cannot do its job, found while it was used (a damaged page); null while none
   * was found.
   */
  public String problem() {
    return db.problem();
  }

  /** The newest migration applied. */
  public int version() {
    return with(c -> Migrations.version(c, SCHEMA.versionTable()));
  }

  @Override
  public void close() {
    db.close();
  }
}

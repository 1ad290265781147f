package io.spyglass.service.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Saved queries in the {@link Database}: a name and BQL text, owned by a user, within a quota per
 * user and while the disk of the data folder has room.
 */
public final class SavedQueries {
  private static final char[] ID_CHARS = "abcdefghijkmnpqrstuvwxyz23456789".toCharArray();

  /** A saved query; times are epoch milliseconds. */
  public record Saved(
      String id, String name, String query, String owner, long createdMs, long updatedMs) {}

  /**
   * What one user may keep, and the free disk kept.
   *
   * @param maxPerUser most saved queries one user keeps
   * @param maxBytesPerUser most bytes (UTF-8) of the names and texts of one user's saved queries
   * @param minFreeDiskBytes below this many usable bytes on the disk of the database, nothing more
   *     is saved
   */
  public record Quota(int maxPerUser, long maxBytesPerUser, long minFreeDiskBytes) {
    /** No bound but the disk's. */
    public static final Quota NONE = new Quota(Integer.MAX_VALUE, Long.MAX_VALUE, 0);
  }

  /** Not saved: over the user's quota, or the disk is nearly full; the message says which. */
  public static final class OverQuota extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String limit;

    OverQuota(String limit, String message) {
      super(message);
      this.limit = limit;
    }

    /** The option whose limit was reached, e.g. {@code max-saved-per-user}. */
    public String limit() {
      return limit;
    }
  }

  private static final String SELECT =
      "SELECT id, name, query, owner, created_ms, updated_ms FROM saved_query";

  private final Database db;
  private final LongSupplier clock;
  private final Quota quota;
  private final SecureRandom random = new SecureRandom();

  public SavedQueries(Database db, LongSupplier clock) {
    this(db, clock, Quota.NONE);
  }

  /** Why the database under the saved queries cannot do its job; null while it can. */
  public String storageProblem() {
    return db.problem();
  }

  public SavedQueries(Database db, LongSupplier clock, Quota quota) {
    this.db = db;
    this.clock = clock;
    this.quota = quota;
  }

  /**
   * Saves a query for {@code owner}.
   *
   * @throws OverQuota when the owner keeps as many as allowed, their bytes would go over the quota,
   *     or the disk is nearly full
   */
  public Saved create(String owner, String name, String query) {
    long now = clock.getAsLong();
    Saved s = new Saved(newId(), name, query, owner, now, now);
    db.with(
        c -> {
          checkDisk();
          long[] used = used(c, owner, null);
          if (used[0] >= quota.maxPerUser()) {
            throw new OverQuota(
                "max-saved-per-user",
                owner
                    + " keeps "
                    + used[0]
                    + " saved queries, the most one user keeps here ("
                    + quota.maxPerUser()
                    + ", --max-saved-per-user)");
          }
          checkBytes(owner, used[1] + bytes(name, query));
          try (PreparedStatement p =
              c.prepareStatement(
                  "INSERT INTO saved_query (id, owner, name, query, created_ms, updated_ms)"
                      + " VALUES (?, ?, ?, ?, ?, ?)")) {
            p.setString(1, s.id());
            p.setString(2, owner);
            p.setString(3, name);
            p.setString(4, query);
            p.setLong(5, now);
            p.setLong(6, now);
            return p.executeUpdate();
          }
        });
    return s;
  }

  public Optional<Saved> get(String id) {
    return db.with(c -> one(c, id));
  }

  private static Optional<Saved> one(Connection c, String id) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(SELECT + " WHERE id = ?")) {
      p.setString(1, id);
      List<Saved> found = read(p);
      return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
    }
  }

  /** The owner's saved queries and their bytes, leaving out {@code except} (null for none). */
  private static long[] used(Connection c, String owner, String except) throws SQLException {
    try (PreparedStatement p =
        c.prepareStatement(
            "SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(name AS BLOB)) + LENGTH(CAST(query AS"
                + " BLOB))), 0) FROM saved_query WHERE owner = ? AND id <> ?")) {
      p.setString(1, owner);
      p.setString(2, except == null ? "" : except);
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }

  private static long bytes(String name, String query) {
    return name.getBytes(StandardCharsets.UTF_8).length
        + (long) query.getBytes(StandardCharsets.UTF_8).length;
  }

  private void checkBytes(String owner, long total) {
    if (total > quota.maxBytesPerUser()) {
      throw new OverQuota(
          "max-saved-bytes-per-user",
          "The saved queries of "
              + owner
              + " would hold "
              + total
              + " bytes of names and text, over the "
              + quota.maxBytesPerUser()
              + " one user keeps here (--max-saved-bytes-per-user)");
    }
  }

  private void checkDisk() {
    long usable;
    try {
      usable = Files.getFileStore(db.file()).getUsableSpace();
    } catch (IOException e) {
      return; // the write itself will say what is wrong
    }
    if (usable < quota.minFreeDiskBytes()) {
      throw new OverQuota(
          "min-free-disk",
          "The disk of the data folder has "
              + usable
              + " bytes free, under the "
              + quota.minFreeDiskBytes()
              + " kept free (--min-free-disk): nothing more is saved");
    }
  }

  /** The owner's saved queries, newest first. */
  public List<Saved> list(String owner) {
    return db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement(SELECT + " WHERE owner = ? ORDER BY created_ms DESC, id")) {
            p.setString(1, owner);
            return read(p);
          }
        });
  }

  /**
   * Changes the name and text; returns the new state, or empty when there is no such query.
   *
   * @throws OverQuota when the owner's bytes would go over the quota, or the disk is nearly full
   */
  public Optional<Saved> update(String id, String name, String query) {
    long now = clock.getAsLong();
    int n =
        db.with(
            c -> {
              checkDisk();
              Optional<Saved> before = one(c, id);
              if (before.isEmpty()) {
                return 0;
              }
              String owner = before.get().owner();
              checkBytes(owner, used(c, owner, id)[1] + bytes(name, query));
              try (PreparedStatement p =
                  c.prepareStatement(
                      "UPDATE saved_query SET name = ?, query = ?, updated_ms = ? WHERE id = ?")) {
                p.setString(1, name);
                p.setString(2, query);
                p.setLong(3, now);
                p.setString(4, id);
                return p.executeUpdate();
              }
            });
    return n == 0 ? Optional.empty() : get(id);
  }

  public boolean delete(String id) {
    return db.with(
            c -> {
              try (PreparedStatement p =
                  c.prepareStatement("DELETE FROM saved_query WHERE id = ?")) {
                p.setString(1, id);
                return p.executeUpdate();
              }
            })
        > 0;
  }

  private static List<Saved> read(PreparedStatement p) throws SQLException {
    List<Saved> out = new ArrayList<>();
    try (ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(
            new Saved(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getLong(5),
                rs.getLong(6)));
      }
    }
    return out;
  }

  private String newId() {
    char[] c = new char[12];
    for (int i = 0; i < c.length; i++) {
      c[i] = ID_CHARS[random.nextInt(ID_CHARS.length)];
    }
    return new String(c);
  }
}

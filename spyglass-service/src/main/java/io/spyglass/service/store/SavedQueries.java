package io.spyglass.service.store;

import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/** Saved queries in the {@link Database}: a name and BQL text, owned by a user. */
public final class SavedQueries {
  private static final char[] ID_CHARS = "abcdefghijkmnpqrstuvwxyz23456789".toCharArray();

  /** A saved query; times are epoch milliseconds. */
  public record Saved(
      String id, String name, String query, String owner, long createdMs, long updatedMs) {}

  private static final String SELECT =
      "SELECT id, name, query, owner, created_ms, updated_ms FROM saved_query";

  private final Database db;
  private final LongSupplier clock;
  private final SecureRandom random = new SecureRandom();

  public SavedQueries(Database db, LongSupplier clock) {
    this.db = db;
    this.clock = clock;
  }

  /** Why the database under the saved queries cannot do its job; null while it can. */
  public String storageProblem() {
    return db.problem();
  }

  public Saved create(String owner, String name, String query) {
    long now = clock.getAsLong();
    Saved s = new Saved(newId(), name, query, owner, now, now);
    db.with(
        c -> {
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
    return db.with(
        c -> {
          try (PreparedStatement p = c.prepareStatement(SELECT + " WHERE id = ?")) {
            p.setString(1, id);
            List<Saved> found = read(p);
            return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
          }
        });
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

  /** Changes the name and text; returns the new state, or empty when there is no such query. */
  public Optional<Saved> update(String id, String name, String query) {
    long now = clock.getAsLong();
    int n =
        db.with(
            c -> {
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

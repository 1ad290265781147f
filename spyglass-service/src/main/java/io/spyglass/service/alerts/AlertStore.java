package io.spyglass.service.alerts;

import io.spyglass.service.metering.StandingStore;
import io.spyglass.service.store.Migrations;
import io.spyglass.service.store.SqlConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Where alerts, the state of their groups and their events are kept: in the standing queries'
 * database (SQLite {@value StandingStore#FILE} under the data folder, or PostgreSQL with {@code
 * --database}), in tables of their own with their own version table ({@code alert_schema_version}).
 * An evaluation writes its events, its groups' states and its cursor in one transaction; events are
 * the outbox of their delivery.
 *
 * <p>Thread-safe: one connection of its own, used by one caller at a time.
 */
public final class AlertStore implements AutoCloseable {
  /** The schema's steps, oldest first (never edit one that has shipped: add the next). */
  static final Migrations.Schema SCHEMA =
      new Migrations.Schema(
          "alert",
          "another database",
          "alert_schema_version",
          true,
          AlertStore.class,
          "",
          List.of("V1__alerts.sql"));

  /** Delivery states of an event. */
  static final String PENDING = "pending";

  static final String DELIVERED = "delivered";
  static final String QUIET = "quiet";
  static final String MUTED = "muted";
  static final String REFUSED = "refused";

  private final SqlConnection db;

  /**
   * An alert as stored.
   *
   * @param spec its definition (condition, sink, format, quiet period, labels) as JSON
   * @param cursorStart the start of the last final window evaluated
   * @param cursorEnd its end; null before the first
   * @param mutedUntil until when it sends nothing (epoch ms); 0 when not muted
   * @param dropped events forgotten before they were delivered
   */
  public record Stored(
      String name,
      String standingQuery,
      boolean ownsQuery,
      String owner,
      long createdMs,
      String spec,
      long cursorStart,
      Long cursorEnd,
      long mutedUntil,
      long dropped) {}

  /**
   * A group's state.
   *
   * @param labels its labels, a JSON object
   * @param notified whether its firing was sent: its resolution is sent only then
   * @param resolvedEnd the end of the window where it last resolved; null before
   */
  public record Group(
      String id, String labels, boolean firing, boolean notified, Long resolvedEnd) {}

  /**
   * An event: a group fired or resolved in a final window.
   *
   * @param seq its order among the alert's events
   * @param state {@code firing} or {@code resolved}
   * @param labels the group's labels, a JSON object
   * @param values the group's row in the window, a JSON object ({@code {}} when it was absent)
   * @param timeMs when it was evaluated (epoch ms)
   * @param delivery {@code pending}, {@code delivered}, {@code quiet}, {@code muted} or {@code
   *     refused}
   * @param deliveredMs when the sink acknowledged it; null before
   */
  public record Event(
      String alert,
      String groupId,
      long windowStart,
      long windowEnd,
      long seq,
      String state,
      String labels,
      String values,
      long timeMs,
      String delivery,
      int attempts,
      String lastError,
      Long deliveredMs) {
    /** The key a receiver deduplicates on: the same for every delivery of this event. */
    public String key() {
      return alert + ":" + windowStart + ":" + groupId;
    }
  }

  /**
   * What became of an alert's events (those kept), for its listing.
   *
   * @param refused events the sink refused for good (a webhook's 4xx but 408 and 429)
   * @param failedAttempts attempts that failed, over all events kept
   */
  public record Counts(
      long delivered, long pending, long quiet, long muted, long refused, long failedAttempts) {}

  /** The name is taken. */
  static final class Taken extends Exception {
    private static final long serialVersionUID = 1L;
  }

  private AlertStore(SqlConnection db) {
    this.db = db;
  }

  /**
   * Opens the alerts' tables in the standing queries' database: {@code url} as {@code --database}
   * gives it, or null for SQLite under {@code dataDir}; they are created or migrated when needed.
   *
   * @throws IOException when it cannot be reached or its alert tables are newer than this code
   */
  public static AlertStore open(Path dataDir, String url, LongSupplier clock) throws IOException {
    String jdbc = url;
    if (jdbc == null) {
      Files.createDirectories(dataDir);
      jdbc = "jdbc:sqlite:" + dataDir.resolve(StandingStore.FILE).toAbsolutePath();
    }
    boolean sqlite = jdbc.startsWith("jdbc:sqlite:");
    return new AlertStore(
        SqlConnection.open(
            jdbc,
            SqlConnection.redact(jdbc),
            "the alerts in",
            c -> {
              if (sqlite) {
                StandingStore.useSqlite(c);
              }
              Migrations.migrate(c, SCHEMA, sql -> sql, clock);
            },
            null));
  }

  private static final String SELECT_ALERT =
      "SELECT name, standing_query, owns_query, owner, created_ms, spec, cursor_start,"
          + " cursor_end, muted_until, dropped FROM alert";

  /** Every alert, oldest first. */
  public List<Stored> list() {
    return db.with(
        c -> {
          List<Stored> out = new ArrayList<>();
          try (Statement s = c.createStatement();
              ResultSet rs = s.executeQuery(SELECT_ALERT + " ORDER BY created_ms, name")) {
            while (rs.next()) {
              long end = rs.getLong(8);
              Long cursorEnd = rs.wasNull() ? null : end;
              out.add(
                  new Stored(
                      rs.getString(1),
                      rs.getString(2),
                      rs.getInt(3) != 0,
                      rs.getString(4),
                      rs.getLong(5),
                      rs.getString(6),
                      rs.getLong(7),
                      cursorEnd,
                      rs.getLong(9),
                      rs.getLong(10)));
            }
          }
          return out;
        });
  }

  /**
   * Writes a new alert.
   *
   * @throws Taken when one of that name exists
   */
  void insert(Stored a) throws Taken {
    boolean inserted =
        db.with(
            c -> {
              try (PreparedStatement p =
                  c.prepareStatement(
                      "INSERT INTO alert (name, standing_query, owns_query, owner, created_ms,"
                          + " spec, cursor_start, cursor_end, muted_until, dropped) VALUES (?, ?, ?,"
                          + " ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING")) {
                p.setString(1, a.name());
                p.setString(2, a.standingQuery());
                p.setInt(3, a.ownsQuery() ? 1 : 0);
                p.setString(4, a.owner());
                p.setLong(5, a.createdMs());
                p.setString(6, a.spec());
                p.setLong(7, a.cursorStart());
                p.setObject(8, a.cursorEnd(), java.sql.Types.BIGINT);
                p.setLong(9, a.mutedUntil());
                p.setLong(10, a.dropped());
                return p.executeUpdate() == 1;
              }
            });
    if (!inserted) {
      throw new Taken();
    }
  }

  /** Forgets an alert, its groups and its events; whether there was one. */
  boolean delete(String name) {
    return db.transaction(
        c -> {
          int n = 0;
          for (String[] t :
              new String[][] {
                {"alert_event", "alert"}, {"alert_group", "alert"}, {"alert", "name"}
              }) {
            try (PreparedStatement p =
                c.prepareStatement("DELETE FROM " + t[0] + " WHERE " + t[1] + " = ?")) {
              p.setString(1, name);
              n = p.executeUpdate();
            }
          }
          return n > 0;
        });
  }

  /**
   * Sets until when an alert sends nothing (0: unmuted); muting holds back for good what was still
   * to send.
   */
  void mute(String name, long untilMs) {
    db.transaction(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement("UPDATE alert SET muted_until = ? WHERE name = ?")) {
            p.setLong(1, untilMs);
            p.setString(2, name);
            p.executeUpdate();
          }
          if (untilMs > 0) {
            try (PreparedStatement p =
                c.prepareStatement(
                    "UPDATE alert_event SET delivery = ? WHERE alert = ? AND delivery = ?")) {
              p.setString(1, MUTED);
              p.setString(2, name);
              p.setString(3, PENDING);
              p.executeUpdate();
            }
          }
          return null;
        });
  }

  /** The groups of an alert whose state is kept, by id. */
  Map<String, Group> groups(String alert) {
    return db.with(
        c -> {
          Map<String, Group> out = new LinkedHashMap<>();
          try (PreparedStatement p =
              c.prepareStatement(
                  "SELECT group_id, labels, firing, notified, resolved_end FROM alert_group"
                      + " WHERE alert = ? ORDER BY group_id")) {
            p.setString(1, alert);
            try (ResultSet rs = p.executeQuery()) {
              while (rs.next()) {
                long r = rs.getLong(5);
                Long resolvedEnd = rs.wasNull() ? null : r;
                out.put(
                    rs.getString(1),
                    new Group(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getInt(3) != 0,
                        rs.getInt(4) != 0,
                        resolvedEnd));
              }
            }
          }
          return out;
        });
  }

  /** The newest event's order number of an alert; 0 before any. */
  long lastSeq(String alert) {
    return db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement("SELECT COALESCE(MAX(seq), 0) FROM alert_event WHERE alert = ?")) {
            p.setString(1, alert);
            try (ResultSet rs = p.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }

  /**
   * Writes what the evaluation of one final window found, in one transaction: its events (an event
   * of the same alert, group and window already written stays as it is), the groups' new states
   * ({@code forgotten} groups removed), and the cursor at the window. Events beyond the newest
   * {@code keepEvents} of the alert are forgotten; those not yet delivered are counted as dropped.
   *
   * @return the events dropped so
   */
  long evaluated(
      String alert,
      long windowStart,
      long windowEnd,
      List<Event> events,
      Collection<Group> groups,
      Collection<String> forgotten,
      int keepEvents) {
    return db.transaction(
        c -> {
          long dropped = 0;
          try (PreparedStatement p =
              c.prepareStatement(
                  "INSERT INTO alert_event (alert, group_id, window_start, window_end, seq, state,"
                      + " labels, row_values, time_ms, delivery, attempts, last_error,"
                      + " delivered_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, NULL)"
                      + " ON CONFLICT (alert, group_id, window_start) DO NOTHING")) {
            for (Event e : events) {
              p.setString(1, alert);
              p.setString(2, e.groupId());
              p.setLong(3, e.windowStart());
              p.setLong(4, e.windowEnd());
              p.setLong(5, e.seq());
              p.setString(6, e.state());
              p.setString(7, e.labels());
              p.setString(8, e.values());
              p.setLong(9, e.timeMs());
              p.setString(10, e.delivery());
              p.addBatch();
            }
            p.executeBatch();
          }
          try (PreparedStatement p =
              c.prepareStatement(
                  "INSERT INTO alert_group (alert, group_id, labels, firing, notified,"
                      + " resolved_end) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (alert, group_id) DO"
                      + " UPDATE SET labels = excluded.labels, firing = excluded.firing,"
                      + " notified = excluded.notified, resolved_end = excluded.resolved_end")) {
            for (Group g : groups) {
              p.setString(1, alert);
              p.setString(2, g.id());
              p.setString(3, g.labels());
              p.setInt(4, g.firing() ? 1 : 0);
              p.setInt(5, g.notified() ? 1 : 0);
              p.setObject(6, g.resolvedEnd(), java.sql.Types.BIGINT);
              p.addBatch();
            }
            p.executeBatch();
          }
          try (PreparedStatement p =
              c.prepareStatement("DELETE FROM alert_group WHERE alert = ? AND group_id = ?")) {
            for (String id : forgotten) {
              p.setString(1, alert);
              p.setString(2, id);
              p.addBatch();
            }
            p.executeBatch();
          }
          try (PreparedStatement p =
              c.prepareStatement(
                  "UPDATE alert SET cursor_start = ?, cursor_end = ? WHERE name = ?")) {
            p.setLong(1, windowStart);
            p.setLong(2, windowEnd);
            p.setString(3, alert);
            p.executeUpdate();
          }
          if (!events.isEmpty()) {
            long below = events.get(events.size() - 1).seq() - keepEvents;
            try (PreparedStatement p =
                c.prepareStatement(
                    "SELECT COUNT(*) FROM alert_event WHERE alert = ? AND seq <= ? AND delivery"
                        + " = ?")) {
              p.setString(1, alert);
              p.setLong(2, below);
              p.setString(3, PENDING);
              try (ResultSet rs = p.executeQuery()) {
                rs.next();
                dropped = rs.getLong(1);
              }
            }
            try (PreparedStatement p =
                c.prepareStatement("DELETE FROM alert_event WHERE alert = ? AND seq <= ?")) {
              p.setString(1, alert);
              p.setLong(2, below);
              p.executeUpdate();
            }
            if (dropped > 0) {
              try (PreparedStatement p =
                  c.prepareStatement("UPDATE alert SET dropped = dropped + ? WHERE name = ?")) {
                p.setLong(1, dropped);
                p.setString(2, alert);
                p.executeUpdate();
              }
            }
          }
          return dropped;
        });
  }

  private static final String SELECT_EVENT =
      "SELECT alert, group_id, window_start, window_end, seq, state, labels, row_values, time_ms,"
          + " delivery, attempts, last_error, delivered_ms FROM alert_event";

  /** An alert's newest {@code limit} events, newest first. */
  List<Event> history(String alert, int limit) {
    return events(SELECT_EVENT + " WHERE alert = ? ORDER BY seq DESC LIMIT ?", alert, limit);
  }

  /** An alert's oldest {@code limit} events still to deliver, oldest first. */
  List<Event> pending(String alert, int limit) {
    return events(
        SELECT_EVENT + " WHERE alert = ? AND delivery = '" + PENDING + "' ORDER BY seq LIMIT ?",
        alert,
        limit);
  }

  private List<Event> events(String sql, String alert, int limit) {
    return db.with(
        c -> {
          List<Event> out = new ArrayList<>();
          try (PreparedStatement p = c.prepareStatement(sql)) {
            p.setString(1, alert);
            p.setInt(2, limit);
            try (ResultSet rs = p.executeQuery()) {
              while (rs.next()) {
                long d = rs.getLong(13);
                Long deliveredMs = rs.wasNull() ? null : d;
                out.add(
                    new Event(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        rs.getLong(5),
                        rs.getString(6),
                        rs.getString(7),
                        rs.getString(8),
                        rs.getLong(9),
                        rs.getString(10),
                        rs.getInt(11),
                        rs.getString(12),
                        deliveredMs));
              }
            }
          }
          return out;
        });
  }

  /** Marks an event delivered: its sink acknowledged it at {@code atMs}. */
  void delivered(Event e, long atMs) {
    db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement(
                  "UPDATE alert_event SET delivery = ?, attempts = attempts + 1, delivered_ms = ?,"
                      + " last_error = NULL WHERE alert = ? AND group_id = ? AND window_start ="
                      + " ?")) {
            p.setString(1, DELIVERED);
            p.setLong(2, atMs);
            p.setString(3, e.alert());
            p.setString(4, e.groupId());
            p.setLong(5, e.windowStart());
            return p.executeUpdate();
          }
        });
  }

  /** Counts a failed attempt at an event, which stays to deliver. */
  void failed(Event e, String error) {
    db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement(
                  "UPDATE alert_event SET attempts = attempts + 1, last_error = ? WHERE alert = ?"
                      + " AND group_id = ? AND window_start = ?")) {
            p.setString(1, error);
            p.setString(2, e.alert());
            p.setString(3, e.groupId());
            p.setLong(4, e.windowStart());
            return p.executeUpdate();
          }
        });
  }

  /** Marks an event refused for good by its sink: it is not sent again. */
  void refused(Event e, String error) {
    db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement(
                  "UPDATE alert_event SET delivery = ?, attempts = attempts + 1, last_error = ?"
                      + " WHERE alert = ? AND group_id = ? AND window_start = ?")) {
            p.setString(1, REFUSED);
            p.setString(2, error);
            p.setString(3, e.alert());
            p.setString(4, e.groupId());
            p.setLong(5, e.windowStart());
            return p.executeUpdate();
          }
        });
  }

  /** What became of an alert's events (those kept). */
  Counts counts(String alert) {
    return db.with(
        c -> {
          try (PreparedStatement p =
              c.prepareStatement(
                  "SELECT delivery, COUNT(*), SUM(CASE WHEN delivery = 'delivered' THEN attempts -"
                      + " 1 ELSE attempts END) FROM alert_event WHERE alert = ? GROUP BY"
                      + " delivery")) {
            p.setString(1, alert);
            long[] n = new long[6];
            try (ResultSet rs = p.executeQuery()) {
              while (rs.next()) {
                String d = rs.getString(1);
                long count = rs.getLong(2);
                n[5] += rs.getLong(3);
                switch (d) {
                  case DELIVERED -> n[0] = count;
                  case PENDING -> n[1] = count;
                  case QUIET -> n[2] = count;
                  case MUTED -> n[3] = count;
                  case REFUSED -> n[4] = count;
                  default -> {}
                }
              }
            }
            return new Counts(n[0], n[1], n[2], n[3], n[4], n[5]);
          }
        });
  }

  @Override
  public void close() {
    db.close();
  }
}

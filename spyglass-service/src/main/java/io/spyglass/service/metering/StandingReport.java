package io.spyglass.service.metering;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a standing query reports over a span of time.
 *
 * @param windows the windows that overlap the span, oldest first
 * @param withoutTime documents the query read so far without a readable event time: they are in no
 *     window (0 for a query without event-time windows)
 * @param error why the query stopped; null while it runs
 */
public record StandingReport(List<Window> windows, long withoutTime, String error) {
  /**
   * A window as read: from the database, or still held in memory (open, or not yet written).
   *
   * @param records its rows, a JSON array
   * @param late documents that came for it after it was final
   * @param error what is wrong with its records (e.g. groups beyond the exact-group limit are
   *     missing); null when nothing is
   */
  public record Window(
      long start, long end, boolean isFinal, String records, long late, String error) {}

  /**
   * The windows overlapping {@code [fromMs, toMs)}, oldest first, from what the database holds and
   * what memory holds since (the same window in both: memory's is the same or newer).
   *
   * @param stored final windows read from the database
   * @param finals final windows taken since the last checkpoint
   * @param late late counts taken since the last checkpoint, to add to final windows
   * @param open open windows, the newest look first (it wins)
   * @param tenants when not null, only the rows whose {@code tenantField} is one of them
   */
  static List<Window> merge(
      List<StandingStore.Window> stored,
      List<WindowUpdate> finals,
      List<WindowUpdate> late,
      List<WindowUpdate> open,
      long fromMs,
      long toMs,
      String tenantField,
      Set<String> tenants) {
    TreeMap<Long, Window> out = new TreeMap<>();
    for (StandingStore.Window w : stored) {
      out.put(w.start(), new Window(w.start(), w.end(), true, w.records(), w.late(), w.error()));
    }
    for (WindowUpdate w : finals) {
      if (w.end() > fromMs && w.start() < toMs) {
        out.put(w.start(), new Window(w.start(), w.end(), true, w.records(), w.late(), w.error()));
      }
    }
    for (WindowUpdate w : late) {
      Window v = out.get(w.start());
      if (v != null) {
        out.put(
            w.start(),
            new Window(v.start(), v.end(), true, v.records(), v.late() + w.late(), v.error()));
      }
    }
    for (WindowUpdate w : open) {
      if (w.end() > fromMs && w.start() < toMs && !out.containsKey(w.start())) {
        out.put(w.start(), new Window(w.start(), w.end(), false, w.records(), w.late(), w.error()));
      }
    }
    List<Window> windows = new ArrayList<>(out.values());
    if (tenants != null) {
      windows.replaceAll(
          w ->
              new Window(
                  w.start(),
                  w.end(),
                  w.isFinal(),
                  Tenancy.rowsOf(w.records(), tenantField, tenants),
                  w.late(),
                  w.error()));
    }
    return windows;
  }
}

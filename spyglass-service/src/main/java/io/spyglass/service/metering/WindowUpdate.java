package io.spyglass.service.metering;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * What one result of a standing query says about one window.
 *
 * @param start where the window starts (epoch ms)
 * @param end where it ends, exclusive
 * @param isFinal whether its records will not change any more
 * @param late documents that came for it after it was final
 * @param lateUpdate whether the result only adds {@code late} to a window already final (its
 *     records are not the window's)
 * @param records the window's records, a JSON array
 * @param error what is wrong with its records (e.g. groups beyond the exact-group limit are
 *     missing); null when nothing is
 */
record WindowUpdate(
    long start,
    long end,
    boolean isFinal,
    long late,
    boolean lateUpdate,
    String records,
    String error) {
  private static final JsonFactory JSON = new JsonFactory();

  /**
   * The window of a result: an event-time window as the result's metadata describes it; a window of
   * the engine clock from its start to its emission, final when the result is (a look at an open
   * one is not); a query without windows as one window from its start.
   */
  static WindowUpdate of(Result r) {
    Meta.WindowMeta w = r.meta().window().orElse(null);
    if (w == null) {
      long at = r.meta().finishTimeMs().orElse(r.meta().receiveTimeMs());
      return new WindowUpdate(
          r.meta().receiveTimeMs(), at, r.meta().isFinal(), 0, false, json(r), error(r));
    }
    if (w.eventWindow().isPresent()) {
      Meta.EventWindow e = w.eventWindow().get();
      return new WindowUpdate(
          w.startTimeMs(), e.endTimeMs(), e.isFinal(), e.late(), e.lateUpdate(), json(r), error(r));
    }
    return new WindowUpdate(w.startTimeMs(), w.emitTimeMs(), true, 0, false, json(r), error(r));
  }

  /** The result's errors as one text (each message and what to do), or null when none. */
  private static String error(Result r) {
    if (r.meta().errors().isEmpty()) {
      return null;
    }
    StringBuilder b = new StringBuilder();
    for (Meta.QueryError e : r.meta().errors()) {
      b.append(b.length() > 0 ? "; " : "").append(e.message()).append(". ").append(e.resolution());
    }
    return b.toString();
  }

  /** A look at an open window of the engine clock or of a query without windows: not final. */
  WindowUpdate open() {
    return new WindowUpdate(start, end, false, late, false, records, error);
  }

  static String json(Result r) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartArray();
      for (Map<String, Object> rec : r.records()) {
        ResultJson.writeValue(g, rec);
      }
      g.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}

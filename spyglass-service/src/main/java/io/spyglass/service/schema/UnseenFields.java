package io.spyglass.service.schema;

import io.spyglass.core.plan.Names;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.query.Explain;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Fields a query reads that the stream has not shown lately: most often a typo ({@code devise}),
 * which would match nothing without a word. Each is told with the close names the stream has.
 */
public final class UnseenFields {
  /** Below this many records sampled, the live schema is too thin to say a field is absent. */
  static final long MIN_RECORDS = 100;

  /** A field read but not seen: its name, what to say, and the likely names meant (or null). */
  public record Warning(String field, String message, String fix) {}

  private UnseenFields() {}

  /** The warnings for {@code plan} against {@code schema}; none while the schema is thin. */
  public static List<Warning> of(QueryPlan plan, SchemaSampler.Snapshot schema) {
    Set<String> read = Explain.fieldsRead(plan).orElse(Set.of());
    if (schema.records() < MIN_RECORDS || read.isEmpty()) {
      return List.of();
    }
    Set<String> seen = new TreeSet<>();
    for (SchemaSampler.Field f : schema.fields()) {
      int dot = f.path().indexOf('.');
      seen.add(dot < 0 ? f.path() : f.path().substring(0, dot));
    }
    List<Warning> out = new ArrayList<>();
    for (String field : read) {
      if (!seen.contains(field)) {
        List<String> close = Names.closest(field, seen, Math.max(1, field.length() / 3));
        out.add(
            new Warning(
                field,
                field + " has not been seen in the stream lately",
                close.isEmpty() ? null : "Did you mean " + String.join(" or ", close) + "?"));
      }
    }
    return out;
  }
}

package io.spyglass.cli;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Writes results: one JSON object per line, or aligned tables for people. */
final class ResultPrinter {
  enum Format {
    table,
    json
  }

  private final PrintStream out;
  private final Format format;
  private final boolean labelQueries;

  ResultPrinter(PrintStream out, Format format, boolean labelQueries) {
    this.out = out;
    this.format = format;
    this.labelQueries = labelQueries;
  }

  void print(Result r) {
    if (format == Format.json) {
      out.println(r.toJson());
    } else {
      out.print(table(r, labelQueries));
      out.println();
    }
    out.flush();
  }

  static String table(Result r, boolean labelQuery) {
    StringBuilder sb = new StringBuilder();
    Meta m = r.meta();
    sb.append("== ");
    if (labelQuery) {
      sb.append(m.queryId()).append(": ").append(m.queryText()).append(" | ");
    }
    if (m.window().isPresent()) {
      Meta.WindowMeta w = m.window().get();
      sb.append("window ").append(w.number()).append(' ').append(w.name());
    } else {
      sb.append("result");
    }
    if (m.isFinal()) {
      sb.append(" (final)");
    }
    sb.append(" | ")
        .append(r.records().size())
        .append(r.records().size() == 1 ? " record" : " records");
    Object estimated = m.sketch().get("wasEstimated");
    if (Boolean.TRUE.equals(estimated)) {
      sb.append(" | estimated");
    }
    sb.append('\n');
    for (Meta.QueryError e : m.errors()) {
      sb.append("!! ").append(e.message()).append(". ").append(e.resolution()).append('\n');
    }
    if (r.records().isEmpty()) {
      return sb.toString();
    }
    Set<String> columns = new LinkedHashSet<>();
    for (Map<String, Object> row : r.records()) {
      columns.addAll(row.keySet());
    }
    List<String> names = new ArrayList<>(columns);
    int[] widths = new int[names.size()];
    List<String[]> cells = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      widths[i] = names.get(i).length();
    }
    for (Map<String, Object> row : r.records()) {
      String[] line = new String[names.size()];
      for (int i = 0; i < names.size(); i++) {
        Object v = row.get(names.get(i));
        line[i] = v == null ? (row.containsKey(names.get(i)) ? "NULL" : "") : String.valueOf(v);
        if (line[i].length() > 60) {
          line[i] = line[i].substring(0, 57) + "...";
        }
        widths[i] = Math.max(widths[i], line[i].length());
      }
      cells.add(line);
    }
    appendRow(sb, names.toArray(new String[0]), widths);
    for (int i = 0; i < widths.length; i++) {
      sb.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
    }
    sb.append('\n');
    for (String[] line : cells) {
      appendRow(sb, line, widths);
    }
    return sb.toString();
  }

  private static void appendRow(StringBuilder sb, String[] cells, int[] widths) {
    for (int i = 0; i < cells.length; i++) {
      if (i > 0) {
        sb.append(" | ");
      }
      sb.append(cells[i]);
      if (i < cells.length - 1) {
        sb.append(" ".repeat(widths[i] - cells[i].length()));
      }
    }
    sb.append('\n');
  }
}

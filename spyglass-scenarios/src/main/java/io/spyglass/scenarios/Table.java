package io.spyglass.scenarios;

import java.util.ArrayList;
import java.util.List;

/** A table of results: printed as Markdown, saved as CSV. Cells are already formatted. */
public final class Table {
  final String name;
  final String title;
  final List<String> columns;
  final List<List<String>> rows = new ArrayList<>();

  /**
   * @param name file name of the CSV, without extension
   * @param title heading printed above the table
   */
  public Table(String name, String title, String... columns) {
    this.name = name;
    this.title = title;
    this.columns = List.of(columns);
  }

  public Table row(Object... cells) {
    if (cells.length != columns.size()) {
      throw new IllegalArgumentException(
          "table " + name + " has " + columns.size() + " columns, not " + cells.length);
    }
    List<String> r = new ArrayList<>();
    for (Object c : cells) {
      r.add(String.valueOf(c));
    }
    rows.add(r);
    return this;
  }

  String markdown() {
    StringBuilder sb = new StringBuilder("| ").append(String.join(" | ", columns)).append(" |\n|");
    for (int i = 0; i < columns.size(); i++) {
      sb.append(i == 0 ? " :--- |" : " ---: |");
    }
    sb.append('\n');
    for (List<String> r : rows) {
      sb.append("| ").append(String.join(" | ", r)).append(" |\n");
    }
    return sb.toString();
  }

  String csv() {
    StringBuilder sb = new StringBuilder();
    line(sb, columns);
    for (List<String> r : rows) {
      line(sb, r);
    }
    return sb.toString();
  }

  private static void line(StringBuilder sb, List<String> cells) {
    for (int i = 0; i < cells.size(); i++) {
      String c = cells.get(i).replace("**", "");
      if (c.contains(",") || c.contains("\"")) {
        c = '"' + c.replace("\"", "\"\"") + '"';
      }
      sb.append(i == 0 ? "" : ",").append(c);
    }
    sb.append('\n');
  }

  /** A count with thousands separators. */
  public static String count(double v) {
    return String.format("%,d", Math.round(v));
  }

  /** A number with {@code digits} decimals. */
  public static String num(double v, int digits) {
    return Double.isNaN(v) ? "n/a" : String.format("%,." + digits + "f", v);
  }
}

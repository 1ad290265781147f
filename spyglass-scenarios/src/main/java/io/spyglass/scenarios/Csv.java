package io.spyglass.scenarios;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A results CSV of a run, read back for the report: its header and rows, cells by column name, and
 * numbers as the tables format them ("1,189.4", "0.78x", "n/a").
 */
record Csv(List<String> header, List<List<String>> rows) {
  /** The file, or null when it is not there. */
  static Csv read(Path p) throws IOException {
    if (!Files.exists(p)) {
      return null;
    }
    List<List<String>> all = BenchReport.readCsv(p);
    if (all.isEmpty()) {
      return new Csv(List.of(), List.of());
    }
    return new Csv(all.get(0), all.subList(1, all.size()));
  }

  /** The cell of {@code row} in {@code column}, or "" when there is none. */
  String cell(List<String> row, String column) {
    int i = header.indexOf(column);
    return i < 0 || i >= row.size() ? "" : row.get(i);
  }

  /** The number in {@code row}'s {@code column}, or NaN. */
  double number(List<String> row, String column) {
    return parse(cell(row, column));
  }

  /** The first row {@code which} picks, or null. */
  List<String> first(Predicate<List<String>> which) {
    for (List<String> r : rows) {
      if (which.test(r)) {
        return r;
      }
    }
    return null;
  }

  /** The rows {@code which} picks. */
  List<List<String>> all(Predicate<List<String>> which) {
    List<List<String>> out = new ArrayList<>();
    for (List<String> r : rows) {
      if (which.test(r)) {
        out.add(r);
      }
    }
    return out;
  }

  /** A row whose {@code column} holds this number (formatted or not). */
  Predicate<List<String>> is(String column, double value) {
    return r -> number(r, column) == value;
  }

  /** A formatted number ("1,189.4", "0.78x", "1,000 (bound)"); NaN when it is not one. */
  static double parse(String cell) {
    String c = cell.replace(",", "").replace("x", "").strip();
    int space = c.indexOf(' ');
    if (space > 0) {
      c = c.substring(0, space);
    }
    try {
      return Double.parseDouble(c);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}

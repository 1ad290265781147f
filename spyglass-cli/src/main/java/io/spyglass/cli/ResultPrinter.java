package io.spyglass.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes results as UTF-8: one JSON object per line, or aligned tables for people. Both are written
 * as they are made, so a window of many records is never held twice in memory.
 *
 * <p>Tables are for a terminal: text from the stream is escaped (control characters, line breaks
 * and terminal escape sequences become {@code \n}, {@code \u001b}, ...), numbers are written for
 * reading ({@code 17034}, not {@code 17034.0}; 12 significant digits), maps and lists as JSON.
 */
final class ResultPrinter {
  enum Format {
    table,
    json
  }

  /** Longest cell of a table, in characters; longer ones end with "...". */
  private static final int MAX_CELL = 60;

  private static final MathContext DIGITS = new MathContext(12);

  private final PrintStream stream;
  private final Writer out;
  private final Format format;
  private final boolean labelQueries;

  ResultPrinter(PrintStream stream, Format format, boolean labelQueries) {
    this.stream = stream;
    this.out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 1 << 16);
    this.format = format;
    this.labelQueries = labelQueries;
  }

  /**
   * Prints one result and flushes it. Returns false when the output is closed (the reader of a pipe
   * went away, as {@code | head -1} does): nothing more can be printed.
   */
  boolean print(Result r) {
    try {
      if (format == Format.json) {
        ResultJson.write(r, out);
      } else {
        table(r, labelQueries, out);
      }
      out.write('\n');
      out.flush();
    } catch (IOException | UncheckedIOException e) {
      return false;
    }
    // a PrintStream keeps its errors (EPIPE) to itself
    return !stream.checkError();
  }

  static String table(Result r, boolean labelQuery) {
    StringWriter sw = new StringWriter();
    try {
      table(r, labelQuery, sw);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sw.toString();
  }

  /** Writes the table in two passes over the records: column widths, then the rows. */
  static void table(Result r, boolean labelQuery, Writer out) throws IOException {
    Meta m = r.meta();
    StringBuilder head = new StringBuilder("== ");
    if (labelQuery) {
      head.append(m.queryId()).append(": ").append(escape(m.queryText())).append(" | ");
    }
    if (m.window().isPresent()) {
      Meta.WindowMeta w = m.window().get();
      head.append("window ").append(w.number()).append(' ').append(w.name());
    } else {
      head.append("result");
    }
    if (m.isFinal()) {
      head.append(" (final)");
    }
    head.append(" | ")
        .append(r.records().size())
        .append(r.records().size() == 1 ? " record" : " records");
    if (Boolean.TRUE.equals(m.sketch().get("wasEstimated"))) {
      head.append(" | estimated");
    }
    out.write(head.append('\n').toString());
    for (Meta.QueryError e : m.errors()) {
      out.write("!! " + escape(e.message()) + ". " + escape(e.resolution()) + "\n");
    }
    if (r.records().isEmpty()) {
      return;
    }
    Set<String> columns = new LinkedHashSet<>();
    for (Map<String, Object> row : r.records()) {
      columns.addAll(row.keySet());
    }
    List<String> names = new ArrayList<>(columns);
    String[] titles = new String[names.size()];
    int[] widths = new int[names.size()];
    for (int i = 0; i < titles.length; i++) {
      titles[i] = clip(escape(names.get(i)));
      widths[i] = titles[i].length();
    }
    for (Map<String, Object> row : r.records()) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], cell(row, names.get(i)).length());
      }
    }
    StringBuilder line = new StringBuilder();
    appendRow(line, titles, widths);
    for (int i = 0; i < widths.length; i++) {
      line.append(i == 0 ? "" : "-+-").append("-".repeat(widths[i]));
    }
    out.write(line.append('\n').toString());
    String[] cells = new String[names.size()];
    for (Map<String, Object> row : r.records()) {
      for (int i = 0; i < cells.length; i++) {
        cells[i] = cell(row, names.get(i));
      }
      line.setLength(0);
      appendRow(line, cells, widths);
      out.write(line.toString());
    }
  }

  private static String cell(Map<String, Object> row, String column) {
    Object v = row.get(column);
    if (v == null) {
      return row.containsKey(column) ? "NULL" : "";
    }
    return clip(escape(text(v)));
  }

  /** A value as people read it (escaping comes after). */
  static String text(Object v) {
    if (v instanceof Double || v instanceof Float) {
      return number(((Number) v).doubleValue(), v instanceof Float);
    }
    if (v instanceof Map || v instanceof List) {
      StringWriter sw = new StringWriter();
      try (JsonGenerator g = JSON.createGenerator(sw)) {
        ResultJson.writeValue(g, v);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return sw.toString();
    }
    return String.valueOf(v);
  }

  private static final JsonFactory JSON = new JsonFactory();

  /**
   * A floating-point number for reading: whole numbers without a fraction ({@code 17034}, {@code
   * 1795423312539}), others rounded to 12 significant digits ({@code 4668} for {@code
   * 4667.999999999997}), exponents only for the very large and very small.
   */
  static String number(double d, boolean isFloat) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return Double.toString(d);
    }
    double a = Math.abs(d);
    if (a == 0) {
      return "0";
    }
    if (a >= 1e15 || a < 1e-6) {
      return isFloat ? Float.toString((float) d) : Double.toString(d);
    }
    if (d == Math.rint(d)) {
      return Long.toString((long) d);
    }
    BigDecimal exact = isFloat ? new BigDecimal(Float.toString((float) d)) : new BigDecimal(d);
    return exact.round(DIGITS).stripTrailingZeros().toPlainString();
  }

  /**
   * Makes text safe for a terminal: line breaks, tabs, other control characters (C0, DEL, C1, which
   * start terminal escape sequences) and bidirectional overrides are written as escapes.
   */
  static String escape(String s) {
    int i = 0;
    while (i < s.length() && !needsEscape(s.charAt(i))) {
      i++;
    }
    if (i == s.length()) {
      return s;
    }
    StringBuilder sb = new StringBuilder(s.length() + 16).append(s, 0, i);
    for (; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!needsEscape(c)) {
        sb.append(c);
      } else if (c == '\n') {
        sb.append("\\n");
      } else if (c == '\r') {
        sb.append("\\r");
      } else if (c == '\t') {
        sb.append("\\t");
      } else {
        sb.append(String.format("\\u%04x", (int) c));
      }
    }
    return sb.toString();
  }

  private static boolean needsEscape(char c) {
    return c < 0x20
        || (c >= 0x7F && c <= 0x9F)
        || (c >= '\u202A' && c <= '\u202E')
        || (c >= '\u2066' && c <= '\u2069');
  }

  private static String clip(String s) {
    return s.length() > MAX_CELL ? s.substring(0, MAX_CELL - 3) + "..." : s;
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

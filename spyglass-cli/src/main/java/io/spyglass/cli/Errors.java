package io.spyglass.cli;

import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import java.io.PrintWriter;

/** Prints query errors for people: the line of the query, a caret under the spot, the fix. */
final class Errors {
  private Errors() {}

  static void print(PrintWriter err, String label, String text, BqlException e) {
    print(err, label, text, 0, e);
  }

  /**
   * @param label where the query comes from (a file's name), or empty
   * @param firstLine lines before the query's first in what {@code label} names: positions are
   *     given as lines of the file
   */
  static void print(PrintWriter err, String label, String text, int firstLine, BqlException e) {
    String[] lines = text.split("\n", -1);
    for (BqlError error : e.errors()) {
      int line = error.span().line();
      int column = error.span().column();
      err.printf(
          "spyglass: %sinvalid query at line %d, column %d: %s%n",
          label.isEmpty() ? "" : label + ": ", firstLine + line, column, error.message());
      if (line >= 1 && line <= lines.length) {
        String source = lines[line - 1];
        err.println("  " + source);
        int width = Math.max(1, Math.min(error.span().end() - error.span().start(), 80));
        int pad = Math.min(Math.max(0, column - 1), source.length());
        err.println("  " + " ".repeat(pad) + "^".repeat(width));
      }
      err.println("  fix: " + error.resolution());
    }
    err.flush();
  }
}

package io.spyglass.core.syntax;

/**
 * A user error in a query: where it is, what is wrong and what to do about it. A value, not an
 * exception: a query may have several.
 *
 * @param span where in the query text
 * @param message what is wrong, e.g. {@code "Unknown function FOO"}
 * @param resolution what to do, e.g. {@code "Use one of: ABS, TRIM, ..."}
 */
public record BqlError(Span span, String message, String resolution) {
  /** {@code 1:15: message (resolution)}, the form shown to people. */
  @Override
  public String toString() {
    return span.line() + ":" + span.column() + ": " + message + ". " + resolution;
  }
}

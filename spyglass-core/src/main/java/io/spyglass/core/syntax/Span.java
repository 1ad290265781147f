package io.spyglass.core.syntax;

/**
 * Where a piece of query text stands: 1-based line and column of its first character, and the
 * 0-based character offsets {@code [start, end)} into the text.
 */
public record Span(int line, int column, int start, int end) {
  public static final Span NONE = new Span(1, 1, 0, 0);

  /** The span from the start of this one to the end of {@code other}. */
  public Span to(Span other) {
    return new Span(line, column, start, Math.max(end, other.end));
  }
}

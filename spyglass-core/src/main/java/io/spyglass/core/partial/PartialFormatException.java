package io.spyglass.core.partial;

/**
 * Thrown when bytes given to {@link Partials#decode(byte[])} are not a valid encoded partial:
 * truncated, wrong magic or version, unknown kind, lengths larger than the bytes that remain, or a
 * malformed sketch image.
 */
public final class PartialFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public PartialFormatException(String message) {
    super(message);
  }

  public PartialFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}

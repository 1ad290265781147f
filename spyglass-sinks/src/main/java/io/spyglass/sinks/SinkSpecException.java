package io.spyglass.sinks;

/**
 * A sink that is not written right, or that a {@link SinkPolicy} does not allow: what is wrong,
 * what to write instead, and where it was written ({@code sinks[0].url}, {@code --sink}).
 */
public final class SinkSpecException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String resolution;
  private final String field;
  private final boolean refused;

  SinkSpecException(String message, String resolution, String field) {
    this(message, resolution, field, false);
  }

  SinkSpecException(String message, String resolution, String field, boolean refused) {
    super(message);
    this.resolution = resolution;
    this.field = field;
    this.refused = refused;
  }

  /** What to do about it. */
  public String resolution() {
    return resolution;
  }

  /** Where the sink was written: {@code sinks[1].url}, {@code --sink}. */
  public String field() {
    return field;
  }

  /**
   * Whether the sink is well written but not allowed here (a webhook's host not on the allow-list,
   * a file outside the sink folder): the service answers 422, as for a malformed one, and says so.
   */
  public boolean refused() {
    return refused;
  }

  /** The same error, written at {@code where} (e.g. {@code sinks[2]}) rather than at the sink. */
  SinkSpecException at(String where) {
    String f = field.contains(".") ? where + field.substring(field.indexOf('.')) : where;
    return new SinkSpecException(getMessage(), resolution, f, refused);
  }
}

package io.spyglass.service.query;

/**
 * A query refused because a limit is reached: which one, what to do, and when to retry.
 *
 * @see QueryManager#submit
 */
public final class AdmissionException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String limit;
  private final String resolution;
  private final long retryAfterSeconds;

  AdmissionException(String limit, String message, String resolution, long retryAfterSeconds) {
    super(message);
    this.limit = limit;
    this.resolution = resolution;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The limit's name, as its command-line flag without dashes: {@code max-queries}, ... */
  public String limit() {
    return limit;
  }

  public String resolution() {
    return resolution;
  }

  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}

package io.spyglass.core.record;

/** A record's bytes could not be read: malformed JSON, invalid UTF-8, too deep or too large. */
public final class MalformedRecordException extends Exception {
  private static final long serialVersionUID = 1L;

  private final BadRecord reason;

  public MalformedRecordException(BadRecord reason, String message, Throwable cause) {
    super(message, cause, false, false);
    this.reason = reason;
  }

  public MalformedRecordException(BadRecord reason, String message) {
    this(reason, message, null);
  }

  /** Why the record could not be read. */
  public BadRecord reason() {
    return reason;
  }
}

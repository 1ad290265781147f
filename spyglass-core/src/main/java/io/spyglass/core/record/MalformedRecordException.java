package io.spyglass.core.record;

/** A record's bytes could not be read: malformed JSON, invalid UTF-8, too deep or too large. */
public final class MalformedRecordException extends Exception {
  private static final long serialVersionUID = 1L;

  public MalformedRecordException(String message, Throwable cause) {
    super(message, cause, false, false);
  }

  public MalformedRecordException(String message) {
    super(message, null, false, false);
  }
}

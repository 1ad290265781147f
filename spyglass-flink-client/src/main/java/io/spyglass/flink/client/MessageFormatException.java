package io.spyglass.flink.client;

/** Bytes on a Spyglass topic that are not a message of a known version: says what is wrong. */
public final class MessageFormatException extends RuntimeException {
  public MessageFormatException(String message) {
    super(message);
  }

  public MessageFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}

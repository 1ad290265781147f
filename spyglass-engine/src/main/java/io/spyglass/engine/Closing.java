package io.spyglass.engine;

/**
 * Whether the engine is closing: set once, when it stops (closed, its source drained, or failed).
 * The reader stops reading, the barriers fail what waits, and nothing waits for subscribers any
 * more.
 */
final class Closing {
  private volatile boolean set;

  void set() {
    set = true;
  }

  boolean isSet() {
    return set;
  }
}

package io.spyglass.sinks;

import java.util.function.BooleanSupplier;

/** Waits for a condition in tests, instead of sleeping a guessed time. */
final class Await {
  private Await() {}

  /** Waits until {@code condition} holds; fails saying {@code what} after 30 s. */
  static void until(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 30 s: " + what);
      }
      Thread.sleep(5);
    }
  }
}

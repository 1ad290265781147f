package io.spyglass.engine;

/**
 * Back-pressure from result subscribers: how many queries under back-pressure have a full result
 * queue. The reader waits while any has (so the source is read no faster than they read), and goes
 * on when the engine closes.
 *
 * <p>Thread-safe.
 */
final class Backlog {
  private final Object lock = new Object();
  private final Closing closing;

  // guarded by lock
  private int backlogged;

  Backlog(Closing closing) {
    this.closing = closing;
  }

  /** A subscriber's result queue became full ({@code +1}), or not any more ({@code -1}). */
  void change(int delta) {
    synchronized (lock) {
      backlogged += delta;
      if (backlogged == 0) {
        lock.notifyAll();
      }
    }
  }

  /** Waits while a subscriber under back-pressure has a full result queue. */
  void awaitSubscribers() throws InterruptedException {
    synchronized (lock) {
      while (backlogged > 0 && !closing.isSet()) {
        lock.wait(100);
      }
    }
  }
}

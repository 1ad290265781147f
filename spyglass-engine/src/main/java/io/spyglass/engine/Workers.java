package io.spyglass.engine;

/**
 * The filter workers, as the combiner and the reader command them: each has a queue of commands
 * (add, remove a query, flush, drain), taken between two batches.
 */
final class Workers {
  private final Worker[] workers;

  Workers(Worker[] workers) {
    this.workers = workers;
  }

  /** Queues {@code c} for every worker, without waiting (see {@link Worker#command}). */
  void broadcast(Worker.Command c) {
    for (Worker w : workers) {
      w.command(c);
    }
  }

  int count() {
    return workers.length;
  }

  /** Asks every worker to stop after its batch. */
  void stop() {
    for (Worker w : workers) {
      w.stop();
    }
  }
}

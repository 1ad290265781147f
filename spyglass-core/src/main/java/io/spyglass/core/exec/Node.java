package io.spyglass.core.exec;

import io.spyglass.core.record.Record;

/**
 * An evaluator that counts the values it cannot evaluate (a type mismatch, a failed cast, a
 * division by zero) in {@link EvalStats}: such a value is NULL and the query goes on.
 */
abstract class Node extends Eval {
  final EvalStats stats;

  Node(EvalStats stats) {
    this.stats = stats;
  }

  /** Counts a value that could not be evaluated; returns NULL. */
  final int fail() {
    stats.errors++;
    return Record.NULL;
  }

  /** NULL for a value of the wrong kind: counted, unless the value itself was NULL. */
  final int mismatch(int kind) {
    if (kind != Record.NULL) {
      stats.errors++;
    }
    return Record.NULL;
  }

  /** Copies another node's registers into this one's and returns {@code kind}. */
  final int copy(Eval from, int kind) {
    l = from.l;
    d = from.d;
    o = from.o;
    return kind;
  }
}

package io.spyglass.core.exec;

/**
 * Counts what could not be evaluated for one query (a failed cast, a type mismatch, a division by
 * zero, a bad regex): such a value is NULL for that record and the query goes on. Written by the
 * one thread that evaluates; read by others only as a statistic.
 */
public final class EvalStats {
  long errors;

  public long errors() {
    return errors;
  }

  public void add(EvalStats other) {
    errors += other.errors;
  }
}

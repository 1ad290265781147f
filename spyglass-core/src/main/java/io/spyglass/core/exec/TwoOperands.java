package io.spyglass.core.exec;

/** A node of two operands. */
abstract class TwoOperands extends Node {
  final Eval a;
  final Eval b;

  TwoOperands(Eval a, Eval b, EvalStats stats) {
    super(stats);
    this.a = a;
    this.b = b;
  }
}

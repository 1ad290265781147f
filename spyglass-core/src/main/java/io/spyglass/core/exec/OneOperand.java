package io.spyglass.core.exec;

/** A node of one operand. */
abstract class OneOperand extends Node {
  final Eval a;

  OneOperand(Eval a, EvalStats stats) {
    super(stats);
    this.a = a;
  }
}

package io.spyglass.core.plan;

import io.spyglass.core.record.Type;
import java.util.List;

/**
 * An operator or function applied to arguments. For {@link Op#CAST} the target is {@code type}.
 *
 * @param type the result type, fixed by the binder
 */
public record Call(Op op, List<Expr> args, Type type) implements Expr {
  public Call {
    args = List.copyOf(args);
  }

  public Expr arg(int i) {
    return args.get(i);
  }
}

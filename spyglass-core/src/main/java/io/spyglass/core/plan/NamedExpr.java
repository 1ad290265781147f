package io.spyglass.core.plan;

/** An expression and the column name it gets in results. */
public record NamedExpr(Expr expr, String name) {}

package io.spyglass.core.syntax;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown when query text cannot be parsed, bound or validated. Carries every error found. */
public final class BqlException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient List<BqlError> errors;

  public BqlException(List<BqlError> errors) {
    super(errors.stream().map(BqlError::toString).collect(Collectors.joining("; ")));
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a BqlException needs at least one error");
    }
    this.errors = List.copyOf(errors);
  }

  public BqlException(BqlError error) {
    this(List.of(error));
  }

  public List<BqlError> errors() {
    return errors;
  }
}

package io.spyglass.core.record;

import java.util.Objects;

/**
 * The type of a value. Primitive types stand alone; {@link Kind#MAP} and {@link Kind#LIST} carry
 * the type of their elements ({@link #UNKNOWN} when mixed or not known until a record is read).
 */
public final class Type {
  /** The kinds of value a record holds. */
  public enum Kind {
    NULL,
    BOOLEAN,
    INTEGER,
    LONG,
    FLOAT,
    DOUBLE,
    STRING,
    MAP,
    LIST,
    /** Not known until evaluated: a field of a schema-less record. */
    UNKNOWN;

    public boolean isNumeric() {
      return this == INTEGER || this == LONG || this == FLOAT || this == DOUBLE;
    }

    public boolean isIntegral() {
      return this == INTEGER || this == LONG;
    }

    public boolean isPrimitive() {
      return this == BOOLEAN || isNumeric() || this == STRING;
    }
  }

  public static final Type NULL = new Type(Kind.NULL, null);
  public static final Type BOOLEAN = new Type(Kind.BOOLEAN, null);
  public static final Type INTEGER = new Type(Kind.INTEGER, null);
  public static final Type LONG = new Type(Kind.LONG, null);
  public static final Type FLOAT = new Type(Kind.FLOAT, null);
  public static final Type DOUBLE = new Type(Kind.DOUBLE, null);
  public static final Type STRING = new Type(Kind.STRING, null);
  public static final Type UNKNOWN = new Type(Kind.UNKNOWN, null);
  public static final Type MAP = new Type(Kind.MAP, UNKNOWN);
  public static final Type LIST = new Type(Kind.LIST, UNKNOWN);

  private final Kind kind;
  private final Type element;

  private Type(Kind kind, Type element) {
    this.kind = kind;
    this.element = element;
  }

  public static Type of(Kind kind) {
    switch (kind) {
      case NULL:
        return NULL;
      case BOOLEAN:
        return BOOLEAN;
      case INTEGER:
        return INTEGER;
      case LONG:
        return LONG;
      case FLOAT:
        return FLOAT;
      case DOUBLE:
        return DOUBLE;
      case STRING:
        return STRING;
      case MAP:
        return MAP;
      case LIST:
        return LIST;
      default:
        return UNKNOWN;
    }
  }

  /** A map whose values have the given type, e.g. {@code MAP[STRING]} or {@code MAP[MAP[LONG]]}. */
  public static Type mapOf(Type element) {
    return new Type(Kind.MAP, Objects.requireNonNull(element));
  }

  /** A list whose elements have the given type, e.g. {@code LIST[MAP[STRING]]}. */
  public static Type listOf(Type element) {
    return new Type(Kind.LIST, Objects.requireNonNull(element));
  }

  public Kind kind() {
    return kind;
  }

  /** The element type of a map or list; {@code null} for other kinds. */
  public Type element() {
    return element;
  }

  public boolean isNumeric() {
    return kind.isNumeric();
  }

  public boolean isUnknown() {
    return kind == Kind.UNKNOWN;
  }

  /** The BQL spelling: {@code LONG}, {@code MAP[STRING]}, {@code LIST[MAP[DOUBLE]]}. */
  @Override
  public String toString() {
    if (element == null || element.kind == Kind.UNKNOWN) {
      return kind.name();
    }
    return kind.name() + "[" + element + "]";
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Type)) {
      return false;
    }
    Type t = (Type) o;
    return kind == t.kind && Objects.equals(element, t.element);
  }

  @Override
  public int hashCode() {
    return kind.hashCode() * 31 + Objects.hashCode(element);
  }
}

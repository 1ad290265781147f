package io.spyglass.core.partial;

/** The kinds of partial state; {@link #tag()} is the kind byte of the encoding. */
public enum PartialKind {
  RAW(1),
  GROUP(2),
  COUNT_DISTINCT(3),
  DISTRIBUTION(4),
  TOP_K(5),
  EVENT_TIME(6);

  private final int tag;

  PartialKind(int tag) {
    this.tag = tag;
  }

  public int tag() {
    return tag;
  }

  static PartialKind ofTag(int tag) {
    for (PartialKind k : values()) {
      if (k.tag == tag) {
        return k;
      }
    }
    throw new PartialFormatException("unknown partial kind tag " + tag);
  }
}

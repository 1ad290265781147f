package io.spyglass.core.record;

/** Experiment switches of the scan (temporary: measured, then kept or dropped). */
final class ScanTuning {
  private ScanTuning() {}

  static final boolean TOUCH = Boolean.getBoolean("spyglass.scan.touch");
  static final boolean WIDE = Boolean.getBoolean("spyglass.scan.wide");
  static final boolean NUMBERS = Boolean.getBoolean("spyglass.scan.numbers");
  static final boolean X4 = Boolean.getBoolean("spyglass.scan.x4");
  static final boolean X5 = Boolean.getBoolean("spyglass.scan.x5");
  static final boolean X6 = Boolean.getBoolean("spyglass.scan.x6");
  static final boolean X7 = Boolean.getBoolean("spyglass.scan.x7");
  static final boolean X8 = Boolean.getBoolean("spyglass.scan.x8");
  static final boolean X9 = Boolean.getBoolean("spyglass.scan.x9");
}

package io.spyglass.core.query;

import io.spyglass.core.plan.Window;

/** The BQL spelling of a window, for result metadata. */
final class WindowNames {
  private WindowNames() {}

  /** The window as written in BQL, or null for no window. */
  static String of(Window w) {
    if (w instanceof Window.Tumbling) {
      Window.Tumbling t = (Window.Tumbling) w;
      return "TUMBLING(" + t.size() + ", " + t.unit() + ")";
    } else if (w instanceof Window.Additive) {
      return "EVERY(" + ((Window.Additive) w).emitEveryMs() + ", TIME, ALL)";
    } else if (w instanceof Window.Sliding) {
      Window.Sliding s = (Window.Sliding) w;
      return "EVERY("
          + s.emitEvery()
          + ", "
          + s.emitUnit()
          + ", FIRST, "
          + s.size()
          + ", "
          + s.sizeUnit()
          + ")";
    }
    return null;
  }
}

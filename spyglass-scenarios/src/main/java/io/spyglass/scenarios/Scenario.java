package io.spyglass.scenarios;

/** One scenario of {@code spyglass bench}: it drives engines, and writes tables and charts. */
interface Scenario {
  /** The name on the command line, e.g. {@code raw-queries}. */
  String name();

  /** One line: what it measures and which published study it follows. */
  String description();

  void run(Settings settings, Report report) throws Exception;
}

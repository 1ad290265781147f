package io.spyglass.scenarios;

/**
 * One scenario of {@code spyglass bench}: it drives engines, and writes tables and charts. The
 * scenarios of this module are built in; a module that needs more than the embedded engine (the
 * Flink job) adds its own through {@link java.util.ServiceLoader} (a public class with a public
 * constructor, named in {@code META-INF/services/io.spyglass.scenarios.Scenario}), so that this
 * module depends on no other runtime.
 */
public interface Scenario {
  /** The name on the command line, e.g. {@code raw-queries}. */
  String name();

  /** One line: what it measures and which published study it follows. */
  String description();

  void run(Settings settings, Report report) throws Exception;
}

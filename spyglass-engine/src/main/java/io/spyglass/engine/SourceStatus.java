package io.spyglass.engine;

import io.spyglass.sources.Source;

/**
 * What became of the engine's source: whether it ended (or failed), and why it failed. Set by the
 * reader; read by the combiner (the final results of a failed source carry its error) and by the
 * engine's users.
 */
final class SourceStatus {
  private final Source source;
  private volatile String error;
  private volatile boolean ended;

  SourceStatus(Source source) {
    this.source = source;
  }

  /** The source ended: nothing more will be read. */
  void ended() {
    ended = true;
  }

  /** The source failed: nothing more will be read, and {@code error} says why. */
  void failed(String error) {
    this.error = error;
    this.ended = true;
  }

  /** See {@link Engine#sourceError()}. */
  String error() {
    return error;
  }

  /** See {@link Engine#sourceEnded()}. */
  boolean hasEnded() {
    return ended;
  }

  /** See {@link Engine#sourceProblem()}. */
  String problem() {
    return source.problem();
  }
}

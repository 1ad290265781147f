package io.spyglass.service.runtime;

/**
 * How a standing query starts on a runtime: a query without end that survives restarts. Its results
 * are never dropped: while its listener is not {@link ResultListener#ready ready} they wait, and
 * the runtime stops reading its source rather than lose them.
 *
 * @param createdMs when it was defined (epoch ms): its start, kept across restarts
 * @param state the state it resumes from, as a {@link CheckpointMarker} carried it; null to start
 *     afresh
 */
public record StandingOptions(long createdMs, byte[] state) {}

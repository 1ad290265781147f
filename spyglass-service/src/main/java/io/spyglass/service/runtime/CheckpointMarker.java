package io.spyglass.service.runtime;

/**
 * A checkpoint's mark in one standing query's result stream, delivered to its listener ({@link
 * ResultListener#onCheckpoint}) in order with its results, as a barrier flows with the records:
 * every result the listener got before the marker came from records before the cut, and {@link
 * #state} has seen exactly those; every result after it, from records after the cut.
 *
 * @param checkpoint the checkpoint's number in this runtime (1 for the first), as {@link
 *     CheckpointCut#checkpoint()} gives it
 * @param position the source's position at the cut (the ingest log's, for the standing queries'
 *     source); -1 for a source that has none
 * @param state the query's state at the cut, to restart it from ({@link StandingOptions#state()})
 */
public record CheckpointMarker(long checkpoint, long position, byte[] state) {}

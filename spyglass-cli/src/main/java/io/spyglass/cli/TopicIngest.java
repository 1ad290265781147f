package io.spyglass.cli;

import io.spyglass.engine.ingest.IdIndex;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.flink.client.IngestTopicWriter;
import io.spyglass.service.metering.Metering;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accepted documents of {@code serve --runtime flink --kafka HOST:PORT --source http} written
 * to the records topic once per id within the id horizon, as the ingest log does on the other
 * forms: a document whose id was accepted within {@code --id-horizon} (or earlier in the same
 * request) is a repeat, not written, counted in {@code duplicates}.
 *
 * <p>The ids are kept in memory ({@link IdIndex}) and in a journal under {@code --data} ({@link
 * IdJournal}) written in the order of the Kafka commits: a request's new ids are forced to the
 * journal once its records are on the broker and <em>before</em> its transaction commits, and their
 * outcome is written after it. So after a {@code kill -9} (or a machine lost) the journal holds
 * every committed request's ids, at worst without the outcome: such a request is looked up in the
 * records topic (read committed: its first record is there or it was aborted) before any request is
 * taken. A commit that fails without saying how it ended is looked up the same way at once (a
 * request whose commit did happen is answered 202), or before the next request. A job's TaskManager
 * lost changes nothing here: the job reads each committed record once from its checkpoints.
 *
 * <p>Chosen over ids kept by the job: the 202 tells how many documents were repeats, as on the
 * other forms, which only the service can know before it answers; and the job's state stays the
 * standing queries' (a week of ids is about 50 bytes each, here, in the service's memory).
 *
 * <p>Thread-safe: one request at a time ({@link #write} is synchronized, as the writer's
 * transactions are).
 */
final class TopicIngest implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TopicIngest.class);

  /** How often closed journal files past the horizon are looked for. */
  static final long RETIRE_EVERY_MS = 10_000;

  private final IngestTopicWriter writer;
  private final IdJournal journal;
  private final IdIndex ids;
  private final List<IdJournal.Group> unresolved;
  private final long horizonMs;
  private final LongSupplier wallMs;
  private long retiredAtMs;

  private TopicIngest(
      IngestTopicWriter writer,
      IdJournal journal,
      IdIndex ids,
      List<IdJournal.Group> unresolved,
      long horizonMs,
      LongSupplier wallMs) {
    this.writer = writer;
    this.journal = journal;
    this.ids = ids;
    this.unresolved = unresolved;
    this.horizonMs = horizonMs;
    this.wallMs = wallMs;
    this.retiredAtMs = wallMs.getAsLong();
  }

  /**
   * Reads the journal under {@code dataDir} and looks up in Kafka the requests whose outcome it
   * does not hold.
   *
   * @param horizonMs how long an accepted id is remembered ({@code --id-horizon})
   * @param wallMs the wall clock, epoch ms: when a document is accepted
   * @throws IOException when the journal does not read (the message says what to do) or Kafka does
   *     not tell how a request ended
   */
  static TopicIngest open(
      IngestTopicWriter writer, Path dataDir, long horizonMs, LongSupplier wallMs)
      throws IOException, InterruptedException {
    IdIndex ids = new IdIndex();
    IdJournal.Opened o =
        IdJournal.open(dataDir.resolve(IdJournal.DIR), ids, wallMs.getAsLong() - horizonMs);
    TopicIngest t =
        new TopicIngest(
            writer, o.journal(), ids, new ArrayList<>(o.unresolved()), horizonMs, wallMs);
    try {
      t.resolve();
    } catch (IOException | RuntimeException | InterruptedException e) {
      o.journal().close();
      throw e;
    }
    LOG.info(
        "{} ids of documents written to Kafka within the id horizon remembered ({})",
        ids.size(),
        dataDir.resolve(IdJournal.DIR));
    return t;
  }

  /**
   * Writes the request's new documents in one transaction; a repeat is not written.
   *
   * @throws IOException when they could not be written (none of them was kept)
   */
  synchronized Metering.Accepted write(List<Ingestor.Doc> docs)
      throws IOException, InterruptedException {
    resolve();
    long now = wallMs.getAsLong();
    retire(now);
    long since = now - horizonMs;
    List<IngestTopicWriter.Doc> fresh = new ArrayList<>(docs.size());
    long[] hashes = new long[2 * docs.size()];
    Set<String> inRequest = new HashSet<>();
    int duplicates = 0;
    for (Ingestor.Doc d : docs) {
      long[] h = IdIndex.hash(d.id());
      long seen = ids.get(h[0], h[1]);
      if ((seen != -1 && seen >= since) || !inRequest.add(d.id())) {
        duplicates++;
        continue;
      }
      hashes[2 * fresh.size()] = h[0];
      hashes[2 * fresh.size() + 1] = h[1];
      fresh.add(
          new IngestTopicWriter.Doc(
              d.id(), Arrays.copyOfRange(d.data(), d.offset(), d.offset() + d.length())));
    }
    if (fresh.isEmpty()) {
      return new Metering.Accepted(0, duplicates);
    }
    long[] theirs = Arrays.copyOf(hashes, 2 * fresh.size());
    long number = journal.nextNumber();
    IdJournal.Group[] group = new IdJournal.Group[1];
    try {
      writer.write(
          fresh,
          (partition, offset) -> {
            IdJournal.Group g = new IdJournal.Group(number, partition, offset, now, theirs);
            journal.pending(g);
            group[0] = g;
          });
    } catch (IOException e) {
      if (group[0] == null) {
        throw e; // aborted before its ids were in the journal: nothing of it is anywhere
      }
      // the commit may have happened: Kafka tells
      unresolved.add(group[0]);
      boolean committed;
      try {
        committed = resolve(group[0]);
      } catch (IOException notTold) {
        e.addSuppressed(notTold);
        throw e;
      }
      if (!committed) {
        throw e;
      }
      LOG.warn("a request's commit failed ({}), yet Kafka shows it committed: answered 202", e);
      return new Metering.Accepted(fresh.size(), duplicates);
    }
    IdJournal.put(group[0], ids);
    try {
      journal.resolved(number, true);
    } catch (IOException e) {
      // without it a start looks the request up in Kafka
      LOG.warn("the id journal could not note a commit: {}", e.toString());
    }
    return new Metering.Accepted(fresh.size(), duplicates);
  }

  /** Looks up in Kafka how each request whose outcome is not known ended. */
  private void resolve() throws IOException, InterruptedException {
    while (!unresolved.isEmpty()) {
      resolve(unresolved.get(0));
    }
  }

  /** Looks up in Kafka how the unresolved request {@code g} ended: true when it was committed. */
  private boolean resolve(IdJournal.Group g) throws IOException, InterruptedException {
    boolean committed = writer.committed(g.partition(), g.offset());
    LOG.info(
        "a request of {} documents written to Kafka before at partition {} offset {} was {}",
        g.hashes().length / 2,
        g.partition(),
        g.offset(),
        committed ? "committed: its ids are remembered" : "not committed: its ids are not");
    if (committed) {
      IdJournal.put(g, ids);
    }
    journal.resolved(g.number(), committed);
    unresolved.remove(g);
    return committed;
  }

  /** Every 10 s: forgets the ids (and deletes the journal files) past the horizon. */
  private void retire(long now) {
    if (now - retiredAtMs < RETIRE_EVERY_MS) {
      return;
    }
    retiredAtMs = now;
    try {
      journal.retire(now - horizonMs, ids);
    } catch (IOException e) {
      LOG.warn("the id journal's files past the horizon could not be deleted: {}", e.toString());
    }
  }

  /** The journal, for a test that writes to it as a process stopping would. */
  IdJournal journal() {
    return journal;
  }

  @Override
  public synchronized void close() throws IOException {
    journal.close();
  }
}

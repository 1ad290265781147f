package io.spyglass.cli;

import io.spyglass.engine.ingest.IdIndex;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.flink.client.IngestTopicWriter;
import io.spyglass.service.metering.Metering;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
   * What a start does when the id journal is missing or empty while the records topic holds
   * documents this instance wrote within the horizon: without their ids, a document among them sent
   * again would be counted twice.
   */
  enum IfJournalLost {
    /** Stop the start, saying what to do (the default). */
    REFUSE,
    /**
     * Read their ids back from the topic (the records' keys) into the journal ({@code
     * --rebuild-kafka-ids}).
     */
    REBUILD,
    /** Go on without them: repeats of them count again ({@code --accept-missing-ids}). */
    ACCEPT
  }

  /** Most ids of one group written to the journal by a rebuild. */
  static final int REBUILT_GROUP_IDS = 1 << 16;

  /** Longest time between the first and last documents of one group written by a rebuild. */
  static final long REBUILT_GROUP_MS = 60_000;

  /**
   * As {@link #open(IngestTopicWriter, Path, long, LongSupplier, IfJournalLost)}, refusing to start
   * when the journal was lost.
   */
  static TopicIngest open(
      IngestTopicWriter writer, Path dataDir, long horizonMs, LongSupplier wallMs)
      throws IOException, InterruptedException {
    return open(writer, dataDir, horizonMs, wallMs, IfJournalLost.REFUSE);
  }

  /**
   * Reads the journal under {@code dataDir} and looks up in Kafka the requests whose outcome it
   * does not hold. A journal that is missing or empty while the records topic holds documents this
   * instance wrote within the horizon was lost (deleted, or a --data without it): {@code ifLost}
   * says what then.
   *
   * @param horizonMs how long an accepted id is remembered ({@code --id-horizon})
   * @param wallMs the wall clock, epoch ms: when a document is accepted
   * @throws IOException when the journal does not read or was lost (the message says what to do),
   *     or Kafka does not tell how a request ended
   */
  static TopicIngest open(
      IngestTopicWriter writer,
      Path dataDir,
      long horizonMs,
      LongSupplier wallMs,
      IfJournalLost ifLost)
      throws IOException, InterruptedException {
    Path dir = dataDir.resolve(IdJournal.DIR);
    long since = wallMs.getAsLong() - horizonMs;
    List<IdJournal.Group> lost = IdJournal.holdsNone(dir) ? readBack(writer, since) : List.of();
    if (!lost.isEmpty() && ifLost == IfJournalLost.REFUSE) {
      throw new IOException(lostJournal(dir, lost, since));
    }
    IdIndex ids = new IdIndex();
    IdJournal.Opened o = IdJournal.open(dir, ids, since);
    if (!lost.isEmpty()) {
      int n = documents(lost);
      if (ifLost == IfJournalLost.ACCEPT) {
        LOG.warn(
            "the id journal {} is missing or empty while the records topic holds {} documents this"
                + " instance wrote within the id horizon; going on without their ids"
                + " (--accept-missing-ids): any of them sent again counts again",
            dir,
            n);
      } else {
        try {
          for (IdJournal.Group g : lost) {
            IdJournal.Group numbered =
                new IdJournal.Group(
                    o.journal().nextNumber(),
                    g.partition(),
                    g.offset(),
                    g.acceptedMs(),
                    g.hashes());
            o.journal().pending(numbered);
            o.journal().resolved(numbered.number(), true);
            IdJournal.put(numbered, ids);
          }
        } catch (IOException e) {
          o.journal().close();
          throw e;
        }
        LOG.warn(
            "the id journal {} was missing or empty: the ids of the {} documents this instance wrote"
                + " to the records topic within the id horizon were read back from it"
                + " (--rebuild-kafka-ids)",
            dir,
            n);
      }
    }
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
        dir);
    return t;
  }

  /**
   * The documents this instance wrote to the records topic since {@code sinceMs}, as groups of the
   * journal in time order (not numbered yet: the journal numbers them as it takes them): each group
   * of one partition's consecutive documents, accepted at its latest timestamp.
   */
  static List<IdJournal.Group> readBack(IngestTopicWriter writer, long sinceMs)
      throws IOException, InterruptedException {
    List<IdJournal.Group> out = new ArrayList<>();
    Map<Integer, Building> open = new HashMap<>();
    writer.readBack(
        sinceMs,
        (partition, offset, timestampMs, id) -> {
          Building b = open.get(partition);
          if (b != null
              && (b.count == REBUILT_GROUP_IDS || timestampMs - b.firstMs > REBUILT_GROUP_MS)) {
            out.add(b.group());
            b = null;
          }
          if (b == null) {
            b = new Building(partition, offset, timestampMs);
            open.put(partition, b);
          }
          b.add(IdIndex.hash(id), timestampMs);
        });
    open.values().forEach(b -> out.add(b.group()));
    out.sort(Comparator.comparingLong(IdJournal.Group::acceptedMs));
    return out;
  }

  /** The documents of {@code groups}. */
  private static int documents(List<IdJournal.Group> groups) {
    return groups.stream().mapToInt(g -> g.hashes().length / 2).sum();
  }

  /** A group of the journal being made from the documents read back. */
  private static final class Building {
    final int partition;
    final long offset;
    final long firstMs;
    long lastMs;
    long[] hashes = new long[64];
    int count;

    Building(int partition, long offset, long firstMs) {
      this.partition = partition;
      this.offset = offset;
      this.firstMs = firstMs;
      this.lastMs = firstMs;
    }

    void add(long[] h, long timestampMs) {
      if (2 * count + 2 > hashes.length) {
        hashes = Arrays.copyOf(hashes, hashes.length * 2);
      }
      hashes[2 * count] = h[0];
      hashes[2 * count + 1] = h[1];
      count++;
      lastMs = Math.max(lastMs, timestampMs);
    }

    IdJournal.Group group() {
      return new IdJournal.Group(-1, partition, offset, lastMs, Arrays.copyOf(hashes, 2 * count));
    }
  }

  /** Why a start with the journal lost is refused, and what to do. */
  private static String lostJournal(Path dir, List<IdJournal.Group> lost, long sinceMs) {
    int n = documents(lost);
    return "the id journal "
        + dir
        + " is missing or empty, yet the records topic holds "
        + n
        + " documents this instance wrote within --id-horizon (since "
        + java.time.Instant.ofEpochMilli(sinceMs)
        + "): a document among them sent again would be counted twice. Restore "
        + dir
        + " from the copy of --data (with the database), or start once with --rebuild-kafka-ids"
        + " to read their ids back from the topic (the records' keys), or with"
        + " --accept-missing-ids to go on without them (repeats of them then count again)";
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

package io.spyglass.cli;

import io.spyglass.core.run.CheckedQuery;
import io.spyglass.flink.MeteringRun;
import io.spyglass.flink.client.Reply;
import io.spyglass.service.metering.JobReplies;
import io.spyglass.service.metering.JobStanding;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The standing queries' Flink job of {@code serve --runtime flink --source http}: a {@link
 * MeteringRun} on a mini cluster in this process, over the ingest log's files, its checkpoints
 * under {@code DATA/flink}.
 */
final class MeteringJob implements JobStanding.Job {
  private final MeteringRun run;

  private MeteringJob(MeteringRun run) {
    this.run = run;
  }

  /**
   * Starts the job with {@code settings}: restored from its latest checkpoint when there is one.
   */
  static JobStanding.Starter starter(MeteringRun.Settings settings) {
    return new JobStanding.Starter() {
      @Override
      public JobStanding.Job start(
          Path ingestDir,
          Path jobDir,
          Consumer<JobReplies.Reply> replies,
          LongSupplier committedEnd)
          throws Exception {
        return new MeteringJob(
            MeteringRun.start(ingestDir, jobDir, settings, r -> forward(r, replies), committedEnd));
      }

      @Override
      public Map<String, Boolean> queries(Path jobDir) throws IOException {
        return MeteringRun.queries(jobDir);
      }
    };
  }

  /**
   * The job's results, ends and answers to looks, as the service takes them; its other replies say
   * nothing here.
   */
  static void forward(Reply r, Consumer<JobReplies.Reply> replies) {
    switch (r.kind()) {
      case RESULT -> replies.accept(JobReplies.Reply.result(r.queryId(), r.result()));
      case ENDED, REJECTED -> replies.accept(JobReplies.Reply.ended(r.queryId(), r.error()));
      case OPEN -> replies.accept(JobReplies.Reply.open(r.queryId(), r.result()));
      case INSPECTED -> replies.accept(JobReplies.Reply.looked(r.queryId(), r.sync()));
      case SAVED -> replies.accept(JobReplies.Reply.saved(r.queryId(), r.sync()));
      default -> {}
    }
  }

  @Override
  public void submit(String id, CheckedQuery query, long receiveTimeMs, long fromPosition)
      throws IOException {
    run.submit(id, query, receiveTimeMs, fromPosition);
  }

  @Override
  public void kill(String id) throws IOException {
    run.kill(id);
  }

  @Override
  public long inspect(String id, boolean windows) {
    return run.inspect(id, windows);
  }

  @Override
  public long readPosition() {
    return run.readPosition();
  }

  @Override
  public long checkpointedPosition() throws IOException {
    return run.checkpointedPosition();
  }

  @Override
  public String describe() {
    return "the Flink job on a mini cluster in this process"
        + (run.restoredFrom() == null ? "" : " (restored from " + run.restoredFrom() + ")");
  }

  @Override
  public void close() throws IOException {
    run.close();
  }
}

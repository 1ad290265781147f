package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The formats of the job over the ingest log, byte for byte: its readers' splits and its
 * enumerator's state (in checkpoints) and the control log (on disk, read after a restart).
 */
class IngestStateFormatsTest {
  @TempDir Path dir;

  @Test
  void aSplitIsItsIndexAndItsTwoPositions() throws Exception {
    IngestInput.SplitSerializer s = new IngestInput.SplitSerializer();
    IngestInput.Split split = new IngestInput.Split(1, 0x0102030405L, 8);
    byte[] bytes = s.serialize(split);
    assertThat(s.getVersion()).isEqualTo(1);
    assertThat(HexFormat.of().formatHex(bytes))
        .isEqualTo("00000001" + "0000000102030405" + "0000000000000008");
    assertThat(s.deserialize(1, bytes)).isEqualTo(split);
    assertThatThrownBy(() -> s.deserialize(2, bytes))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2")
        .hasMessageContaining("restore it with the job's version that wrote it");
  }

  @Test
  void theEnumeratorKeepsTheReadersGivenTheirSplit() throws Exception {
    IngestInput.AssignedSerializer s = new IngestInput.AssignedSerializer();
    TreeSet<Integer> assigned = new TreeSet<>(List.of(0, 1));
    byte[] bytes = s.serialize(assigned);
    assertThat(HexFormat.of().formatHex(bytes)).isEqualTo("00000002" + "00000000" + "00000001");
    assertThat(s.deserialize(1, bytes)).isEqualTo(assigned);
  }

  @Test
  void theControlLogKeepsWholeMessagesAndCutsATornOne() throws Exception {
    Path file = dir.resolve("flink").resolve(MeteringRun.CONTROL_FILE);
    byte[] q = "{\"v\": 1, \"type\": \"kill\", \"id\": \"a\"}".getBytes(StandardCharsets.UTF_8);
    long first;
    long second;
    try (ControlLog log = ControlLog.open(file)) {
      first = log.append(517, q);
      second = log.append(-1, q);
      assertThat(first).isEqualTo(ControlLog.HEADER);
      assertThat(second).isEqualTo(ControlLog.HEADER + ControlLog.ENTRY_HEADER + q.length);
    }
    byte[] bytes = Files.readAllBytes(file);
    assertThat(HexFormat.of().formatHex(bytes, 0, 8)).isEqualTo("5347434c01000000");
    ByteBuffer b = ByteBuffer.wrap(bytes);
    assertThat(b.getInt(8)).isEqualTo(q.length);
    assertThat(b.getLong(16)).isEqualTo(517);
    // a write torn by a crash: half of a third message
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(bytes, 8, 20), bytes.length);
    }
    try (ControlLog.Reader r = new ControlLog.Reader(file)) {
      ControlLog.Entry e = r.read(first);
      assertThat(e.at()).isEqualTo(517);
      assertThat(e.json()).isEqualTo(q);
      assertThat(e.next()).isEqualTo(second);
      assertThat(r.read(second).at()).isEqualTo(-1);
      assertThat(r.read(r.read(second).next())).as("the torn message is not read").isNull();
    }
    try (ControlLog log = ControlLog.open(file)) {
      assertThat(log.end()).isEqualTo(bytes.length);
      assertThat(Files.size(file)).as("the torn message is cut off").isEqualTo(bytes.length);
    }
  }

  @Test
  void aFileThatIsNotAControlLogIsRefused() throws Exception {
    Path file = dir.resolve("control.log");
    Files.writeString(file, "not a control log");
    assertThatThrownBy(() -> ControlLog.open(file))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is not a control log of version 1");
  }
}

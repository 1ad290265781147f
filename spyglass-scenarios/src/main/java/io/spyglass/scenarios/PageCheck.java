package io.spyglass.scenarios;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether every generated block of a document has data behind it ({@code spyglass bench report
 * --check}): a block that says its results are missing, or an image the document links that is not
 * there, is a gap. A publication refuses to finish with a gap, and the test suite runs the report
 * on quick results to keep every block producible.
 */
final class PageCheck {
  private static final Pattern BLOCK =
      Pattern.compile("<!-- generated: (.+?) -->\\n(.*?)<!-- end -->", Pattern.DOTALL);
  private static final Pattern IMAGE = Pattern.compile("!\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  static final String NOT_MEASURED = "_Not measured in this run";

  private PageCheck() {}

  /** The gaps of the document, each as "block: what is missing"; empty when there is none. */
  static List<String> gaps(Path doc) throws IOException {
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    List<String> gaps = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      String spec = m.group(1).strip();
      String body = m.group(2);
      int at = body.indexOf(NOT_MEASURED);
      if (at >= 0) {
        int end = body.indexOf('\n', at);
        gaps.add(spec + ": " + body.substring(at, end < 0 ? body.length() : end).strip());
      }
      for (String line : body.split("\n")) {
        if (line.endsWith("| not measured |")) {
          gaps.add(
              spec + ": " + line.substring(2, Math.min(line.length(), 80)) + "...: not measured");
        }
      }
    }
    Path dir = doc.toAbsolutePath().getParent();
    Matcher img = IMAGE.matcher(text);
    while (img.find()) {
      String link = img.group(1);
      if (link.contains("://")) {
        continue;
      }
      if (!Files.isRegularFile(dir.resolve(link)) || Files.size(dir.resolve(link)) == 0) {
        gaps.add("image " + link + ": not there");
      }
    }
    return gaps;
  }
}

package io.spyglass.testkit.arch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * docs/architecture.md's picture of the modules is the build's: every module of the root pom, and
 * every dependency of one module on another (test scope left out), as an arrow, and nothing else.
 */
class ArchitectureDocTest {
  private static final Path ROOT = Path.of("..");
  private static final String BEGIN = "<!-- modules:begin -->";
  private static final String END = "<!-- modules:end -->";
  private static final String PREFIX = "spyglass-";

  @Test
  void theModulePictureIsTheBuilds() throws Exception {
    Set<String> modules = new TreeSet<>();
    Set<String> edges = new TreeSet<>();
    for (Node n : children(pom(ROOT.resolve("pom.xml")), "modules")) {
      String module = n.getTextContent().trim();
      modules.add(module);
      for (Node d : children(pom(ROOT.resolve(module).resolve("pom.xml")), "dependencies")) {
        Element dep = (Element) d;
        String scope = text(dep, "scope");
        if (text(dep, "groupId").equals("io.spyglass") && !scope.equals("test")) {
          edges.add(id(module) + " --> " + id(text(dep, "artifactId")));
        }
      }
    }

    String doc = Files.readString(ROOT.resolve("docs/architecture.md"));
    int from = doc.indexOf(BEGIN);
    int to = doc.indexOf(END);
    assertThat(from).as("the markers of the module picture in docs/architecture.md").isPositive();
    String picture = doc.substring(from + BEGIN.length(), to);
    Set<String> drawn = new TreeSet<>();
    Set<String> nodes = new TreeSet<>();
    for (String line : picture.split("\n")) {
      String l = line.trim();
      Matcher node = Pattern.compile("(\\w+)\\[(" + PREFIX + "[\\w-]+)\\]").matcher(l);
      if (node.matches()) {
        assertThat(node.group(1)).as(l).isEqualTo(id(node.group(2)));
        nodes.add(node.group(2));
      } else if (l.contains("-->")) {
        drawn.add(l);
      }
    }
    assertThat(nodes)
        .as("docs/architecture.md: one node per module of pom.xml, e.g. sinks[spyglass-sinks]")
        .isEqualTo(modules);
    assertThat(drawn)
        .as(
            "docs/architecture.md: one arrow per dependency of a module on another (not in test"
                + " scope), e.g. service --> engine")
        .isEqualTo(edges);
  }

  /** A module's node id in the picture: its name without the prefix, '-' as '_'. */
  private static String id(String module) {
    return module.substring(PREFIX.length()).replace('-', '_');
  }

  private static Element pom(Path file) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document d = f.newDocumentBuilder().parse(file.toFile());
    return d.getDocumentElement();
  }

  /** The element children of {@code project}'s own {@code <name>} (not those of a profile). */
  private static List<Node> children(Element project, String name) {
    List<Node> out = new ArrayList<>();
    for (Node n = project.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n.getNodeName().equals(name)) {
        for (Node c = n.getFirstChild(); c != null; c = c.getNextSibling()) {
          if (c.getNodeType() == Node.ELEMENT_NODE) {
            out.add(c);
          }
        }
      }
    }
    return out;
  }

  private static String text(Element e, String name) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n.getNodeName().equals(name)) {
        return n.getTextContent().trim();
      }
    }
    return "";
  }
}

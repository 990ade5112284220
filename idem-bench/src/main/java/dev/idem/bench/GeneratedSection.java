package dev.idem.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One section of a generated Markdown file, kept between {@code <!-- name:start -->} and {@code
 * <!-- name:end -->}. Writing it replaces what the markers hold and leaves the rest of the file as
 * it was, so several runners can share one file; a missing file is created with {@code intro}, a
 * missing section is appended.
 *
 * @param file the Markdown file
 * @param name the section's name in its markers
 * @param intro the text a new file starts with
 */
record GeneratedSection(Path file, String name, String intro) {

  /** Replaces the section's content with {@code body}, creating the file or section if missing. */
  void write(String body) throws IOException {
    String start = "<!-- " + name + ":start -->";
    String end = "<!-- " + name + ":end -->";
    String section = start + "\n" + body.strip() + "\n" + end;
    String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : intro;
    int from = text.indexOf(start);
    int to = text.indexOf(end);
    String updated;
    if (from >= 0 && to > from) {
      updated = text.substring(0, from) + section + text.substring(to + end.length());
    } else {
      updated = text.stripTrailing() + "\n\n" + section + "\n";
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(file, updated, StandardCharsets.UTF_8);
  }
}

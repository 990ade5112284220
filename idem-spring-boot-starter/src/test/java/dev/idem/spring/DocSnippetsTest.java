package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet of the README and of docs/ compiles as shown, its imports included, against
 * Idem and the libraries it names: a reader can copy one and find every type where it says.
 *
 * <p>A snippet is compiled as a file of its own when it declares top-level types; else as the
 * members of a class (fields, methods, nested types); else as the statements of a method. What a
 * snippet uses without showing it (the reader's own {@code gateway}, {@code order}) is declared in
 * an HTML comment just above it, which Markdown does not show: {@code <!-- given: ... -->} holds
 * top-level Java declarations, and a class {@code Given} among them is the class the snippet's
 * members or statements are written in.
 */
class DocSnippetsTest {

  private static final Path ROOT = Path.of("..");
  private static final Pattern SNIPPET =
      Pattern.compile("(?:<!-- given:\\n((?:(?!-->).)*)-->\\n)?```java\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern TYPE_START =
      Pattern.compile(
          "^(?:(?:public|final|abstract|sealed)\\s+)*(?:class|interface|record|enum|@interface)\\s",
          Pattern.MULTILINE);

  private static final Pattern GIVEN = Pattern.compile("^<!-- given:$", Pattern.MULTILINE);
  private static final Pattern PUBLIC_TYPE =
      Pattern.compile(
          "^public\\s+(?:(?:final|abstract|sealed)\\s+)*(?:class|interface|record|enum)\\s+(\\w+)",
          Pattern.MULTILINE);

  @TempDir Path out;

  @TestFactory
  Stream<DynamicTest> everySnippetCompilesAsShown() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (Path doc : docs()) {
      String text = Files.readString(doc);
      Matcher m = SNIPPET.matcher(text);
      int givens = 0;
      while (m.find()) {
        givens += m.group(1) == null ? 0 : 1;
        int line = text.substring(0, m.start(2)).split("\n", -1).length;
        String name = ROOT.relativize(doc) + ":" + line;
        String given = m.group(1) == null ? "" : m.group(1);
        String code = m.group(2);
        tests.add(DynamicTest.dynamicTest(name, () -> compiles(name, given, code)));
      }
      // a given-comment that no snippet follows at once would be ignored
      assertThat(givens)
          .as(ROOT.relativize(doc) + ": given-comments right above a snippet")
          .isEqualTo((int) GIVEN.matcher(text).results().count());
    }
    assertThat(tests).as("snippets found").hasSizeGreaterThan(20);
    return tests.stream();
  }

  @Test
  void theJdbcDocNamesEveryColumnOfTheRecordsTable() throws IOException {
    String schema =
        Files.readString(
            ROOT.resolve(
                "idem-jdbc/src/main/resources/dev/idem/jdbc/flyway/postgresql/"
                    + "beforeMigrate__idem_tables.sql"));
    String table = schema.substring(schema.indexOf("idem_records"), schema.indexOf(");"));
    String doc = Files.readString(ROOT.resolve("docs/jdbc.md"));
    String described = doc.substring(doc.indexOf("- **Table**"), doc.indexOf("- **Clock**"));
    Matcher column = Pattern.compile("^\\s+([a-z_]+)\\s+[A-Z]", Pattern.MULTILINE).matcher(table);
    List<String> columns = new ArrayList<>();
    while (column.find()) {
      columns.add(column.group(1));
    }
    assertThat(columns).hasSizeGreaterThan(10);
    for (String name : columns) {
      assertThat(described).as("docs/jdbc.md names column " + name).containsPattern("\\b" + name);
    }
  }

  private static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  private void compiles(String name, String given, String code) throws IOException {
    String pkg = "snippets." + name.replaceAll("[^A-Za-z0-9]", "_").toLowerCase(Locale.ROOT);
    Source snippet = Source.split(code);
    Source context = Source.split(given);
    // the snippet sees only its own imports: a hidden import must not cover a missing one
    String imports = snippet.imports();
    List<JavaFileObject> files = new ArrayList<>();
    if (!given.isBlank()) {
      files.add(file(pkg, "Given", context.imports() + context.body()));
    }
    String extendsGiven = given.contains("class Given") ? " extends Given" : "";
    if (TYPE_START.matcher(snippet.body()).find() && !snippet.hasStatementsOutsideTypes()) {
      Matcher named = PUBLIC_TYPE.matcher(snippet.body());
      String type = named.find() ? named.group(1) : "Snippet";
      files.add(file(pkg, type, imports + snippet.body()));
      assertCompiles(name, files);
      return;
    }
    List<JavaFileObject> asMembers = new ArrayList<>(files);
    asMembers.add(
        file(
            pkg,
            "Snippet",
            imports + "class Snippet" + extendsGiven + " {\n" + snippet.body() + "}\n"));
    List<String> asMemberErrors = compile(asMembers);
    if (asMemberErrors.isEmpty()) {
      return;
    }
    files.add(
        file(
            pkg,
            "Snippet",
            imports
                + "class Snippet"
                + extendsGiven
                + " {\n void snippet() throws Exception {\n"
                + snippet.body()
                + "}\n}\n"));
    assertThat(compile(files))
        .as(name + " compiles as statements (as members: " + asMemberErrors + ")")
        .isEmpty();
  }

  private void assertCompiles(String name, List<JavaFileObject> files) throws IOException {
    List<String> errors = compile(files);
    assertThat(errors).as(name + " compiles").isEmpty();
  }

  private List<String> compile(List<JavaFileObject> files) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager manager =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<String> options =
          List.of(
              "-proc:none",
              "-parameters",
              "-d",
              Files.createDirectories(out.resolve("classes")).toString(),
              "-classpath",
              classPath());
      javac.getTask(null, manager, diagnostics, options, null, files).call();
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        errors.add("line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT));
      }
    }
    return errors;
  }

  // surefire may put the test class path in a manifest; it also gives it whole in this property
  private static String classPath() {
    String full = System.getProperty("surefire.test.class.path");
    return full != null ? full : System.getProperty("java.class.path");
  }

  private static JavaFileObject file(String pkg, String type, String source) {
    String text = "package " + pkg + ";\n" + source;
    URI uri = URI.create("string:///" + pkg.replace('.', '/') + "/" + type + ".java");
    return new SimpleJavaFileObject(uri, JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return text;
      }
    };
  }

  /** A snippet's import lines and the rest. */
  private record Source(String imports, String body) {

    static Source split(String code) {
      StringBuilder imports = new StringBuilder();
      StringBuilder body = new StringBuilder();
      for (String line : code.split("\n", -1)) {
        if (line.startsWith("import ") && body.toString().isBlank()) {
          imports.append(line).append('\n');
        } else {
          body.append(line).append('\n');
        }
      }
      return new Source(imports.toString(), body.toString());
    }

    // a line at the left margin that is neither a type, an annotation, a closing brace nor a
    // comment is a statement or a member outside any type
    boolean hasStatementsOutsideTypes() {
      int depth = 0;
      for (String line : body.split("\n")) {
        String trimmed = line.strip();
        if (depth == 0
            && !trimmed.isEmpty()
            && !trimmed.startsWith("@")
            && !trimmed.startsWith("//")
            && !trimmed.startsWith("}")
            && !TYPE_START.matcher(trimmed).find()) {
          return true;
        }
        depth += count(line, '{') - count(line, '}');
      }
      return false;
    }

    private static int count(String line, char c) {
      int code = line.indexOf("//");
      String text = code < 0 ? line : line.substring(0, code);
      return (int) text.chars().filter(ch -> ch == c).count();
    }
  }
}

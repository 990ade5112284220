package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every published jar names its Java module, so that JPMS users and tools see stable names: the
 * jars the reactor built before this module, read as the module system reads them.
 */
class ModuleNamesIT {

  private static final Map<String, String> NAMES =
      Map.of(
          "idem-core", "dev.idem.core",
          "idem-jdbc", "dev.idem.jdbc",
          "idem-redis", "dev.idem.redis",
          "idem-test-support", "dev.idem.testsupport",
          "idem-spring-boot-starter", "dev.idem.spring",
          "idem-spring-boot-starter-jdbc", "dev.idem.spring.starter.jdbc",
          "idem-spring-boot-starter-redis", "dev.idem.spring.starter.redis");

  @Test
  void everyPublishedJarNamesItsModule() throws IOException {
    for (Map.Entry<String, String> module : NAMES.entrySet()) {
      Path jar = jarOf(module.getKey());
      List<String> found =
          ModuleFinder.of(jar).findAll().stream()
              .map(ModuleReference::descriptor)
              .map(d -> d.name() + (d.isAutomatic() ? "" : " (explicit)"))
              .toList();
      assertThat(found).as(jar.toString()).containsExactly(module.getValue());
    }
  }

  private static Path jarOf(String module) throws IOException {
    Path target = Path.of("..", module, "target");
    try (Stream<Path> files = Files.list(target)) {
      return files
          .filter(p -> p.getFileName().toString().matches(module + "-[0-9][^-]*(-SNAPSHOT)?\\.jar"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no jar of " + module + " in " + target));
    }
  }
}

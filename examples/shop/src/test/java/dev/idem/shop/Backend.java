package dev.idem.shop;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.springframework.test.context.ActiveProfilesResolver;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * What the end-to-end suites run on: the embedded default, or the services profile on PostgreSQL or
 * MariaDB (with Redis and RabbitMQ), chosen by the system property {@value #PROPERTY}. The shop's
 * build declares the matrix once: Surefire runs the suites embedded, and one Failsafe execution per
 * database runs the same suites with the property set, so no suite has a class per database.
 */
enum Backend {
  EMBEDDED(null),
  POSTGRES("services-it.properties"),
  MARIADB("mariadb-it.properties");

  /**
   * The system property naming the backend: {@code postgres} or {@code mariadb}; unset embedded.
   */
  static final String PROPERTY = "shop.it.backend";

  private final String properties;

  Backend(String properties) {
    this.properties = properties;
  }

  static Backend current() {
    String name = System.getProperty(PROPERTY, "");
    return switch (name) {
      case "" -> EMBEDDED;
      case "postgres" -> POSTGRES;
      case "mariadb" -> MARIADB;
      default -> throw new IllegalArgumentException(PROPERTY + " is postgres or mariadb: " + name);
    };
  }

  /** Whether the shop runs on its services (a server database, Redis, RabbitMQ). */
  boolean services() {
    return this != EMBEDDED;
  }

  /** A fresh database, Redis prefix and queue for this JVM's first context; once. */
  void prepareOnce() {
    switch (this) {
      case POSTGRES -> ServicesDatabase.recreateOnce();
      case MARIADB -> ServicesDatabase.recreateMariaDbOnce();
      case EMBEDDED -> {}
    }
  }

  String[] profiles() {
    return switch (this) {
      case EMBEDDED -> new String[] {"test"};
      case POSTGRES -> new String[] {"test", "services"};
      case MARIADB -> new String[] {"test", "services", "mariadb"};
    };
  }

  /** Adds the backend's properties (database, prefixes, users) to a test's environment. */
  void addProperties(DynamicPropertyRegistry registry) {
    if (properties == null) {
      return;
    }
    Properties loaded = new Properties();
    try (InputStream in = Backend.class.getClassLoader().getResourceAsStream(properties)) {
      loaded.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    loaded.stringPropertyNames().forEach(name -> registry.add(name, () -> loaded.get(name)));
  }

  /** The profiles of the current backend, for {@code @ActiveProfiles(resolver = ...)}. */
  static final class Profiles implements ActiveProfilesResolver {
    @Override
    public String[] resolve(Class<?> testClass) {
      return current().profiles();
    }
  }
}

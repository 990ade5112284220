package dev.idem.chaos;

import java.nio.file.Path;

/**
 * Where the chaos run finds the shop and the shared servers, and where it writes.
 *
 * @param shopJar the shop's executable jar
 * @param workDir logs of the shops and of the private Redis, one folder per scenario
 * @param reportDir where report.md and the charts go
 * @param postgresHost PostgreSQL, for profile services (user {@code postgresUser}, trust)
 * @param postgresPort its port
 * @param postgresUser its user
 * @param rabbitHost RabbitMQ ({@code guest}/{@code guest})
 * @param rabbitPort its port
 */
public record Settings(
    Path shopJar,
    Path workDir,
    Path reportDir,
    String postgresHost,
    int postgresPort,
    String postgresUser,
    String rabbitHost,
    int rabbitPort) {}

package dev.idem.redis;

import dev.idem.core.resume.ResumeLog;
import java.util.function.Supplier;

/** Builds, in a crash test's child JVM, a resume log on the same standalone Redis as the tests. */
public final class StandaloneResumeLogFactory implements Supplier<ResumeLog> {

  @Override
  public ResumeLog get() {
    return RedisResumeLog.create(RedisTestServers.standaloneClient());
  }
}

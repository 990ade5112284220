package dev.idem.testsupport;

import dev.idem.core.resume.InMemoryResumeLog;
import dev.idem.core.resume.ResumeLog;
import java.time.Instant;

class InMemoryResumeLogContractTest extends ResumeLogContract {

  private final MutableClock clock = MutableClock.stoppedAt(Instant.parse("2026-12-06T10:00:00Z"));
  private final InMemoryResumeLog log = new InMemoryResumeLog(clock);

  @Override
  protected ResumeLog log() {
    return log;
  }

  @Override
  protected TimeControl time() {
    return TimeControl.of(clock);
  }
}

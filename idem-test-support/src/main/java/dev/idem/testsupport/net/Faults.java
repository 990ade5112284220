package dev.idem.testsupport.net;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The faults a {@link FaultProxy} applies now, read by every connection's threads, and counters.
 */
final class Faults {

  volatile Duration latency = Duration.ZERO;
  volatile boolean blackhole;
  volatile boolean refuse;
  final AtomicLong forwarded = new AtomicLong();
  final AtomicLong dropped = new AtomicLong();
}

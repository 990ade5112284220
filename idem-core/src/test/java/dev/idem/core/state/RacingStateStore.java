package dev.idem.core.state;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A store that lets a test play a rival writer: the next guarded write first runs a scripted change
 * to the records, so the caller's read and write straddle someone else's move.
 */
final class RacingStateStore implements StateStore<String, Status> {

  final Map<String, Status> records = new ConcurrentHashMap<>();
  private Consumer<Map<String, Status>> rival = records -> {};

  void beforeNextWrite(Consumer<Map<String, Status>> rival) {
    this.rival = rival;
  }

  @Override
  public Optional<Status> find(String id) {
    return Optional.ofNullable(records.get(id));
  }

  @Override
  public boolean compareAndSet(String id, Status from, Status to) {
    Consumer<Map<String, Status>> move = rival;
    rival = records -> {};
    move.accept(records);
    return records.replace(id, from, to);
  }
}

package dev.idem.core.resume;

import dev.idem.core.IdempotencyStoreException;
import java.time.Duration;
import java.util.List;

/**
 * Where resumable calls wait for their end: the journal a {@link Completer} reads. A backend makes
 * each method atomic on its storage, for callers on any node sharing it; due times and expiry come
 * from the storage's own clock. A method that cannot reach the storage throws {@link
 * IdempotencyStoreException}, changing nothing. The contract suite in {@code idem-test-support}
 * checks these rules.
 *
 * <p>An entry is identified by its operation and {@link ResumeEntry#id()} (its key): a key has one
 * entry at a time. Every change but {@link #remember} and {@link #takeDue} acts only on the entry
 * of the key that has the given entry's fingerprint, so a change meant for an earlier request of
 * the key never touches the request that replaced it. An entry is pending until a completer
 * abandons it, and it is removed by {@link #forget}, or by {@link #purgeExpired} once it outlived
 * the {@code keepFor} it was written with.
 */
public interface ResumeLog {

  /**
   * Writes a pending entry, due {@code delay} from now and kept for {@code keepFor}, unless the
   * key's entry is there with the same fingerprint: then nothing changes (its attempts, due time
   * and expiry stay), so that a run that takes a call over does not restart the count of the
   * completer's attempts. An entry of the key with another fingerprint, pending or abandoned, is
   * replaced: its request gave the key up, and this one holds it now.
   */
  void remember(ResumeEntry entry, Duration delay, Duration keepFor);

  /**
   * Takes up to {@code limit} pending, unexpired entries of {@code operation} whose due time has
   * come, earliest first, and makes each due again {@code hold} from now, so that another completer
   * passes them over while this one runs them.
   */
  List<ResumeEntry> takeDue(String operation, Duration hold, int limit);

  /**
   * Counts a failed attempt on a pending entry and makes it due {@code delay} from now. Returns
   * false, changing nothing, when the entry is gone or abandoned.
   */
  boolean failed(ResumeEntry entry, Duration delay);

  /**
   * Counts a last failed attempt on a pending entry and marks it abandoned; false, changing
   * nothing, when it is gone or abandoned.
   */
  boolean abandon(ResumeEntry entry);

  /** Up to {@code limit} abandoned, unexpired entries of {@code operation}. */
  List<ResumeEntry> abandoned(String operation, int limit);

  /**
   * Makes an abandoned entry pending again with no attempts, due now: an operator's retry. False,
   * changing nothing, when it is gone or not abandoned.
   */
  boolean reopen(ResumeEntry entry);

  /** Removes an entry, pending or abandoned; false when it was not there. */
  boolean forget(ResumeEntry entry);

  /**
   * Deletes up to {@code limit} expired entries and returns how many it deleted. Safe to call from
   * several nodes at once; a storage that expires entries by itself may return 0.
   */
  int purgeExpired(int limit);
}

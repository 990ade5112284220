/**
 * Bounded retries for optimistic, version-checked updates.
 *
 * <p>An optimistic update reads a row with its version, decides, and writes only if the version is
 * unchanged: {@code UPDATE account SET balance = :newBalance, version = version + 1 WHERE id = :id
 * AND version = :seenVersion}. Zero rows updated means another writer got there first; {@link
 * dev.idem.core.retry.OptimisticRetry} runs the read-decide-write again, a bounded number of times,
 * with exponential backoff and full jitter so that the losers do not collide again in step.
 *
 * <p><b>Often no retry is needed at all.</b> When the decision can be written into the {@code
 * WHERE} clause, a single conditional update does the check and the write atomically and cannot
 * lose a race:
 *
 * <pre>{@code
 * UPDATE account SET balance = balance - :amount WHERE id = :id AND balance >= :amount
 * }</pre>
 *
 * <p>One row updated means the deduction happened; zero rows means the account is missing or short
 * of funds, a final answer rather than a conflict. Prefer this shape whenever it fits: it needs no
 * read, no version column and no retry, and concurrent deductions queue on the row lock instead of
 * failing. Keep the read-and-retry path for decisions the database cannot express in one statement.
 *
 * <p>Retrying a lost race is safe because a lost race wrote nothing. That does not make the
 * operation idempotent: if the caller repeats it (a client retry, a redelivered message), a second
 * deduction succeeds. Pair the update with an idempotency key or a state transition for that.
 */
@NullMarked
package dev.idem.core.retry;

import org.jspecify.annotations.NullMarked;

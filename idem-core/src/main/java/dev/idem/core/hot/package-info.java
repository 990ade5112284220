/**
 * Deductions from a hot account: one row that many payers debit at the same moment.
 *
 * <p>The article deducts with a version column and retries three times. On a hot account most of
 * those attempts lose their race and the payment is refused although the money is there. {@link
 * dev.idem.core.hot.HotAccountExecutor} removes the race instead of retrying it: per account, one
 * caller at a time (the leader) takes every deduction queued behind it and applies them as one
 * batch, in one transaction of a {@link dev.idem.core.hot.HotAccountStore}. Nobody loses a race, so
 * a deduction is refused only when the funds are really gone, and the database sees one transaction
 * per batch instead of one per payer.
 *
 * <p>The store is the truth: it records every deduction under its request id (an order number, a
 * payment number), so a repeat is answered {@link dev.idem.core.hot.DeductionResult#DUPLICATE} and
 * never debited twice, also when another process applies it. The in-process queue is only an
 * optimisation of how often the store is called.
 */
@NullMarked
package dev.idem.core.hot;

import org.jspecify.annotations.NullMarked;

package dev.idem.shop.payment;

import dev.idem.core.state.StateTransitions;
import dev.idem.spring.Idempotent;
import java.util.Locale;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Takes one payment from PENDING to its end, as a resumable call keyed by its payment number.
 *
 * <p>Its recovery points: the PENDING → PROCESSING transition (guarded, so a rerun finds it made);
 * the card charge, a step ({@link CardCharge}) whose answer is stored as soon as the gateway gives
 * it, so that a rerun settles from that answer without calling the gateway again; the wallet's
 * debit, which its ledger row (unique per order) makes once; and the settlement, a guarded
 * transition that applies its effects and writes the payment's event in one transaction. A wallet
 * payment found PROCESSING is finished from the ledger ({@link WalletCharger#finish}): debited now
 * if no run debited it, settled from the debit if one did.
 *
 * <p>A run that dies or fails (a lost gateway answer, a busy wallet, a crash) is run again by
 * whichever comes first: a request that pays the order, with any key, or Idem's completer, which
 * finds the call unfinished once its lease ended. Two runs of one payment never overlap: the second
 * waits for the first and gets its answer.
 */
@Component
public class PaymentFlow {

  /** The operation of the flow's calls, and so the name of its policy and meters. */
  public static final String OPERATION = "payment-flow";

  private final PaymentRepository payments;
  private final StateTransitions<String, PaymentStatus> transitions;
  private final CardCharge card;
  private final WalletCharger wallet;
  private final Settlement settlement;
  private final TransactionTemplate tx;
  private final PaymentJournal journal;

  PaymentFlow(
      PaymentRepository payments,
      StateTransitions<String, PaymentStatus> transitions,
      CardCharge card,
      WalletCharger wallet,
      Settlement settlement,
      TransactionTemplate tx,
      PaymentJournal journal) {
    this.payments = payments;
    this.transitions = transitions;
    this.card = card;
    this.wallet = wallet;
    this.settlement = settlement;
    this.tx = tx;
    this.journal = journal;
  }

  /**
   * Drives the payment to SUCCESS or FAILED and answers where it ended; a payment that ended
   * already (a callback settled it) answers its status.
   *
   * @throws dev.idem.shop.gateway.GatewayTimeoutException when the gateway's answer is lost: the
   *     payment stays PROCESSING and the flow is run again
   * @throws WalletBusyException when the hot wallet gave no answer: likewise
   */
  @Idempotent(operation = OPERATION, key = "#paymentNo", resumable = true, waitFor = "10s")
  public PaymentStatus complete(String paymentNo) {
    Payment payment = current(paymentNo);
    if (payment.status() == PaymentStatus.SUCCESS || payment.status() == PaymentStatus.FAILED) {
      journal.write(paymentNo, PaymentJournal.runner() + " found it " + payment.status());
      return payment.status();
    }
    journal.write(paymentNo, PaymentJournal.runner() + " runs the flow");
    try {
      PaymentStatus ended = drive(payment);
      journal.write(paymentNo, "ended " + ended);
      return ended;
    } catch (RuntimeException e) {
      journal.write(
          paymentNo,
          "stopped (" + e.getClass().getSimpleName() + "): the flow runs again, from its steps");
      throw e;
    }
  }

  private PaymentStatus drive(Payment payment) {
    String paymentNo = payment.paymentNo();
    tx.executeWithoutResult(
        s -> {
          if (transitions
              .transition(paymentNo, PaymentStatus.PENDING, PaymentStatus.PROCESSING)
              .changed()) {
            payments.startedProcessing(paymentNo);
          }
        });
    if (payment.method() == PaymentMethod.WALLET) {
      // a run before this one got to PROCESSING: its debit may have committed (hot modes, or a
      // mode changed since), so the ledger says whether to debit or only to settle
      WalletCharger.Result result =
          payment.status() == PaymentStatus.PROCESSING
              ? wallet.finish(payment)
              : wallet.charge(payment);
      journal.write(paymentNo, "wallet: " + result.name().toLowerCase(Locale.ROOT));
    } else {
      String earlierKey = payments.earlierGatewayKey(paymentNo).orElse(null);
      settlement.settle(
          payment,
          card.charge(payment.paymentNo(), payment.orderNo(), payment.amount(), earlierKey));
    }
    return current(paymentNo).status();
  }

  private Payment current(String paymentNo) {
    return payments
        .find(paymentNo)
        .orElseThrow(() -> new IllegalStateException("no payment " + paymentNo));
  }
}

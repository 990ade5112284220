package dev.idem.shop.payment;

import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.LockProvider;
import dev.idem.shop.ShopProperties;
import dev.idem.shop.gateway.FakeGateway;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Resolves payments left in PROCESSING (a lost answer, a lost callback, a crash). A card payment by
 * asking the gateway, which closes a payment number it never saw so that a late charge cannot slip
 * in afterwards; a wallet payment from the ledger: a debit recorded for the order means SUCCESS,
 * and one not made yet is made now, once ({@link WalletCharger#finish}). One instance runs it at a
 * time (a database lock); the lock only saves work, since settling is a guarded transition anyway.
 */
@Component
public class Reconciler {

  private static final Logger log = LoggerFactory.getLogger(Reconciler.class);
  private static final String LOCK = "shop:reconcile";

  private final PaymentRepository payments;
  private final FakeGateway gateway;
  private final Settlement settlement;
  private final WalletCharger wallet;
  private final LockProvider locks;
  private final Duration olderThan;

  Reconciler(
      PaymentRepository payments,
      FakeGateway gateway,
      Settlement settlement,
      WalletCharger wallet,
      LockProvider locks,
      ShopProperties properties) {
    this.payments = payments;
    this.gateway = gateway;
    this.settlement = settlement;
    this.wallet = wallet;
    this.locks = locks;
    this.olderThan = properties.reconcile().olderThan();
  }

  @Scheduled(
      fixedDelayString = "${shop.reconcile.interval:10s}",
      initialDelayString = "${shop.reconcile.interval:10s}")
  void scheduled() throws InterruptedException {
    runOnce();
  }

  /** One pass; returns how many payments it looked at, or -1 if another instance is running. */
  public int runOnce() throws InterruptedException {
    Optional<LockHandle> lock = locks.tryLock(LOCK, Duration.ZERO, Duration.ofMinutes(1));
    if (lock.isEmpty()) {
      return -1;
    }
    try (LockHandle held = lock.get()) {
      int seen = 0;
      for (Payment payment : payments.processingLongerThan(olderThan)) {
        resolve(payment);
        seen++;
      }
      return seen;
    }
  }

  private void resolve(Payment payment) {
    if (payment.method() == PaymentMethod.WALLET) {
      try {
        log.info("reconciled {}: wallet says {}", payment.paymentNo(), wallet.finish(payment));
      } catch (WalletBusyException e) {
        log.warn("could not reconcile {} now: {}", payment.paymentNo(), e.getMessage());
      }
      return;
    }
    var outcome = gateway.queryOrCancel(payment.paymentNo(), payment.orderNo(), payment.amount());
    PaymentService.settle(settlement, payment, outcome);
    log.info("reconciled {}: gateway says {}", payment.paymentNo(), outcome);
  }
}

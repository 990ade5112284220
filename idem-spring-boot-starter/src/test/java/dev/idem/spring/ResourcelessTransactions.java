package dev.idem.spring;

import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * Transactions over no resource, for the starter's tests: Spring's transaction synchronization runs
 * as with any manager, so code inside can tell it is in a transaction and Idem's held outcomes
 * follow its commit or rollback; nothing is written anywhere.
 */
public class ResourcelessTransactions extends AbstractPlatformTransactionManager {

  private static final long serialVersionUID = 1L;

  private final boolean replyLost;

  public ResourcelessTransactions() {
    this(false);
  }

  /**
   * @param replyLost every commit fails as one whose reply the connection lost
   */
  public ResourcelessTransactions(boolean replyLost) {
    this.replyLost = replyLost;
  }

  @Override
  protected Object doGetTransaction() {
    return new Object();
  }

  @Override
  protected void doBegin(Object transaction, TransactionDefinition definition) {}

  @Override
  protected void doCommit(DefaultTransactionStatus status) {
    if (replyLost) {
      throw new TransactionSystemException("the connection broke before the commit's reply");
    }
  }

  @Override
  protected void doRollback(DefaultTransactionStatus status) {}
}

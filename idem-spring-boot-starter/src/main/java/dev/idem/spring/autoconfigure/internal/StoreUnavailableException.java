package dev.idem.spring.autoconfigure.internal;

/**
 * The store {@code idem.store} names cannot be built: its module or what it is built on is missing.
 * {@link StoreUnavailableFailureAnalyzer} turns it into Spring Boot's start-up report.
 */
public final class StoreUnavailableException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final String description;
  private final String action;

  StoreUnavailableException(String description, String action) {
    super(description + " " + action);
    this.description = description;
    this.action = action;
  }

  /** What to add or set. */
  public String action() {
    return action;
  }

  /** The problem without the action. */
  public String description() {
    return description;
  }
}

package dev.idem.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.util.unit.DataSize;

/**
 * The {@code idem.http.*} properties: the HTTP filter of either web stack, the token endpoint and
 * the problem answers to Idem's exceptions that escape a handler.
 */
public class IdemHttpProperties {
  /** Whether the filter and the token endpoint are installed. */
  private boolean enabled = true;

  /** Path patterns protected in addition to {@code @Idempotent} handlers (POST and PATCH). */
  private List<String> paths = new ArrayList<>();

  /** Largest request body accepted (413 above) and response body stored (passed on unstored). */
  private DataSize maxBodyBytes = DataSize.ofMegabytes(1);

  /** Where {@code POST} issues a token; empty to leave the endpoint out. */
  private String tokenPath = "/api/tokens";

  /**
   * Whether an Idem exception that escapes a handler (from an {@code @Idempotent} bean method it
   * called) gets the filter's problem answer (400, 409, 410, 422, 429, 503) instead of a 500.
   */
  private boolean problemAnswers = true;

  /** The most a stored 4xx answer is kept (when shorter than the operation's retention). */
  private Duration clientErrorRetention = Duration.ofHours(1);

  /**
   * The most live records one caller holds for one route: past it, a new key answers 429 store-full
   * while repeats are still answered, so one caller cannot fill the store for everyone.
   * Unauthenticated callers share one scope, and so one cap; 0 for none.
   */
  private int maxRecordsPerCaller = IdemProperties.DEFAULT_MAX_PER_CALLER;

  public boolean isProblemAnswers() {
    return problemAnswers;
  }

  public void setProblemAnswers(boolean problemAnswers) {
    this.problemAnswers = problemAnswers;
  }

  public int getMaxRecordsPerCaller() {
    return maxRecordsPerCaller;
  }

  public void setMaxRecordsPerCaller(int maxRecordsPerCaller) {
    this.maxRecordsPerCaller = maxRecordsPerCaller;
  }

  public Duration getClientErrorRetention() {
    return clientErrorRetention;
  }

  public void setClientErrorRetention(Duration clientErrorRetention) {
    this.clientErrorRetention = clientErrorRetention;
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public List<String> getPaths() {
    return paths;
  }

  public void setPaths(List<String> paths) {
    this.paths = paths;
  }

  public DataSize getMaxBodyBytes() {
    return maxBodyBytes;
  }

  public void setMaxBodyBytes(DataSize maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  public String getTokenPath() {
    return tokenPath;
  }

  public void setTokenPath(String tokenPath) {
    this.tokenPath = tokenPath;
  }
}

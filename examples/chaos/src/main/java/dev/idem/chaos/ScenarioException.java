package dev.idem.chaos;

/** A scenario file that cannot be run; the message names the file and the field. */
public final class ScenarioException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** A problem described by {@code message} ({@code file: field: what is wrong}). */
  public ScenarioException(String message) {
    super(message);
  }
}

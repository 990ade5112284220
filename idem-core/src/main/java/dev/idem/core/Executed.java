package dev.idem.core;

/**
 * A result together with how it was obtained.
 *
 * @param value what the work returned, now or the first time
 * @param replayed true when the value came from the store instead of running the work
 */
public record Executed<T>(T value, boolean replayed) {}

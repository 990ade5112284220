package dev.idem.core;

import org.jspecify.annotations.Nullable;

/**
 * A result together with how it was obtained.
 *
 * @param value what the work returned, now or the first time
 * @param replayed true when the value came from the store instead of running the work
 */
public record Executed<T extends @Nullable Object>(T value, boolean replayed) {}

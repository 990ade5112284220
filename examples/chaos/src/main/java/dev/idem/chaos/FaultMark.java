package dev.idem.chaos;

/**
 * A fault as it happened, for the ledger's explanations and the charts' markers.
 *
 * @param atMillis when, from the start of the load
 * @param label what ({@code kill #2}, {@code flush-redis})
 * @param action the fault's action, or null for an event such as an instance coming back up
 */
public record FaultMark(long atMillis, String label, FaultAction action) {}

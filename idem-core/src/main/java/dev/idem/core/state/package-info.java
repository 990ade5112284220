/**
 * Status fields that move only along declared transitions, one guarded write at a time.
 *
 * <p>A {@link dev.idem.core.state.StateMachine} lists the allowed moves; {@link
 * dev.idem.core.state.StateMachine#on(StateStore)} binds it to a {@link
 * dev.idem.core.state.StateStore} and applies them. Each move is the single statement {@code UPDATE
 * ... SET status = :to WHERE id = :id AND status = :from}: of any number of concurrent callers at
 * most one sees it apply, and the rest are told why not by a {@link
 * dev.idem.core.state.TransitionResult}. A repeat of a completed move answers {@code AlreadyThere},
 * which is what makes a status update idempotent.
 *
 * <p>The guard compares the status only. In a machine with cycles (say {@code FAILED -> PENDING}) a
 * record can leave a state and return to it, and a delayed writer would then apply against the
 * newer visit. Where that matters, guard on a version column as well, in the store.
 */
@NullMarked
package dev.idem.core.state;

import org.jspecify.annotations.NullMarked;

/**
 * Resumable calls and the completer: a call whose client never came back (it crashed, gave up, or
 * lost the answer) is finished by the application itself, from the steps that already ended.
 *
 * <p>A {@link dev.idem.core.resume.ResumableOperation} writes its input to a {@link
 * dev.idem.core.resume.ResumeLog} once it holds the key, before its work starts; a {@link
 * dev.idem.core.resume.Completer} reads the log, runs again the calls that did not end, and marks
 * abandoned those that failed too often, for an operator to retry or drop.
 */
@NullMarked
package dev.idem.core.resume;

import org.jspecify.annotations.NullMarked;

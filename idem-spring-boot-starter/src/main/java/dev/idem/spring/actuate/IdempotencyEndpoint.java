package dev.idem.spring.actuate;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.resume.Completer;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.RecordState;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * The Actuator endpoint {@code idempotency}, for operators: read the record of a key, release one
 * stuck IN_PROGRESS under an owner that will never finish, evict a COMPLETED one whose answer must
 * no longer be replayed; under {@code /abandoned}, list, retry or drop the calls of resumable
 * methods that the completer gave up. The key is named by the parameters {@code scope} and {@code
 * key} (query parameters, or members of a write's JSON body), so that any scope ({@code POST
 * /orders|alice} holds a space, a slash and a bar) and any key value travel in ordinary URL
 * encoding.
 *
 * <p>A write acts on the record it reads, through {@link IdempotencyStore#evict}: only while the
 * record is still in the state the write is for and has the fence it read, or the {@code fence} the
 * operator names. Anything else is refused with 409 and changes nothing. Every write, done or
 * refused, is logged with the caller's principal: a write that was done at WARN, since it overrides
 * what the record guaranteed, a refused one at INFO.
 *
 * <p>Read-only unless the application opens its writes ({@code
 * management.endpoint.idempotency.access=unrestricted}): a release or an eviction makes the next
 * retry run the work again, so whoever can reach the endpoint must not be able to do either by
 * default. Secure it as well, for the operators alone.
 *
 * <p>A web endpoint only: its answers are HTTP statuses, and its log needs the principal that the
 * web security resolved. It is exposed, secured and switched off as every web endpoint is.
 */
@WebEndpoint(id = "idempotency", defaultAccess = Access.READ_ONLY)
public class IdempotencyEndpoint {

  private static final Logger log = LoggerFactory.getLogger(IdempotencyEndpoint.class);

  /** The two writes: the state each is for and how the log names it. */
  private enum Write {
    RELEASE(RecordState.IN_PROGRESS, "release", "released"),
    EVICT(RecordState.COMPLETED, "evict", "evicted");

    final RecordState state;
    final String verb;
    final String done;

    Write(RecordState state, String verb, String done) {
      this.state = state;
      this.verb = verb;
      this.done = done;
    }
  }

  private static final String ABANDONED = "abandoned";

  // the most calls of one step method in one run that a read looks for
  private static final int MOST_CALLS = 100;

  private final IdempotencyStore store;
  private final AbandonedCalls abandoned;
  private final Supplier<Set<String>> stepNames;

  /**
   * @param store the store whose records are read and given up
   */
  public IdempotencyEndpoint(IdempotencyStore store) {
    this(store, Optional::empty);
  }

  /**
   * @param store the store whose records are read and given up
   * @param completer the completer of resumable methods, once there is one
   */
  public IdempotencyEndpoint(IdempotencyStore store, Supplier<Optional<Completer>> completer) {
    this(store, completer, Set::of);
  }

  /**
   * @param store the store whose records are read and given up
   * @param completer the completer of resumable methods, once there is one
   * @param stepNames the first step name of each of the application's step methods, whose records a
   *     read of a key shows
   */
  public IdempotencyEndpoint(
      IdempotencyStore store,
      Supplier<Optional<Completer>> completer,
      Supplier<Set<String>> stepNames) {
    this.store = store;
    this.abandoned = new AbandonedCalls(completer);
    this.stepNames = stepNames;
  }

  /**
   * {@code GET /abandoned}: the calls of a resumable method's {@code operation} that the completer
   * abandoned (at most {@value AbandonedCalls#LIMIT}), their arguments left out.
   *
   * @return 200 with the calls; 404 when the application has no resumable method, or for another
   *     path than {@code abandoned}; 503 when the log cannot be read
   */
  @ReadOperation
  public WebEndpointResponse<List<AbandonedCallDescriptor>> abandoned(
      @Selector String list, String operation) {
    if (!ABANDONED.equals(list)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    return abandoned.list(operation);
  }

  /**
   * {@code POST /abandoned}: gives an abandoned call its attempts back; the completer's next pass
   * runs it again.
   *
   * @param id the call's id, as the listing shows it
   * @return 200 when done; 404 when no abandoned call of the operation has the id; 409 when it
   *     changed meanwhile; 503 when the log fails
   */
  @WriteOperation
  public WebEndpointResponse<AbandonedCallActionDescriptor> retryAbandoned(
      SecurityContext caller, @Selector String list, String operation, String id) {
    if (!ABANDONED.equals(list)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    return abandoned.retry(nameOf(caller), operation, id);
  }

  /**
   * {@code DELETE /abandoned}: takes an abandoned call out of the completer's log for good. Its
   * key's record stays as it is, so a client's retry still runs or replays it.
   *
   * @return as {@link #retryAbandoned}
   */
  @DeleteOperation
  public WebEndpointResponse<AbandonedCallActionDescriptor> dropAbandoned(
      SecurityContext caller, @Selector String list, String operation, String id) {
    if (!ABANDONED.equals(list)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    return abandoned.drop(nameOf(caller), operation, id);
  }

  /**
   * {@code GET}: the record of a key and of the steps its work made (those of the application's
   * step methods, for the request the record holds), the stored bodies left out.
   *
   * @return 200 with the record; 404 when the key has none (never claimed, released, evicted or
   *     expired: a released key's steps are kept, and shown once a run claims it again); 400 for a
   *     scope or key no record can have; 503 when the store cannot be read
   */
  @ReadOperation
  public WebEndpointResponse<IdempotencyRecordDescriptor> record(String scope, String key) {
    IdempotencyKey id = keyOf(scope, key);
    try {
      return store
          .find(id)
          .map(r -> new WebEndpointResponse<>(IdempotencyRecordDescriptor.of(r, stepsOf(r))))
          .orElseGet(() -> new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND));
    } catch (IdempotencyStoreException e) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    }
  }

  // A step's record is keyed by a digest of its name and the work's request, which the store
  // cannot list: each step method's calls are looked for in order, name, name#2, ... to the first
  // missing.
  private List<StepDescriptor> stepsOf(IdempotencyRecord record) {
    List<StepDescriptor> steps = new ArrayList<>();
    for (String name : new TreeSet<>(stepNames.get())) {
      for (int n = 1; n <= MOST_CALLS; n++) {
        String step = n == 1 ? name : name + "#" + n;
        Optional<IdempotencyRecord> found =
            store.find(record.key().step(step, record.fingerprint()));
        if (found.isEmpty()) {
          break;
        }
        steps.add(StepDescriptor.of(step, found.get()));
      }
    }
    return steps;
  }

  /**
   * {@code POST}: releases an IN_PROGRESS record whatever its owner does: its owner can no longer
   * complete it, and the next request with the key runs the work again (a token's record goes back
   * to ISSUED).
   *
   * @param fence the fence the operator read; when given, the record must still have it
   * @return 200 when released; 404 when the key has no record; 409, changing nothing, when it is
   *     not IN_PROGRESS or has another fence; 400 for an invalid scope or key; 503 when the store
   *     fails
   */
  @WriteOperation
  public WebEndpointResponse<OperatorActionDescriptor> release(
      SecurityContext caller, String scope, String key, @Nullable Long fence) {
    return giveUp(Write.RELEASE, caller, scope, key, fence);
  }

  /**
   * {@code DELETE}: evicts a COMPLETED record: its answer is no longer replayed, and the next
   * request with the key runs the work again.
   *
   * @param fence the fence the operator read; when given, the record must still have it
   * @return 200 when evicted; 404 when the key has no record; 409, changing nothing, when it is not
   *     COMPLETED or has another fence; 400 for an invalid scope or key; 503 when the store fails
   */
  @DeleteOperation
  public WebEndpointResponse<OperatorActionDescriptor> evict(
      SecurityContext caller, String scope, String key, @Nullable Long fence) {
    return giveUp(Write.EVICT, caller, scope, key, fence);
  }

  private WebEndpointResponse<OperatorActionDescriptor> giveUp(
      Write write, SecurityContext caller, String scope, String key, @Nullable Long fence) {
    String who = nameOf(caller);
    IdempotencyKey id;
    try {
      id = keyOf(scope, key);
    } catch (InvalidEndpointRequestException e) {
      log.info("{} asked to {} a record, refused: {}", who, write.verb, e.getReason());
      throw e;
    }
    Optional<IdempotencyRecord> found;
    try {
      found = store.find(id);
    } catch (IdempotencyStoreException e) {
      return unavailable(write, who, id, e);
    }
    if (found.isEmpty()) {
      log.info("{} asked to {} {}, which has no record", who, write.verb, named(id));
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    IdempotencyRecord record = found.get();
    IdempotencyRecordDescriptor seen = IdempotencyRecordDescriptor.of(record);
    String refusal = refusal(write, record, fence);
    try {
      if (refusal == null && !store.evict(id, write.state, record.fence())) {
        refusal = "the record changed while it was being " + write.done + "; read it again";
      }
    } catch (IdempotencyStoreException e) {
      return unavailable(write, who, id, e);
    }
    if (refusal != null) {
      log.info("{} asked to {} {}, refused: {}", who, write.verb, named(id), refusal);
      return new WebEndpointResponse<>(new OperatorActionDescriptor(false, refusal, seen), 409);
    }
    String done = write.done + " the " + write.state + " record of " + named(id);
    log.warn("{} {} (fence {}) through the idempotency endpoint", who, done, record.fence());
    return new WebEndpointResponse<>(new OperatorActionDescriptor(true, done, seen));
  }

  private static @Nullable String refusal(
      Write write, IdempotencyRecord record, @Nullable Long fence) {
    if (record.state() != write.state) {
      return "the record is "
          + record.state()
          + ", not "
          + write.state
          + ": nothing was "
          + write.done;
    }
    if (fence != null && fence != record.fence()) {
      return "the record's fence is "
          + record.fence()
          + ", not "
          + fence
          + ": nothing was "
          + write.done;
    }
    return null;
  }

  private static WebEndpointResponse<OperatorActionDescriptor> unavailable(
      Write write, String who, IdempotencyKey id, IdempotencyStoreException e) {
    log.warn(
        "{} asked to {} {}, and the store failed: {}", who, write.verb, named(id), e.toString());
    return new WebEndpointResponse<>(
        new OperatorActionDescriptor(false, "the store failed: " + e.getMessage(), null),
        WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
  }

  private static IdempotencyKey keyOf(String scope, String key) {
    try {
      return IdempotencyKey.of(scope, key);
    } catch (InvalidKeyException e) {
      String why = String.valueOf(e.getMessage());
      throw new InvalidEndpointRequestException(why, why);
    }
  }

  // Scope and value are checked by IdempotencyKey: no control characters reach the log.
  private static String named(IdempotencyKey id) {
    return "key '" + id.value() + "' in scope '" + id.scope() + "'";
  }

  private static String nameOf(SecurityContext caller) {
    Principal principal = caller.getPrincipal();
    return principal == null ? "an unauthenticated caller" : "'" + principal.getName() + "'";
  }
}

package io.subetha.cxc.region;

import static io.subetha.cxc.region.SharedRegionDescriptor.JOURNAL_CAPACITY;
import static io.subetha.cxc.region.SharedRegionDescriptor.LOCK_OFFSET;

import io.subetha.cxc.claim.IntentLock;
import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.wait.Deadline;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The region's allocator lock: the {@link IntentLock} at {@link
 * SharedRegionDescriptor#LOCK_OFFSET}, taken with one handle's timeout. Every change to the heap's
 * structure is one step under it (staged, sealed, applied); taking it first completes a dead
 * holder's sealed step.
 */
final class AllocatorLock {

    private final IntentLock lock;
    private final long timeoutNanos;

    AllocatorLock(AtomicBuffer body, Path file, Duration timeout) {
        this.lock = new IntentLock(body, LOCK_OFFSET, JOURNAL_CAPACITY, 0, "region " + file);
        this.timeoutNanos = Deadline.nanos(timeout);
    }

    /** Takes the lock, waiting for a live holder at most the timeout; a dead one is taken over. */
    void lock() {
        lock.lock(timeoutNanos);
    }

    /** Releases the lock; its release CAS publishes every write made holding it. */
    void unlock() {
        lock.unlock();
    }

    /** Stages {@code value} for the word at body offset {@code offset}, in this step. */
    void stage(int offset, long value) {
        lock.stage(offset, value);
    }

    /** Seals the step (its commit point) and applies its staged words in place. */
    void commit() {
        lock.commit();
    }

    /** The PID holding the lock now, 0 if none. */
    long holderPid() {
        return lock.holderPid();
    }

    /** The PID of the waiter whose turn is next, 0 if none. */
    long waiterPid() {
        return lock.waiterPid();
    }

    /** Dead holders' sealed steps completed from the journal, by every process. */
    long repairs() {
        return lock.repairs();
    }
}

package io.subetha.cxc.internal;

import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A test seam at the steps of the ownership protocols where a pause changes what other processes
 * see: a test installs an observer that holds the calling thread at one {@link Point}, lets another
 * claimant run, then releases it. With no observer installed (always, outside tests) each point
 * costs one volatile read, and only off the fast paths: claims, releases, takeovers.
 *
 * <p>Not API: this package may change in any release.
 */
public final class Interleaving {

    /** The steps a test can hold a thread at. */
    public enum Point {
        /** A claimant has read the owner word and judged it (free, stale, dead): before its CAS. */
        JUDGED,
        /** A claimant won its CAS: before it publishes its heartbeat and identity. */
        WON,
        /** A new owner published its heartbeat: before it publishes its identity (start time). */
        HEARTBEAT_PUBLISHED,
        /**
         * A lease's binder, holding the bind lock, found the table full and CASed the owner word of
         * a slot without a live holder to retiring: before it stages the slot's new binding.
         */
        LEASE_SLOT_RETIRING,
        /** A watchdog assigner claimed a free entry: before it writes the work id. */
        ENTRY_CLAIMED,
        /**
         * A pass registry caller claimed a mailbox slot and wrote its request: before it publishes
         * it.
         */
        PASS_REQUEST_WRITTEN,
        /**
         * A pass registry dispatcher wrote a handler's answer into its slot: before it publishes
         * it.
         */
        PASS_ANSWER_WRITTEN,
        /**
         * A pass registry binder claimed an entry's owner word: before it writes the pass id and
         * publishes the binding.
         */
        PASS_ENTRY_CLAIMED,
        /** An opener validated a file's header and size: before it maps the file. */
        OPEN_VALIDATED,
        /**
         * A creator wrote and initialised a new file under its temporary name: before it links it
         * to the real name.
         */
        NEW_FILE_WRITTEN,
        /**
         * A reader table's namer claimed a slot for a new reader name: before it writes the first
         * position and the name and publishes them.
         */
        READER_SLOT_CLAIMED,
        /** An event-log emitter claimed its slot's sequence: before it writes the event. */
        SLOT_RESERVED,
        /**
         * An event-log drainer folded the pending events: before it publishes the new state and
         * read position.
         */
        FOLD_COMPUTED,
        /**
         * An intent-lock holder took the lock (and replayed a dead holder's sealed step, and ran
         * its primitive's after-acquire hook): before it stages anything.
         */
        INTENT_LOCKED,
        /** An intent-lock holder staged its step: before it seals it (its commit point). */
        INTENT_STAGED,
        /** An intent-lock holder sealed its step: before it applies any of it. */
        INTENT_SEALED,
        /** An intent-lock holder applied half of its step's entries. */
        INTENT_HALF_APPLIED,
        /** An intent-lock holder applied its step: before it clears the intent. */
        INTENT_APPLIED,
        /**
         * A cascade shared level's put released its slot with the new entry: before it removes the
         * key's other copies from the key's window.
         */
        SHARED_LEVEL_STORED,
        /** An intent-lock holder is about to release the lock (its intent clear). */
        INTENT_CLEARED,
        /** A region's {@code set} checked its handle: before it writes the payload. */
        REGION_SET_CHECKED,
        /**
         * A region's {@code free} won the block's tag word for its process's free cache: before it
         * writes its start time into the block and keeps it.
         */
        REGION_CACHE_CLAIMED,
        /**
         * A region's {@code allocate} took a block out of its process's free cache: before it
         * writes the block's new header.
         */
        REGION_CACHE_POPPED,
        /**
         * A region's {@code free} under the lock, or its {@code disown}, checked its handle: before
         * it reads the block's tag word for its CAS (a cached free elsewhere may win meanwhile).
         */
        REGION_HANDLE_CHECKED,
        /**
         * A region's reader copied (or compared) a block's payload: before it checks the handle
         * again (a free meanwhile makes it refuse what it read).
         */
        REGION_PAYLOAD_READ,
        /**
         * A new owner read the identity word and found the record still its own: before its CAS of
         * the identity.
         */
        IDENTITY_READ,
        /** A claimant read a heartbeat below the one it publishes: before its raising CAS. */
        HEARTBEAT_READ,
        /** A leader stepping down read its own leader word: before its CAS to no leader. */
        STEP_DOWN_JUDGED,
        /**
         * A handle retiring a replaced election file read a leader word naming it or no one: before
         * its CAS to the retired word.
         */
        RETIRE_JUDGED,
        /**
         * A lease's holder read the lease word and found the record still its own: before its CAS
         * of the lease word (publishing, extending or lingering the deadline).
         */
        LEASE_WORD_READ,
        /** A fenced-ledger writer read a fence word of a lower term: before its raising CAS. */
        FENCE_READ,
        /**
         * An election participant read a leader word naming a leader: before it reads the seat
         * again to judge it vacant (stale or dead).
         */
        SEAT_JUDGING,
        /**
         * A watchdog assigner, completer or scanner read a work entry's owner word and judged it
         * (free to claim, this holder's to complete, an abandoned claim to free, work to move):
         * before its CAS on that word.
         */
        WATCHDOG_ENTRY_JUDGED,
        /**
         * A pass registry caller read a free mailbox slot's state word: before its CAS that claims
         * the slot.
         */
        PASS_SLOT_JUDGED,
        /**
         * A doorbell waiter announced itself in the announced word: before its last look at what it
         * waits for, and its sleep.
         */
        DOORBELL_ANNOUNCED,
        /** A doorbell ringer took the announcements by CAS: before it rings their waiters. */
        DOORBELL_TAKEN,
        /**
         * A fan-out taker reserved an item below levels it found empty: before it looks at those
         * levels again to decide whether its take stands.
         */
        FANOUT_TAKE_RESERVED,
        /** A scheduler's timetable firer won an entry's FIRING CAS: before it submits the job. */
        TIMETABLE_FIRING,
        /** A scheduler's timetable firer queued an entry's job: before it re-arms the entry. */
        TIMETABLE_SUBMITTED,
        /**
         * A scheduler's timetable lock holder wrote a free entry whole: before the CAS that arms
         * it.
         */
        TIMETABLE_ENTRY_WRITTEN
    }

    private static volatile @Nullable Consumer<Point> observer;

    private Interleaving() {}

    /** Called by the protocols at each point. */
    public static void at(Point point) {
        Consumer<Point> current = observer;
        if (current != null) {
            current.accept(point);
        }
    }

    /**
     * Installs {@code newObserver} for every thread of this process until the returned handle is
     * closed. For tests only.
     */
    public static Installed install(Consumer<Point> newObserver) {
        observer = newObserver;
        return () -> observer = null;
    }

    /** Closing it removes the observer. */
    @FunctionalInterface
    public interface Installed extends AutoCloseable {
        @Override
        void close();
    }
}

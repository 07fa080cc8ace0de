package io.subetha.cxc.docs.examples;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.LeaderContext;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.liveness.CxcParticipants;
import io.subetha.cxc.election.FencedLedger;
import io.subetha.cxc.liveness.EpochBarrier;
import io.subetha.cxc.liveness.FailoverWatchdog;
import java.util.List;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** {@code @LeaderOnly}, the term, declared primitives and the participants' work, in Boot. */
class LeaderOnlyExample {

    interface SnapshotStore {
        void rotate(long fencingToken);
    }

    record Batch(int number) {}

    interface Index {
        void write(Batch batch, long term);
    }

    @Component
    static class Snapshots {
        private final SnapshotStore store;
        private final Index index;

        Snapshots(SnapshotStore store, Index index) {
            this.store = store;
            this.index = index;
        }

        List<Batch> batches() {
            return List.of(new Batch(1), new Batch(2));
        }

        // docs:begin leader-only
        @Scheduled(fixedDelay = 10_000)
        @LeaderOnly                                     // runs on the leader only; skipped elsewhere
        public void rotateSnapshots() {
            long fencingToken = LeaderContext.requireCurrentTerm(); // the term this call runs under
            store.rotate(fencingToken);                  // downstream rejects terms older than the newest
        }
        // docs:end leader-only

        // docs:begin still-leads
        @LeaderOnly
        public void reindex() {
            long term = LeaderContext.requireCurrentTerm();
            for (Batch batch : batches()) {
                if (!LeaderContext.stillLeads()) {
                    return; // lost the term: the new leader redoes what is left
                }
                index.write(batch, term); // fenced: refused once a newer term has written
            }
        }
        // docs:end still-leads
    }

    @Component
    static class MyJob {
        private final EpochBarrier phases;
        private final FailoverWatchdog jobs;
        private final CxcParticipants participants;

        // docs:begin declared-injection
        MyJob(@Qualifier("phases") EpochBarrier phases,    // cxc.barriers.phases.capacity=8
              @Qualifier("jobs") FailoverWatchdog jobs) {  // cxc.watchdogs.jobs.grace-epochs=3
        // docs:end declared-injection
            this(phases, jobs, null);
        }

        MyJob(EpochBarrier phases, FailoverWatchdog jobs, CxcParticipants participants) {
            this.phases = phases;
            this.jobs = jobs;
            this.participants = participants;
        }

        void ship(long orderId) {
            // docs:begin participants-work
            participants.assign(jobs, orderId);          // jobs.assign(participants.mySlot(), orderId)
            for (long id : participants.myWork(jobs)) { /* ... */ }   // what this instance owns now
            participants.complete(jobs, orderId);
            // docs:end participants-work
        }
    }

    @Configuration
    static class Audit {
        // docs:begin primitives-open
        @Bean
        FencedLedger audit(CxcPrimitives primitives) {
            return primitives.open("audit", (file, options) ->           // <cxc.directory>/audit.cxc
                    FencedLedger.TYPE.openOrCreate(file, FencedLedger.Settings.NONE, options));
        }
        // docs:end primitives-open
    }
}

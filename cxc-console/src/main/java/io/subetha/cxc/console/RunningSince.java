package io.subetha.cxc.console;

import io.subetha.cxc.scheduling.JobEntry;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When this console first saw each running attempt: the scheduler's slot records who runs a job and
 * which attempt it is, not since when, so "running for" is at least as long as shown. Attempts no
 * longer running are forgotten at the next listing of their scheduler.
 */
final class RunningSince {

    private record Attempt(long id, long attempt) {}

    private final Clock clock;
    private final Map<String, Map<Attempt, Long>> firstSeen = new ConcurrentHashMap<>();

    RunningSince(Clock clock) {
        this.clock = clock;
    }

    /** Notes the running attempts of {@code scheduler}'s listing and forgets the others. */
    synchronized void keep(String scheduler, Iterable<JobEntry> jobs) {
        Map<Attempt, Long> seen = firstSeen.computeIfAbsent(scheduler, s -> new HashMap<>());
        Set<Attempt> running = new HashSet<>();
        long now = clock.millis();
        for (JobEntry job : jobs) {
            if (job.state() == JobEntry.State.RUNNING) {
                Attempt attempt = new Attempt(job.id(), job.attempt());
                running.add(attempt);
                seen.putIfAbsent(attempt, now);
            }
        }
        seen.keySet().retainAll(running);
    }

    synchronized long millisRunning(String scheduler, JobEntry job) {
        Long since =
                firstSeen
                        .getOrDefault(scheduler, Map.of())
                        .get(new Attempt(job.id(), job.attempt()));
        return since == null ? 0 : Math.max(0, clock.millis() - since);
    }
}

package io.subetha.cxc.chaos.crash;

import java.time.Duration;
import java.util.List;

/**
 * What every process of one crash run agrees on: the files' creation settings and the workload's
 * pace. A SIGSTOP must last longer than {@code grace} and {@code lease} to show anything, so the
 * harness checks its pause against {@link #longestGrace()}.
 *
 * @param grace the scheduler's and the fan-out's: how long a worker may stay silent before its jobs
 *     and claims return
 * @param lease how long a lease is taken for
 * @param pace the most a workload thread parks between two operations
 * @param eventCapacity the event log's capacity: events retained for the harness's trail
 */
public record CrashSettings(
        Duration grace,
        Duration lease,
        Duration pace,
        int schedulerCapacity,
        int fanoutCapacity,
        int eventCapacity,
        long regionBytes) {

    public static CrashSettings defaults() {
        return new CrashSettings(
                Duration.ofMillis(400),
                Duration.ofMillis(300),
                Duration.ofMillis(10),
                256,
                128,
                1 << 16,
                64 * 1024);
    }

    public Duration longestGrace() {
        return grace.compareTo(lease) >= 0 ? grace : lease;
    }

    public List<String> args() {
        return List.of(
                Long.toString(grace.toMillis()),
                Long.toString(lease.toMillis()),
                Long.toString(pace.toMillis()),
                Integer.toString(schedulerCapacity),
                Integer.toString(fanoutCapacity),
                Integer.toString(eventCapacity),
                Long.toString(regionBytes));
    }

    public static CrashSettings parse(List<String> args) {
        return new CrashSettings(
                Duration.ofMillis(Long.parseLong(args.get(0))),
                Duration.ofMillis(Long.parseLong(args.get(1))),
                Duration.ofMillis(Long.parseLong(args.get(2))),
                Integer.parseInt(args.get(3)),
                Integer.parseInt(args.get(4)),
                Integer.parseInt(args.get(5)),
                Long.parseLong(args.get(6)));
    }
}

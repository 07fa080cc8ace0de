package io.subetha.cxc.scheduling;

import static io.subetha.cxc.testing.ChildServer.say;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.internal.Interleaving;
import io.subetha.cxc.testing.ChildServer;
import io.subetha.cxc.testing.HeldCodec;
import io.subetha.cxc.testing.PointFreeze;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * A worker JVM for the scheduler's process tests. Results are {@code job * 7 + 1}.
 *
 * <pre>
 * work PATH CAP WORK_MICROS   working, then runs jobs until "stop": answers "stopped C R"
 *                             (C results recorded, R refused as re-dispatched)
 * hold PATH CAP               holding ID ATTEMPT  (receives one job and keeps it)
 * submit-held PATH CAP JOB    writing  (submits JOB and stops between its slot's CAS and its
 *                             copy of the job, until "go"): submitted ID
 * fire-at PATH CAP POINT      fires the timetable's due entries and parks for good at the
 *                             Interleaving POINT: parked POINT
 * schedule-at PATH CAP POINT NAME   schedules NAME (daily, payload 1) and parks for good at
 *                             POINT: parked POINT
 * await PATH CAP            waiting, then receives jobs for good, each through a receive that
 *                             waits an hour: received PAYLOAD (once its result is recorded)
 * pause PATH CAP             pauses the scheduler's dispatch: paused (then waits to be killed)
 * fail PATH CAP N             receives N jobs one by one and reports each one's attempt failed
 *                             with an IllegalStateException: failed ID ATTEMPT OUTCOME NANOS
 *                             (NANOS: System.nanoTime() just before the report)
 * </pre>
 */
public final class SchedulerChild {

    private static volatile boolean stop;

    private SchedulerChild() {}

    static long resultOf(long job) {
        return job * 7 + 1;
    }

    public static void main(String[] args) throws InterruptedException {
        ChildServer commands = new ChildServer();
        long pid = ProcessHandle.current().pid();
        HeldCodec jobs = new HeldCodec(); // INT64's layout, so it opens the same file
        BackgroundScheduler<Long, Long> scheduler =
                BackgroundScheduler.open(
                        Path.of(args[1]),
                        new BackgroundScheduler.Settings<>(
                                Integer.parseInt(args[2]), jobs, FixedCodec.INT64));
        if (args[0].equals("submit-held")) {
            CountDownLatch go = new CountDownLatch(1);
            jobs.onEntry(
                    side -> {
                        if (side == HeldCodec.Side.WRITE && go.getCount() > 0) {
                            say("writing");
                            try {
                                go.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    });
            commands.on(
                    "go",
                    w -> {
                        go.countDown();
                        return null; // answered by "submitted" once the submit returns
                    });
            ChildServer.daemon(
                    "submitter",
                    () -> say("submitted " + scheduler.submit(Long.parseLong(args[3]))));
        } else if (args[0].equals("schedule-at")) {
            PointFreeze.install(Interleaving.Point.valueOf(args[3]), 1, "parked");
            ChildServer.daemon(
                    "scheduler",
                    () ->
                            scheduler.schedule(
                                    args[4], Recurrence.fixedRate(Duration.ofDays(1)), 1L));
        } else if (args[0].equals("fire-at")) {
            PointFreeze.install(Interleaving.Point.valueOf(args[3]), 1, "parked");
            ChildServer.daemon(
                    "firer",
                    () -> {
                        while (true) {
                            scheduler.fireDue();
                            Thread.yield();
                        }
                    });
        } else if (args[0].equals("await")) {
            ChildServer.daemon(
                    "worker",
                    () -> {
                        say("waiting");
                        while (true) {
                            Optional<Job<Long>> job = scheduler.receive(pid, Duration.ofHours(1));
                            if (job.isPresent()) {
                                long payload = job.get().payload();
                                scheduler.complete(job.get(), resultOf(payload));
                                say("received " + payload);
                            }
                        }
                    });
        } else if (args[0].equals("pause")) {
            say("paused " + scheduler.dispatch().pause());
        } else if (args[0].equals("fail")) {
            for (int n = Integer.parseInt(args[3]); n > 0; n--) {
                Optional<Job<Long>> job;
                while ((job = scheduler.receive(pid)).isEmpty()) {
                    Thread.yield();
                }
                long before = System.nanoTime();
                FailOutcome outcome =
                        scheduler.fail(
                                job.get(),
                                new IllegalStateException("job " + job.get().payload() + " broke"));
                say(
                        "failed "
                                + job.get().id()
                                + " "
                                + job.get().attempt()
                                + " "
                                + outcome
                                + " "
                                + before);
            }
        } else if (args[0].equals("hold")) {
            Optional<Job<Long>> job;
            while ((job = scheduler.receive(pid)).isEmpty()) {
                Thread.yield();
            }
            say("holding " + job.get().id() + " " + job.get().attempt());
        } else {
            long workNanos = Long.parseLong(args[3]) * 1000;
            commands.on(
                    "stop",
                    w -> {
                        stop = true;
                        return null; // answered by "stopped" once the job in hand is done
                    });
            Thread serving = ChildServer.daemon("scheduler-commands", commands::serve);
            say("working");
            long completed = 0;
            long refused = 0;
            while (!stop) {
                Optional<Job<Long>> job = scheduler.receive(pid);
                if (job.isEmpty()) {
                    Thread.yield();
                    continue;
                }
                long until = System.nanoTime() + workNanos;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait(); // the job's work: a kill or stop lands here
                }
                if (scheduler.complete(job.get(), resultOf(job.get().payload()))) {
                    completed++;
                } else {
                    refused++;
                }
            }
            scheduler.close();
            say("stopped " + completed + " " + refused);
            serving.join(); // it halts the JVM when the parent closes stdin
        }
        commands.serve();
    }
}

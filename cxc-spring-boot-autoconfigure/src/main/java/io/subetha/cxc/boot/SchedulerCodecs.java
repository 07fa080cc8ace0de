package io.subetha.cxc.boot;

import io.subetha.cxc.codec.FixedCodec;
import java.util.Objects;

/**
 * The codecs of a scheduler declared by {@code cxc.schedulers.<name>.*}: the starter opens the
 * scheduler's file with them. A worker process gives them through its {@link JobHandler} bean; a
 * process that only submits or collects declares a bean of this type instead ({@link #of}). Every
 * process sharing the file gives the same codecs (the file stores their fingerprint and refuses
 * others).
 *
 * @param <J> the jobs
 * @param <R> the results
 */
public interface SchedulerCodecs<J, R> {

    /** The declared scheduler's name: {@code <name>} in {@code cxc.schedulers.<name>.*}. */
    String scheduler();

    FixedCodec<J> jobCodec();

    FixedCodec<R> resultCodec();

    /** The codecs alone, for a process that submits or collects but runs no jobs. */
    static <J, R> SchedulerCodecs<J, R> of(
            String scheduler, FixedCodec<J> jobCodec, FixedCodec<R> resultCodec) {
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(jobCodec, "jobCodec");
        Objects.requireNonNull(resultCodec, "resultCodec");
        return new SchedulerCodecs<>() {
            @Override
            public String scheduler() {
                return scheduler;
            }

            @Override
            public FixedCodec<J> jobCodec() {
                return jobCodec;
            }

            @Override
            public FixedCodec<R> resultCodec() {
                return resultCodec;
            }

            @Override
            public String toString() {
                return "SchedulerCodecs[" + scheduler + "]";
            }
        };
    }
}

package io.subetha.cxc.shedlock;

import io.subetha.cxc.mmf.AtomicBuffer;
import io.subetha.cxc.process.Pids;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * A Boot application as a ShedLock user writes it: {@code @EnableSchedulerLock}, a job with
 * {@code @SchedulerLock}, and no LockProvider of its own (the cxc one is auto-configured). Every
 * JVM fires the job at the same wall-clock instants, each multiple of {@link #TICK_MILLIS}, and the
 * job writes who ran each tick into a shared ledger file ({@link Ledger}). Run by {@link
 * ShedLockProcessTest} as a child JVM: {@code --ledger=<file>} plus Boot properties.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT1H")
@Import(ScheduledJobApp.TickJob.class)
public class ScheduledJobApp implements SchedulingConfigurer {

    static final long TICK_MILLIS = 200;

    private final TickJob job;

    ScheduledJobApp(TickJob job) {
        this.job = job;
    }

    public static void main(String[] args) {
        SpringApplication.run(ScheduledJobApp.class, args);
        System.out.println("started " + Pids.current());
        System.out.flush();
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        registrar.addTriggerTask(
                job::run,
                context -> {
                    long now = System.currentTimeMillis();
                    return Instant.ofEpochMilli((now / TICK_MILLIS + 1) * TICK_MILLIS);
                });
    }

    @Bean
    static Ledger ledger(@Value("${ledger}") Path path) {
        return Ledger.map(path);
    }

    /** The job: one run per tick across all JVMs, or the ledger says otherwise. */
    public static class TickJob {
        private final Ledger ledger;

        TickJob(Ledger ledger) {
            this.ledger = ledger;
        }

        // At least most of a tick, as ShedLock advises for nodes whose schedulers fire apart: a
        // JVM that a loaded host lets fire 100 ms late would otherwise find the lock free and run
        // the same tick again (seen once with PT0.1S at load average 15).
        @SchedulerLock(name = "tick-job", lockAtLeastFor = "PT0.18S")
        public void run() {
            long tick = System.currentTimeMillis() / TICK_MILLIS;
            ledger.enter(tick, CxcLockProvider.fencingToken());
            if (ledger.volunteerToHang()) {
                System.out.println("hanging " + tick);
                System.out.flush();
                while (true) {
                    LockSupport.park(); // holds the lock until SIGKILLed
                }
            }
            LockSupport.parkNanos(20_000_000); // the job's work
            ledger.leave();
        }
    }

    /**
     * The shared proof, a mapped file: who is inside the job now, how often two were, how often a
     * tick ran twice, a request to hang, and per tick since a base the token and PID that ran it.
     */
    record Ledger(AtomicBuffer buffer) {
        static final int INSIDE = 0;
        static final int OVERLAPS = 8;
        static final int DUPLICATES = 16;
        static final int HANG = 24;
        static final int BASE_TICK = 32;
        static final int ENTRIES = 64;
        static final int TICKS = 4096;
        static final int LENGTH = ENTRIES + 8 * TICKS;

        static Ledger map(Path path) {
            try (FileChannel channel =
                    FileChannel.open(
                            path,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.READ,
                            StandardOpenOption.WRITE)) {
                return new Ledger(
                        new AtomicBuffer(channel.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH)));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        void enter(long tick, long token) {
            long pid = Pids.current();
            long inside = buffer.getLongVolatile(INSIDE);
            boolean holderAlive =
                    inside != 0
                            && ProcessHandle.of(inside).map(ProcessHandle::isAlive).orElse(false);
            if (holderAlive || !buffer.compareAndSetLong(INSIDE, inside, pid)) {
                buffer.getAndAddLong(OVERLAPS, 1);
            }
            long index = tick - buffer.getLongVolatile(BASE_TICK);
            if (index >= 0 && index < TICKS) {
                if (!buffer.compareAndSetLong(ENTRIES + 8 * (int) index, 0, (token << 32) | pid)) {
                    buffer.getAndAddLong(DUPLICATES, 1);
                }
            }
        }

        boolean volunteerToHang() {
            return buffer.compareAndSetLong(HANG, 1, Pids.current());
        }

        void leave() {
            buffer.compareAndSetLong(INSIDE, Pids.current(), 0);
        }

        long entry(long index) {
            return buffer.getLongVolatile(ENTRIES + 8 * (int) index);
        }
    }
}

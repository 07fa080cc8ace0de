package io.subetha.cxc.sample.shutdown;

import io.subetha.cxc.boot.LeaderContext;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import java.util.concurrent.locks.LockSupport;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A child JVM for {@link ShutdownOverlapProcessTest}: a {@code @Scheduled @LeaderOnly} job that
 * takes {@code slow.job.millis} and ignores interrupts (as much real work does: a JDBC call, a
 * copy), printing {@code RUN start|end <pid> <term> <nanoTime>} around each run. {@code nanoTime}
 * reads CLOCK_MONOTONIC, the same for every process on the host, so runs in two JVMs compare.
 */
@SpringBootApplication
@EnableScheduling
public class SlowJobApplication {

    public static void main(String[] args) {
        SpringApplication.run(SlowJobApplication.class, args);
    }

    @Component
    static class SlowJob {

        @Scheduled(fixedDelay = 100)
        @LeaderOnly
        public void run() {
            long term = LeaderContext.requireCurrentTerm();
            long pid = ProcessHandle.current().pid();
            print("RUN start " + pid + " " + term + " " + System.nanoTime());
            long millis = Long.getLong("slow.job.millis", 1500);
            long end = System.nanoTime() + millis * 1_000_000;
            long left;
            while ((left = end - System.nanoTime()) > 0) {
                Thread.interrupted(); // Boot's scheduler interrupts it at shutdown: carry on
                LockSupport.parkNanos(left);
            }
            print("RUN end " + pid + " " + term + " " + System.nanoTime());
        }

        private static void print(String line) {
            synchronized (System.out) {
                System.out.println(line);
                System.out.flush();
            }
        }
    }
}

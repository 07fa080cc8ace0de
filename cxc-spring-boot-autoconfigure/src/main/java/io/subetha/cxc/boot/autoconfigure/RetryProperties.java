package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.scheduling.RetryPolicy;
import java.time.Duration;

/**
 * A scheduler's retry policy (core's RetryPolicy): after the n-th failed attempt the job waits
 * initial-backoff × multiplier^(n-1), at most max-backoff, then runs again; after max-attempts it
 * is FAILED, kept until re-run or deleted.
 */
public class RetryProperties {

    /** Attempts of a job, the first included (1: a failure is final). */
    private int maxAttempts = RetryPolicy.DEFAULT.maxAttempts();

    /** The wait after the first failure. */
    private Duration initialBackoff = RetryPolicy.DEFAULT.initialBackoff();

    /** The growth of the wait at each further failure (1.0: a fixed wait). */
    private double multiplier = RetryPolicy.DEFAULT.multiplier();

    /** The longest wait between two attempts. */
    private Duration maxBackoff = RetryPolicy.DEFAULT.maxBackoff();

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Duration getInitialBackoff() {
        return initialBackoff;
    }

    public void setInitialBackoff(Duration initialBackoff) {
        this.initialBackoff = initialBackoff;
    }

    public double getMultiplier() {
        return multiplier;
    }

    public void setMultiplier(double multiplier) {
        this.multiplier = multiplier;
    }

    public Duration getMaxBackoff() {
        return maxBackoff;
    }

    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }
}

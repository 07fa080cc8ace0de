package io.subetha.cxc.versioned;

import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.mmf.AtomicBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * The value the versioned tests push and record: who wrote it, its number, and a check word that a
 * torn copy would not match.
 */
public record Sample(long producer, long n, long a, long b, long c, long d, long e, long check) {

    public static final FixedCodec<Sample> CODEC = FixedCodec.record(Sample.class);

    public static Sample of(long producer, long n) {
        return new Sample(producer, n, n, n, n, n, n, producer * 1_000_003 + n);
    }

    /** Whether every field agrees with {@code producer} and {@code n}: the copy is not torn. */
    public boolean whole() {
        return a == n && b == n && c == n && d == n && e == n && check == producer * 1_000_003 + n;
    }

    /**
     * {@link #CODEC}'s layout (same fingerprint), but once {@link #stall} is set, its write stores
     * the first half of the value and then parks forever: a process killed there dies holding a
     * slot with half a value written.
     */
    public static final class StallingCodec implements FixedCodec<Sample> {
        public static volatile boolean stall;
        public static volatile Runnable onStall = () -> {};

        @Override
        public int size() {
            return CODEC.size();
        }

        @Override
        public void write(AtomicBuffer buffer, int offset, Sample value) {
            if (stall) {
                Sample half =
                        new Sample(value.producer(), value.n(), value.a(), value.b(), 0, 0, 0, 0);
                CODEC.write(buffer, offset, half);
                onStall.run();
                while (true) {
                    LockSupport.park();
                }
            }
            CODEC.write(buffer, offset, value);
        }

        @Override
        public Sample read(AtomicBuffer buffer, int offset) {
            return CODEC.read(buffer, offset);
        }

        @Override
        public long fingerprint() {
            return CODEC.fingerprint();
        }

        @Override
        public String describe() {
            return CODEC.describe();
        }
    }
}

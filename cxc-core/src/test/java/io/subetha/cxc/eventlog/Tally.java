package io.subetha.cxc.eventlog;

import io.subetha.cxc.codec.FixedCodec;

/**
 * The state the process tests fold: per producer (0..3), how many of its events were folded and the
 * last one's number; {@code violations} counts events folded out of their producer's order or twice
 * (an event whose number is not the last one's plus one).
 */
public record Tally(
        long violations,
        long count0,
        long count1,
        long count2,
        long count3,
        long last0,
        long last1,
        long last2,
        long last3) {

    public static final FixedCodec<Tally> CODEC = FixedCodec.record(Tally.class);
    public static final Tally EMPTY = new Tally(0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** An event of producer {@code p}, its {@code n}-th (from 1). */
    public record Event(long producer, long n, long a, long b, long c, long d, long e, long f) {
        public static final FixedCodec<Event> CODEC = FixedCodec.record(Event.class);

        public static Event of(int producer, long n) {
            return new Event(producer, n, n, n, n, n, n, n);
        }
    }

    public long count(int p) {
        return new long[] {count0, count1, count2, count3}[p];
    }

    public long last(int p) {
        return new long[] {last0, last1, last2, last3}[p];
    }

    public static Tally fold(Tally t, Event e) {
        int p = (int) e.producer();
        long[] count = {t.count0, t.count1, t.count2, t.count3};
        long[] last = {t.last0, t.last1, t.last2, t.last3};
        long violations = t.violations + (e.n() == last[p] + 1 && e.a() == e.n() ? 0 : 1);
        count[p]++;
        last[p] = e.n();
        return new Tally(
                violations,
                count[0],
                count[1],
                count[2],
                count[3],
                last[0],
                last[1],
                last[2],
                last[3]);
    }
}

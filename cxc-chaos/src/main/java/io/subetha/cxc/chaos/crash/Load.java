package io.subetha.cxc.chaos.crash;

import java.util.Random;

/** One family's share of a worker's workload: one operation (or a short sequence) per step. */
interface Load {

    Family family();

    void step(Random random);

    /** A value unique in the run: the worker's incarnation and a counter of its own. */
    static long id(int worker, long n) {
        return ((long) worker << 32) | n;
    }

    static int workerOf(long id) {
        return (int) (id >>> 32);
    }

    static long counterOf(long id) {
        return id & 0xFFFF_FFFFL;
    }
}

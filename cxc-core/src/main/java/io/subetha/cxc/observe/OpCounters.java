package io.subetha.cxc.observe;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-process op counts of one primitive, by op kind. Op kinds are the primitive's {@code OP_*}
 * constants, numbered from 1 as in the seed.
 *
 * <p>Counting sits on every fast path (a leadership check is one volatile read), so it must cost
 * less than a second read: an atomic {@code getAndAdd} ({@code lock xadd}, about 9 ns here) would
 * multiply the fast path's cost several times. Instead each thread counts in a cell only it writes
 * (single writer: an opaque store of the incremented value is exact and never torn), found by
 * hashing the thread id into a small table and confirming ownership with one reference compare. A
 * thread that finds its home cell owned by another live thread counts in a shared {@link
 * AtomicLongArray} instead: slower, still exact. A cell whose owner thread has terminated is taken
 * over; the termination happens-before {@link Thread#isAlive()} returning false, so the new owner
 * continues from the dead thread's final counts.
 *
 * <p>Readers sum the cells with opaque reads. Each cell only grows and reads of one location are
 * coherent, so a later snapshot never shows a smaller count than an earlier one.
 */
public final class OpCounters {

    private static final int CELLS = 32; // power of two
    private static final int CELL_PADDING = 8; // longs per cache line: cells never share a line
    private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(Cell[].class);

    private final List<String> opNames;
    private final Cell[] cells = new Cell[CELLS];
    private final AtomicLongArray shared;

    /**
     * @param opNames op names in op-kind order: {@code opNames.get(0)} is op kind 1
     */
    public OpCounters(List<String> opNames) {
        this.opNames = List.copyOf(opNames);
        this.shared = new AtomicLongArray(this.opNames.size() + 1);
    }

    /** Counts one operation of kind {@code op} (1-based) by the calling thread. */
    public void increment(int op) {
        Thread thread = Thread.currentThread();
        Cell cell = cells[(int) thread.getId() & (CELLS - 1)];
        if (cell != null && cell.owner == thread) {
            long[] counts = cell.counts;
            int index = op * CELL_PADDING;
            COUNT.setOpaque(counts, index, counts[index] + 1);
        } else {
            incrementSlow(thread, op);
        }
    }

    private void incrementSlow(Thread thread, int op) {
        int home = (int) thread.getId() & (CELLS - 1);
        Cell cell = (Cell) CELL.getAcquire(cells, home);
        if (cell == null) {
            Cell fresh = new Cell(thread, opNames.size());
            if (CELL.compareAndSet(cells, home, null, fresh)) {
                increment(op);
                return;
            }
        } else if (cell.owner != thread && !cell.owner.isAlive() && cell.claim(thread)) {
            increment(op);
            return;
        }
        shared.getAndIncrement(op);
    }

    /** Op names in op-kind order. */
    public List<String> opNames() {
        return opNames;
    }

    /** The count of op kind {@code op} (1-based) across all threads of this process. */
    public long get(int op) {
        long sum = shared.get(op);
        for (int i = 0; i < CELLS; i++) {
            Cell cell = (Cell) CELL.getAcquire(cells, i);
            if (cell != null) {
                sum += (long) COUNT.getOpaque(cell.counts, op * CELL_PADDING);
            }
        }
        return sum;
    }

    /** The count of the op named {@code opName}. */
    public long get(String opName) {
        int index = opNames.indexOf(opName);
        if (index < 0) {
            throw new IllegalArgumentException(
                    "no op named '" + opName + "'; the ops are " + opNames);
        }
        return get(index + 1);
    }

    /** Every op's count, keyed by name in op-kind order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (int op = 1; op <= opNames.size(); op++) {
            counts.put(opNames.get(op - 1), get(op));
        }
        return Collections.unmodifiableMap(counts);
    }

    /** One thread's counters, each on its own cache line so threads never false-share. */
    private static final class Cell {
        private static final VarHandle OWNER;

        static {
            try {
                OWNER = MethodHandles.lookup().findVarHandle(Cell.class, "owner", Thread.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        // Volatile so a takeover by claim() is seen by every thread; on x86 and ARMv8 the fast
        // path's volatile load costs what a plain load does.
        volatile Thread owner;
        final long[] counts;

        Cell(Thread owner, int ops) {
            this.owner = owner;
            this.counts = new long[(ops + 2) * CELL_PADDING];
        }

        boolean claim(Thread thread) {
            Thread previous = owner;
            return OWNER.compareAndSet(this, previous, thread);
        }
    }
}

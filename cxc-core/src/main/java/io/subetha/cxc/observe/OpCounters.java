package io.subetha.cxc.observe;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-process op counts of one primitive, by op kind. Op kinds are the constants of the primitive's
 * {@code Op} enum, each carrying its number from 1 ({@link OpKind}).
 *
 * <p>Counting sits on every fast path (a leadership check is one volatile read), so it must cost
 * less than a second read: an atomic {@code getAndAdd} ({@code lock xadd}, about 9 ns here) would
 * multiply the fast path's cost several times. Instead each thread counts in a cell only it writes
 * (single writer: an opaque store of the incremented value is exact and never torn). A thread's
 * home cell is its id modulo the number of cells; the cell's first word holds its owner's thread
 * id, so finding and confirming the cell is one array load and a compare (the fast path reloads
 * this chain on every call, since the leadership read's acquire barrier keeps the JIT from hoisting
 * it, so its length is what counting costs). A thread whose home cell another live thread owns
 * counts in a shared {@link AtomicLongArray} instead: slower, still exact.
 *
 * <p>A cell whose owner thread has terminated is taken over: its termination happens-before {@link
 * Thread#isAlive()} returning false, so the new owner continues from the dead thread's final
 * counts. HotSpot never reuses a thread id within a JVM, so an id names one thread for good.
 *
 * <p>Memory layout: one {@code long[]} of {@code CELLS} cells, each a whole number of 64-byte lines
 * so that threads never false-share:
 *
 * <pre>
 *   cell i, at i * 16:  [0] owner thread id (0 = free)   [op] count of op kind op (1-based)
 * </pre>
 *
 * <p>Counting can be switched off for the whole JVM with {@code -Dcxc.op-counting=false}: the
 * switch is a {@code static final} the JIT folds away, so a fast path then costs exactly its read.
 * Counts then stay 0.
 *
 * <p>Readers sum the cells with opaque reads. Each cell only grows and reads of one location are
 * coherent, so a later snapshot never shows a smaller count than an earlier one.
 */
public final class OpCounters {

    /** The JVM-wide switch, read once: {@code -Dcxc.op-counting=false} turns counting off. */
    public static final boolean ENABLED =
            !"false".equalsIgnoreCase(System.getProperty("cxc.op-counting"));

    private static final int CELLS = 32; // power of two

    /**
     * Longs per cell: the owner id and up to 15 op kinds, in two cache lines (the adjacent-line
     * prefetcher pairs lines, so one line apart is not far enough). A constant, not a field: the
     * fast path then loads nothing to find its cell but the array.
     */
    private static final int STRIDE = 16;

    /** Most op kinds one primitive may have. */
    public static final int MAX_OPS = STRIDE - 1;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    /** Name of each op code, null where the numbering has a gap; index 0 unused. */
    private final String[] namesByCode;

    private final List<Op> ops;
    private final long[] cells;

    /** The owner of each cell, for the slow path's liveness check; ids alone cannot tell. */
    private final Thread[] owners = new Thread[CELLS];

    private final AtomicLongArray shared;

    /** One counted op: its number and exported name. */
    public record Op(int code, String name) {}

    /**
     * @param opNames op names in op-kind order: {@code opNames.get(0)} is op kind 1
     */
    public OpCounters(List<String> opNames) {
        this(numbered(opNames).toArray(new Op[0]));
    }

    private OpCounters(Op[] ops) {
        this.ops = List.of(ops);
        int max = 0;
        for (Op op : this.ops) {
            if (op.code() < 1 || op.code() > MAX_OPS) {
                throw new IllegalArgumentException(
                        "op " + op.name() + " has code " + op.code() + ", outside 1.." + MAX_OPS);
            }
            max = Math.max(max, op.code());
        }
        this.namesByCode = new String[max + 1];
        for (Op op : this.ops) {
            if (namesByCode[op.code()] != null) {
                throw new IllegalArgumentException(
                        "ops "
                                + namesByCode[op.code()]
                                + " and "
                                + op.name()
                                + " share code "
                                + op.code());
            }
            namesByCode[op.code()] = op.name();
        }
        this.cells = new long[(CELLS + 1) * STRIDE]; // a spare cell keeps the last one apart
        this.shared = new AtomicLongArray(max + 1);
    }

    /** Counters for the ops an {@link OpKind} enum declares, in code order. */
    public static <E extends Enum<E> & OpKind> OpCounters of(Class<E> opKinds) {
        List<Op> ops = new ArrayList<>();
        for (E kind : opKinds.getEnumConstants()) {
            ops.add(new Op(kind.code(), kind.opName()));
        }
        ops.sort(Comparator.comparingInt(Op::code));
        return new OpCounters(ops.toArray(new Op[0]));
    }

    private static List<Op> numbered(List<String> opNames) {
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < opNames.size(); i++) {
            ops.add(new Op(i + 1, opNames.get(i)));
        }
        return ops;
    }

    /** Counts one operation of kind {@code op} by the calling thread. */
    public void increment(OpKind op) {
        if (ENABLED) { // counting off costs not even the interface call
            increment(op.code());
        }
    }

    /** Counts one operation of kind {@code op} (1-based) by the calling thread. */
    public void increment(int op) {
        if (!ENABLED) {
            return;
        }
        long id = Thread.currentThread().getId();
        int cell = ((int) id & (CELLS - 1)) * STRIDE;
        long[] slots = cells;
        if (slots[cell] == id) {
            int index = cell + op;
            SLOT.setOpaque(slots, index, slots[index] + 1);
        } else {
            incrementSlow(op);
        }
    }

    private void incrementSlow(int op) {
        Thread thread = Thread.currentThread();
        if (claimHomeCell(thread)) {
            increment(op);
        } else {
            shared.getAndIncrement(op);
        }
    }

    private synchronized boolean claimHomeCell(Thread thread) {
        int home = (int) thread.getId() & (CELLS - 1);
        Thread owner = owners[home];
        if (owner != null && owner != thread && owner.isAlive()) {
            return false;
        }
        // Free, or its owner has terminated (which happens-before isAlive() returned false):
        // the cell's counts are final, and this thread carries them on.
        owners[home] = thread;
        SLOT.setRelease(cells, home * STRIDE, thread.getId());
        return true;
    }

    /** The counted ops, in code order. */
    public List<Op> ops() {
        return ops;
    }

    /** Op names in code order. */
    public List<String> opNames() {
        List<String> names = new ArrayList<>(ops.size());
        ops.forEach(op -> names.add(op.name()));
        return names;
    }

    /** The count of op kind {@code op} across all threads of this process. */
    public long get(OpKind op) {
        return get(op.code());
    }

    /** The count of op kind {@code op} across all threads of this process. */
    public long get(int op) {
        if (op < 1 || op >= namesByCode.length || namesByCode[op] == null) {
            throw new IllegalArgumentException(
                    "op kind " + op + " is not counted here; the ops are " + ops);
        }
        long sum = shared.get(op);
        for (int cell = 0; cell < CELLS; cell++) {
            sum += (long) SLOT.getOpaque(cells, cell * STRIDE + op);
        }
        return sum;
    }

    /** The count of the op named {@code opName}. */
    public long get(String opName) {
        for (Op op : ops) {
            if (op.name().equals(opName)) {
                return get(op.code());
            }
        }
        throw new IllegalArgumentException(
                "no op named '" + opName + "'; the ops are " + opNames());
    }

    /** Every op's count, keyed by name in code order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (Op op : ops) {
            counts.put(op.name(), get(op.code()));
        }
        return Collections.unmodifiableMap(counts);
    }
}

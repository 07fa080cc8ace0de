package io.subetha.cxc.observe;

import java.nio.file.Path;
import java.util.Map;

/** What every primitive tells an observer: who it is, where it lives, and what it has done. */
public interface ObservedPrimitive {

    /** A name for people: by default the file's name without directory. */
    String name();

    /** The primitive's kind name: "leader-election", "heartbeat-table"... */
    String kind();

    /** The mapped file. */
    Path file();

    /**
     * This process's op counts, keyed by op name in op-kind order. Exact and monotonic per process:
     * every operation is counted once, and no count ever goes down.
     */
    default Map<String, Long> opCounts() {
        return opCounters().snapshot();
    }

    /** The live counters behind {@link #opCounts()}, for meters that read one op at a time. */
    OpCounters opCounters();

    /**
     * The primitive's current state as a small map of plain values (numbers, strings, booleans, and
     * lists and maps of those), with stable keys: the leader and term, the slots held, depths,
     * bytes used. What {@code toString}, the starter's actuator endpoint and the inspector show.
     * Reads shared memory only; it probes no process and writes nothing.
     */
    Map<String, Object> describe();

    /** Whether {@code close()} was called; a registry drops closed primitives. */
    boolean isClosed();
}

package io.subetha.cxc.eventlog;

import io.subetha.cxc.CxcException;

/**
 * A {@link NamedReaders#claim} of a reader name that a live process reads under: two readers under
 * one name would each save positions the other skips. Names the holder.
 */
public class ReaderNameTakenException extends CxcException {

    private final String reader;
    private final long holderPid;

    public ReaderNameTakenException(String table, String reader, long holderPid, long ownPid) {
        super(
                "reader '"
                        + reader
                        + "' of "
                        + table
                        + " is held by live PID "
                        + holderPid
                        + (holderPid == ownPid ? " (this process)" : "")
                        + ": one name, one reader at a time. Give each reader its own name (one"
                        + " per copy of a service, the same across its restarts), or stop PID "
                        + holderPid
                        + " first");
        this.reader = reader;
        this.holderPid = holderPid;
    }

    public String reader() {
        return reader;
    }

    /** The live PID that reads under the name. */
    public long holderPid() {
        return holderPid;
    }
}

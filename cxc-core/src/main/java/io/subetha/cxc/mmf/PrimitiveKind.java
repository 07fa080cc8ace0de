package io.subetha.cxc.mmf;

import java.util.Optional;

/**
 * The primitive a cxc file holds, stored in its header as {@link #code()} so that opening a
 * heartbeat table as a leader election fails clearly instead of misreading the bytes. Codes are
 * part of the file format: never renumber one.
 */
public enum PrimitiveKind {
    LEADER_ELECTION(1, "leader-election"),
    HEARTBEAT_TABLE(2, "heartbeat-table"),
    FAILOVER_WATCHDOG(3, "failover-watchdog"),
    EPOCH_BARRIER(4, "epoch-barrier"),
    FENCED_LEDGER(5, "fenced-ledger");

    private final int code;
    private final String displayName;

    PrimitiveKind(int code, String displayName) {
        this.code = code;
        this.displayName = displayName;
    }

    /** The number stored at {@link HeaderDescriptor#KIND_OFFSET}. */
    public int code() {
        return code;
    }

    /** The name users see in errors, the actuator and metrics tags. */
    public String displayName() {
        return displayName;
    }

    /** "a leader-election", "an epoch-barrier": for messages. */
    public String withArticle() {
        return ("aeiou".indexOf(displayName.charAt(0)) >= 0 ? "an " : "a ") + displayName;
    }

    public static Optional<PrimitiveKind> ofCode(int code) {
        for (PrimitiveKind kind : values()) {
            if (kind.code == code) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return displayName;
    }
}

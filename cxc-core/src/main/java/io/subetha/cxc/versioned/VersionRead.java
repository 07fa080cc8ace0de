package io.subetha.cxc.versioned;

import java.util.NoSuchElementException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link SharedVersionedChain} holds for one version: its value, or why there is none.
 *
 * @param version the version asked for
 * @param status readable, or which reason it is not
 * @param value the value when {@link Status#READABLE}, else null
 */
public record VersionRead<T>(long version, Status status, @Nullable T value) {

    /** Why a version reads as it does. */
    public enum Status {
        /** The value pushed as this version. */
        READABLE,
        /** No push was ever given this version (0, negative, or past the current version). */
        NEVER_PUSHED,
        /** Pushed, but overwritten since: more than {@code retained} versions came after it. */
        NOT_RETAINED,
        /** Given to a push that has not written it (yet): in flight, or its pusher died. */
        NOT_WRITTEN
    }

    public boolean isReadable() {
        return status == Status.READABLE;
    }

    /** The value, if readable. */
    public Optional<T> toOptional() {
        return Optional.ofNullable(value);
    }

    /** The value; throws naming the status if there is none. */
    public T orElseThrow() {
        if (value == null) {
            throw new NoSuchElementException("version " + version + " is " + status);
        }
        return value;
    }
}

package io.subetha.cxc.boot.annotation;

/** What a {@link LeaderOnly} method does when called on a process that does not lead. */
public enum OnNotLeader {
    /**
     * Skip the method: return {@code null}, an empty {@code Optional} ({@code OptionalInt}, {@code
     * OptionalLong}, {@code OptionalDouble}), or nothing for {@code void}.
     */
    SKIP,
    /** Throw {@link io.subetha.cxc.boot.NotLeaderException}. */
    THROW
}

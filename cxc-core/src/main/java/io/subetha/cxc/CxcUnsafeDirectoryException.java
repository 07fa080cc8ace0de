package io.subetha.cxc;

import org.jspecify.annotations.Nullable;

/**
 * A cxc directory or file that someone other than its user could replace (another owner, a writable
 * parent, a foreign symbolic link), or that cannot be used at all (a file where a directory should
 * be, no write permission). Refused by {@link io.subetha.cxc.mmf.DirectorySafety}.
 */
public class CxcUnsafeDirectoryException extends CxcFileAccessException {

    private final @Nullable Object configured;
    private final String reason;
    private final String action;
    private final boolean relaxable;

    /**
     * @param configured the directory (or file) as the caller named it
     * @param reason what is wrong
     * @param action what to do about it
     * @param relaxable whether the non-strict checks would accept it
     */
    public CxcUnsafeDirectoryException(
            @Nullable Object configured, String reason, String action, boolean relaxable) {
        super(
                configured
                        + ": "
                        + reason
                        + ". "
                        + action
                        + (relaxable
                                ? " To accept it knowingly, check it with strict = false."
                                : ""));
        this.configured = configured;
        this.reason = reason;
        this.action = action;
        this.relaxable = relaxable;
    }

    public @Nullable Object configured() {
        return configured;
    }

    public String reason() {
        return reason;
    }

    public String action() {
        return action;
    }

    /** Whether {@code strict = false} would accept it. */
    public boolean relaxable() {
        return relaxable;
    }
}

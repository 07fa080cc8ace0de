package io.subetha.cxc.chaos.crash;

/** The families the crash workload runs, each with the one-letter code of its history lines. */
public enum Family {
    SCHEDULER('S'),
    FANOUT('F'),
    EVENTS('E'),
    LEASE('L'),
    REGION('R');

    private final char code;

    Family(char code) {
        this.code = code;
    }

    public char code() {
        return code;
    }

    public static Family of(String code) {
        for (Family f : values()) {
            if (code.length() == 1 && f.code == code.charAt(0)) {
                return f;
            }
        }
        throw new IllegalArgumentException("no family coded '" + code + "'");
    }
}

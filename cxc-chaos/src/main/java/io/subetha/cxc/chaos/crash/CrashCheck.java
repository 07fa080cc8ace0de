package io.subetha.cxc.chaos.crash;

/**
 * Checks a crash run: every family's promise over all the histories and the files ({@link
 * SchedulerCheck}, {@link FanoutCheck}, {@link EventCheck}, {@link LeaseCheck}, {@link
 * RegionCheck}), and for every family that no operation threw what its contract does not allow.
 */
public final class CrashCheck {

    private CrashCheck() {}

    public static Findings check(Evidence evidence) {
        Findings out = new Findings();
        for (Family family : Family.values()) {
            long busy = 0;
            long done = 0;
            for (HistoryLine l : evidence.lines(family)) {
                if (l.op().equals("error")) {
                    out.violation(
                            family,
                            "worker "
                                    + l.worker()
                                    + " got "
                                    + l.field(0)
                                    + ": "
                                    + String.join(" ", l.fields().subList(1, l.fields().size())));
                } else if (l.op().equals("busy")) {
                    busy++;
                } else if (!l.op().endsWith("-begin")) {
                    done++;
                }
            }
            out.figure(family, "operations", done);
            out.figure(family, "busy", busy);
        }
        SchedulerCheck.check(evidence, out);
        FanoutCheck.check(evidence, out);
        EventCheck.check(evidence, out);
        LeaseCheck.check(evidence, out);
        RegionCheck.check(evidence, out);
        return out;
    }
}

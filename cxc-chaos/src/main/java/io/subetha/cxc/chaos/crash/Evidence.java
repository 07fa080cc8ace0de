package io.subetha.cxc.chaos.crash;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Everything the check reads: the histories, the harness's faults, the event log's trail and what
 * the files say after recovery.
 */
public record Evidence(Histories histories, List<Fault> faults, EventTrail trail, FileFacts facts) {

    public List<HistoryLine> lines(Family family) {
        return histories.of(family).toList();
    }

    /** Each worker's last line of {@code family}: what it was doing when it was killed. */
    public Map<Integer, HistoryLine> lastLines(Family family) {
        Map<Integer, HistoryLine> last = new HashMap<>();
        histories.of(family).forEach(l -> last.put(l.worker(), l));
        return last;
    }

    /** When each killed worker was sent its SIGKILL: it is dead some instant after. */
    public Map<Integer, Long> killedAt() {
        return faults.stream()
                .filter(f -> f.kind() == Fault.Kind.KILL)
                .collect(Collectors.toMap(Fault::worker, Fault::nanos, Math::min));
    }

    public long count(Fault.Kind kind) {
        return faults.stream().filter(f -> f.kind() == kind).count();
    }
}

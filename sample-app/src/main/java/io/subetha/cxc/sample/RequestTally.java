package io.subetha.cxc.sample;

import io.subetha.cxc.boot.annotation.CxcEventListener;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Every instance's own view of the requests every instance served: an event-log listener that runs,
 * in each copy, for every event of the log {@code requests} ({@link RequestLog}), in order, and
 * tallies them by the PID that served them; {@code /requests} shows the tally. A copy restarted
 * under the same copy name ({@code cxc-sample-<server.port>} by default) goes on after the last
 * request it handled before it stopped; its tally, kept in memory, counts from then.
 */
@RestController
public class RequestTally {

    private static final Logger logger = LoggerFactory.getLogger(RequestTally.class);

    private final Map<Long, Long> byPid = new TreeMap<>();
    private long handled;
    private long lastSequence = -1;

    @CxcEventListener(log = "requests", id = "tally")
    synchronized void onRequest(long servedBy, long sequence) {
        byPid.merge(servedBy, 1L, Long::sum);
        handled++;
        lastSequence = sequence;
        logger.debug("handled request {} served by pid {}", sequence, servedBy);
    }

    @GetMapping("/requests")
    synchronized String requests() {
        return "this instance (pid "
                + ProcessHandle.current().pid()
                + ") handled "
                + handled
                + " requests, the last one "
                + lastSequence
                + "; served by pid: "
                + byPid
                + "\n";
    }
}

package io.subetha.cxc.sample;

import io.subetha.cxc.boot.CxcEventPublisher;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * One event per request to {@code /hello}, published by whichever instance served it into the event
 * log {@code requests} that every instance shares (declared by {@code
 * cxc.event-logs.requests.capacity}, the file {@code <cxc.directory>/requests.events}): the event
 * is the serving instance's PID. The leader folds the events into their count on its ticks, which
 * {@code /actuator/cxc} shows the same on every instance; every instance's {@link RequestTally}
 * handles each of them.
 */
@RestController
public class RequestLog {

    private final CxcEventPublisher events;

    public RequestLog(CxcEventPublisher events) {
        this.events = events;
    }

    @GetMapping("/hello")
    String hello() {
        long pid = ProcessHandle.current().pid();
        events.publish("requests", pid);
        return "hello from pid " + pid + "\n";
    }
}

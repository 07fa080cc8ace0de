package io.subetha.cxc.sample;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.eventlog.EventStateLog;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * One event per request to {@code /hello}, emitted by whichever instance served it into one log
 * that every instance shares ({@code <cxc.directory>/requests.cxc}); the leader's {@link
 * BookkeepingJob} folds them into the total, which {@code /actuator/cxc} shows the same on every
 * instance. The event is the serving instance's PID; the state, the requests folded so far.
 */
@Configuration(proxyBeanMethods = false)
public class RequestLog {

    /** Requests pending at most before {@code /hello} answers that the log is full. */
    static final int CAPACITY = 4096;

    @Bean
    EventStateLog<Long, Long> requests(CxcPrimitives primitives) {
        return primitives.open(
                "requests",
                (file, options) ->
                        EventStateLog.TYPE.openOrCreate(
                                file,
                                new EventStateLog.Settings<>(
                                        CAPACITY, FixedCodec.INT64, FixedCodec.INT64, 0L),
                                options));
    }

    /** The small endpoint whose requests are counted. */
    @RestController
    static class HelloController {
        private final EventStateLog<Long, Long> requests;

        HelloController(EventStateLog<Long, Long> requests) {
            this.requests = requests;
        }

        @GetMapping("/hello")
        String hello() {
            long pid = ProcessHandle.current().pid();
            requests.emit(pid);
            return "hello from pid " + pid + "\n";
        }
    }
}

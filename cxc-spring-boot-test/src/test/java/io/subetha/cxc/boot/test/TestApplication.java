package io.subetha.cxc.boot.test;

import io.subetha.cxc.boot.LeaderContext;
import io.subetha.cxc.boot.LeadershipEvent;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/** An application with one {@code @LeaderOnly} job, as a user's test would boot. */
@SpringBootConfiguration
@EnableAutoConfiguration
class TestApplication {

    @Bean
    Job job() {
        return new Job();
    }

    static class Job {
        private final List<Long> terms = new CopyOnWriteArrayList<>();
        private final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();

        @LeaderOnly
        public void run() {
            terms.add(LeaderContext.requireCurrentTerm());
        }

        public List<Long> terms() {
            return terms;
        }

        @EventListener
        public void on(LeadershipEvent event) {
            events.add(event);
        }

        public List<LeadershipEvent> events() {
            return events;
        }
    }
}

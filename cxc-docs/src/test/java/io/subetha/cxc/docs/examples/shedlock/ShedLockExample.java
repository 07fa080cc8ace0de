package io.subetha.cxc.docs.examples.shedlock;

import io.subetha.cxc.shedlock.CxcLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

// docs:begin shedlock
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT10M")
@SpringBootApplication
class App {}

@Component
class Invoices {
    @Scheduled(cron = "0 */5 * * * *")
    @SchedulerLock(name = "invoice-run", lockAtLeastFor = "PT30S")
    void invoices() {
        long token = CxcLockProvider.fencingToken(); // rises per run, for the store's fence
        // ...
    }
}
// docs:end shedlock

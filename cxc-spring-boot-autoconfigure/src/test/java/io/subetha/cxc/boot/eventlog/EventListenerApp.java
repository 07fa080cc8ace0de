package io.subetha.cxc.boot.eventlog;

import io.subetha.cxc.boot.annotation.CxcEventListener;
import io.subetha.cxc.process.Pids;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A copy of a service with one listener of the declared log {@code orders} (long events): it prints
 * {@code handled <sequence> <event>} for each. Run as several copies by {@link
 * EventListenerProcessTest}.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class EventListenerApp {

    public static void main(String[] args) {
        SpringApplication.run(EventListenerApp.class, args);
        System.out.println("started " + Pids.current());
        System.out.flush();
    }

    @Bean
    Printer printer() {
        return new Printer();
    }

    /** Says each event it handles on stdout. */
    static class Printer {
        @CxcEventListener(log = "orders", id = "printer")
        void onOrder(long order, long sequence) {
            System.out.println("handled " + sequence + " " + order);
            System.out.flush();
        }
    }
}

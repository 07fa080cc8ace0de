package io.subetha.cxc.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Several copies of this service run on one host; the cxc starter elects one of them to run the
 * {@link BookkeepingJob}. Run three (see the README's demo), then look at {@code /actuator/cxc}.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}

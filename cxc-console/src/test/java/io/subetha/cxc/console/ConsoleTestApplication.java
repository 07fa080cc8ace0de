package io.subetha.cxc.console;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.lease.OwnerLease;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * An application with one of each thing the console lists: a lease table, a scheduler, a fan-out.
 * No component scan: the console's own classes live beside it and come from auto-configuration.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ConsoleTestApplication {

    @Bean
    OwnerLease appLeases(CxcPrimitives primitives) {
        return primitives.open(
                "app-leases",
                (file, options) ->
                        OwnerLease.TYPE.openOrCreate(file, new OwnerLease.Settings(16), options));
    }

    @Bean
    BackgroundScheduler<Long, Long> reports(CxcPrimitives primitives) {
        return primitives.open(
                "reports",
                (file, options) ->
                        BackgroundScheduler.TYPE.openOrCreate(
                                file,
                                new BackgroundScheduler.Settings<>(
                                        512, FixedCodec.INT64, FixedCodec.INT64),
                                options));
    }

    @Bean
    PriorityFanout<Long> work(CxcPrimitives primitives) {
        return primitives.open(
                "work",
                (file, options) ->
                        PriorityFanout.TYPE.openOrCreate(
                                file, new PriorityFanout.Settings<>(8, FixedCodec.INT64), options));
    }
}

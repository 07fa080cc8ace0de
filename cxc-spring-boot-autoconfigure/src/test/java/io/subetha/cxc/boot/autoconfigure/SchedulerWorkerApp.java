package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.LongJobHandler;
import io.subetha.cxc.process.Pids;
import io.subetha.cxc.scheduling.Job;
import io.subetha.cxc.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A Boot application as a scheduler user writes it: {@code cxc.schedulers.jobs.*} in its properties
 * and one {@link JobHandler} bean. A job's result is the PID of the process that ran it; a negative
 * job hangs on its first attempt, after writing this PID to {@code --hang-file}. Run by {@link
 * SchedulerProcessTest} as a child JVM.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class SchedulerWorkerApp {

    public static void main(String[] args) {
        SpringApplication.run(SchedulerWorkerApp.class, args);
        System.out.println("started " + Pids.current());
        System.out.flush();
    }

    /**
     * Starts this app as a child JVM over {@code directory}, quiet, without a web server, its
     * settings {@code more} ({@code --cxc.schedulers.jobs.workers=1}, ...) after those.
     */
    static ChildJvm start(String name, Path hangFile, Path directory, String... more) {
        List<String> args = new ArrayList<>();
        args.add("--hang-file=" + hangFile);
        args.add("--cxc.directory=" + directory);
        args.addAll(List.of(more));
        args.add("--spring.main.banner-mode=off");
        args.add("--spring.main.web-application-type=none");
        args.add("--logging.level.root=WARN");
        return ChildJvm.start(name, SchedulerWorkerApp.class, args.toArray(String[]::new));
    }

    @Bean
    JobHandler<Long, Long> jobsHandler(Environment environment) {
        Path hangFile = Path.of(environment.getRequiredProperty("hang-file"));
        return new LongJobHandler("jobs") {
            @Override
            public Long handle(Job<Long> job) throws IOException {
                if (job.payload() < 0 && job.attempt() == 1) {
                    HangFile.hangHere(hangFile);
                }
                return Pids.current();
            }
        };
    }
}

package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.process.Pids;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A Boot application as a fan-out user writes it: {@code cxc.fanouts.work.*} in its properties and
 * one {@link FanoutHandler} bean. Each handled item is appended as a line to {@code
 * --handled-dir}/{@code <pid>}; item -1 hangs the first time any process takes it, after writing
 * this PID to {@code --hang-file}; item -2 throws on every attempt. Each attempt at a negative item
 * is appended as "{@code item attempt}" to {@code --attempts-dir}/{@code <pid>}, each dead-lettered
 * one as "{@code dead item attempt}". Run by {@link FanoutProcessTest} as a child JVM.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class FanoutWorkerApp {

    public static void main(String[] args) {
        SpringApplication.run(FanoutWorkerApp.class, args);
        System.out.println("started " + Pids.current());
        System.out.flush();
    }

    @Bean
    FanoutHandler<Long> workHandler(Environment environment) {
        Path hangFile = Path.of(environment.getRequiredProperty("hang-file"));
        Path handled =
                Path.of(environment.getRequiredProperty("handled-dir"))
                        .resolve(Long.toString(Pids.current()));
        Path attempts =
                Path.of(environment.getRequiredProperty("attempts-dir"))
                        .resolve(Long.toString(Pids.current()));
        return new WorkHandler() {
            @Override
            public void handle(FanoutItem<Long> item) throws IOException {
                if (item.item() < 0) {
                    append(attempts, item.item() + " " + item.attempt());
                }
                if (item.item() == -1 && !Files.exists(hangFile)) {
                    HangFile.hangHere(hangFile);
                }
                if (item.item() == -2) {
                    throw new IllegalStateException("item -2 fails on every attempt");
                }
                synchronized (this) {
                    Files.writeString(
                            handled,
                            item.item() + "\n",
                            StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                }
            }

            @Override
            public void onDeadLetter(FanoutItem<Long> item, Exception last) {
                try {
                    append(attempts, "dead " + item.item() + " " + item.attempt());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    private static synchronized void append(Path file, String line) throws IOException {
        Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}

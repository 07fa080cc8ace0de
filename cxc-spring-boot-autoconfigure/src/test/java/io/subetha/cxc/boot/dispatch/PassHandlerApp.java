package io.subetha.cxc.boot.dispatch;

import io.subetha.cxc.boot.annotation.PassId;
import io.subetha.cxc.dispatch.PassHandler;
import io.subetha.cxc.process.Pids;
import java.nio.ByteBuffer;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A copy of a service with one {@code @PassId(7)} handler in the declared registry {@code calls}:
 * the answer is the PID of the copy that ran it. Run three times by {@link
 * PassFailoverProcessTest}.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class PassHandlerApp {

    public static void main(String[] args) {
        SpringApplication.run(PassHandlerApp.class, args);
        System.out.println("started " + Pids.current());
        System.out.flush();
    }

    @Bean
    @PassId(7)
    PassHandler whoAnswers() {
        long pid = Pids.current();
        return args -> ByteBuffer.allocate(8).putLong(pid).array();
    }
}

import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.boot.JobHandler;
import io.subetha.cxc.boot.annotation.CxcEventListener;
import io.subetha.cxc.boot.annotation.PassId;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.dispatch.PassHandler;
import io.subetha.cxc.scheduling.Job;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The idle copy of idle-cpu.sh with primitives declared: the starter with a scheduler and its worker
 * pool ({@code cxc.schedulers.jobs.*}), a fan-out handler ({@code cxc.fanouts.items.*}), an
 * event-log listener ({@code cxc.event-logs.events.*}) and a pass handler ({@code
 * cxc.pass-registries.passes.*}), none of them given any work, run as a single source file on the sample app's libraries. No
 * component scan: this file has no package.
 */
@EnableAutoConfiguration
@Configuration(proxyBeanMethods = false)
public class IdleCxcApp {

    public static void main(String[] args) {
        SpringApplication.run(IdleCxcApp.class, args);
    }

    @Bean
    public JobHandler<Long, Long> idleJobs() {
        return new JobHandler<>() {
            @Override
            public String scheduler() {
                return "jobs";
            }

            @Override
            public FixedCodec<Long> jobCodec() {
                return FixedCodec.INT64;
            }

            @Override
            public FixedCodec<Long> resultCodec() {
                return FixedCodec.INT64;
            }

            @Override
            public Long handle(Job<Long> job) {
                return 0L;
            }
        };
    }

    @Bean
    public FanoutHandler<Long> idleItems() {
        return new FanoutHandler<>() {
            @Override
            public String fanout() {
                return "items";
            }

            @Override
            public FixedCodec<Long> codec() {
                return FixedCodec.INT64;
            }

            @Override
            public void handle(FanoutItem<Long> item) {}
        };
    }

    @Bean
    public IdleListener idleListener() {
        return new IdleListener();
    }

    /** Reads the event log {@code events} on a thread of its own, asleep until an event comes. */
    public static class IdleListener {
        @CxcEventListener(log = "events", id = "idle")
        public void on(long event) {}
    }

    @Bean
    @PassId(1)
    public PassHandler idlePass() {
        return args -> args;
    }
}

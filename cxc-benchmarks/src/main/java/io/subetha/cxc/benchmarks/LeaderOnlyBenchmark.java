package io.subetha.cxc.benchmarks;

import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.election.SharedLeaderElection;
import io.subetha.cxc.process.Pids;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * A {@link LeaderOnly} method through its Spring proxy against the same method on the proxy's
 * target, called directly. The context is a real Spring Boot application (auto-configuration from
 * the classpath, so the starter's {@code AutoConfiguration.imports} and Boot's AOP auto-proxying),
 * with its election file in a fresh {@code /dev/shm} directory.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 3,
        jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class LeaderOnlyBenchmark {

    /** The bean: a trivial method whose cost is the call itself. */
    public static class Job {
        private final Long result = 42L;

        @LeaderOnly
        public Long run() {
            return result;
        }
    }

    /** Marks the reference method: advised by an interceptor that only proceeds. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    public @interface PassThrough {}

    /** The same trivial method under a pass-through advice: what Spring AOP itself costs. */
    public static class Reference {
        private final Long result = 42L;

        @PassThrough
        public Long run() {
            return result;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class Application {
        @Bean
        public Job job() {
            return new Job();
        }

        @Bean
        public Reference reference() {
            return new Reference();
        }

        /**
         * Infrastructure, as the @LeaderOnly advisor is: without AspectJ on the classpath Boot's
         * auto-proxy creator applies infrastructure advisors only.
         */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        public static DefaultPointcutAdvisor passThroughAdvisor() {
            MethodInterceptor proceed = MethodInvocation::proceed;
            return new DefaultPointcutAdvisor(
                    AnnotationMatchingPointcut.forMethodAnnotation(PassThrough.class), proceed);
        }
    }

    /** The application; the ticker's first tick (at start) claims the empty election. */
    abstract static class Running {
        ScratchDirectory directory;
        ConfigurableApplicationContext context;
        SharedLeaderElection election;
        Job proxy;
        Job target;
        Reference reference;

        void start() throws Exception {
            directory = ScratchDirectory.create();
            context =
                    new SpringApplicationBuilder(Application.class)
                            .web(WebApplicationType.NONE)
                            .bannerMode(Banner.Mode.OFF)
                            .logStartupInfo(false)
                            // One tick at start claims the empty election; then nothing ticks.
                            .properties(
                                    "cxc.directory=" + directory.resolve("cxc"),
                                    "cxc.leader.tick-interval=1h")
                            .run();
            election = context.getBean(SharedLeaderElection.class);
            proxy = context.getBean(Job.class);
            if (!AopUtils.isAopProxy(proxy)) {
                throw new IllegalStateException("the @LeaderOnly bean was not proxied: " + proxy);
            }
            target = (Job) ((Advised) proxy).getTargetSource().getTarget();
            reference = context.getBean(Reference.class);
            if (!AopUtils.isAopProxy(reference)) {
                throw new IllegalStateException("the reference bean was not proxied");
            }
            awaitLeadership(Pids.current());
            if (proxy.run() == null) {
                throw new IllegalStateException("the leader's @LeaderOnly call was skipped");
            }
        }

        /** Bounded poll: the ticker claims on start, normally before {@code run()} returns. */
        void awaitLeadership(long pid) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!election.isLeader(pid)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(
                            "PID " + pid + " did not lead within 10 s: " + election);
                }
                Thread.sleep(10);
            }
        }

        void stop() {
            context.close();
            directory.close();
        }
    }

    /** The application, leading. */
    @State(Scope.Benchmark)
    public static class Leading extends Running {
        @Setup(Level.Trial)
        public void startLeading() throws Exception {
            start();
        }

        @TearDown(Level.Trial)
        public void close() {
            stop();
        }
    }

    /**
     * The same application as a follower: PID 1, alive and lower than ours, has taken over (as it
     * would in production); with a 1 h tick nothing claims it back, so every call is skipped.
     */
    @State(Scope.Benchmark)
    public static class Following extends Running {
        @Setup(Level.Trial)
        public void startFollowing() throws Exception {
            start();
            if (!election.tryClaimLeadership(SharedLeaderElectionBenchmark.LIVE_LOWER_PID)) {
                throw new IllegalStateException("PID 1 could not take over: " + election);
            }
            awaitLeadership(SharedLeaderElectionBenchmark.LIVE_LOWER_PID);
            if (proxy.run() != null) {
                throw new IllegalStateException("a follower's @LeaderOnly call ran");
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            stop();
        }
    }

    /** The method on the proxy's target: no advice. */
    @Benchmark
    public Long direct(Leading state) {
        return state.target.run();
    }

    /**
     * Through the proxy, leading: the advice's check passes, the term is bound, the method runs.
     */
    @Benchmark
    public Long proxiedAsLeader(Leading state) {
        return state.proxy.run();
    }

    /** The same call under an advice that only proceeds: Spring AOP's share of the overhead. */
    @Benchmark
    public Long proxiedPassThrough(Leading state) {
        return state.reference.run();
    }

    /** Through the proxy, following: the check fails and the call is skipped (returns null). */
    @Benchmark
    public Long proxiedAsFollower(Following state) {
        return state.proxy.run();
    }
}

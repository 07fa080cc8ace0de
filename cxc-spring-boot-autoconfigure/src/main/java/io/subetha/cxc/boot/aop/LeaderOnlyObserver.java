package io.subetha.cxc.boot.aop;

import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * Sees every {@link io.subetha.cxc.boot.annotation.LeaderOnly} call: the starter's metrics count
 * them as {@code cxc.leader.only{class,method,outcome}} and, when {@code cxc.leader.observations}
 * is on, wrap each call that runs in an Observation. A bean of this type is picked up by the
 * advisor on the first call.
 */
public interface LeaderOnlyObserver {

    /** What became of one call. */
    enum Outcome {
        /** This process led: the method ran (whether it then returned or threw). */
        RAN,
        /** This process did not lead: the call was skipped (or refused, in THROW mode). */
        SKIPPED,
        /**
         * This process led but is shutting down: new calls are refused while the running ones
         * finish before it steps down (see {@code cxc.leader.shutdown-timeout}).
         */
        REFUSED;

        /** The tag value: {@code ran}, {@code skipped}, {@code refused}. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One method's view, made once, when it is first called on a bean of {@code type}. */
    Site site(Class<?> type, Method method);

    /** The meters of one {@code @LeaderOnly} method of one bean class. */
    interface Site {

        /** Counts one call; called on the calling thread, allocation-free. */
        void count(Outcome outcome);

        /** Runs the method's body (already counted as run) under {@code term}. */
        default @Nullable Object run(MethodInvocation invocation, long term) throws Throwable {
            return invocation.proceed();
        }
    }
}

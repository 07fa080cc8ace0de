package io.subetha.cxc.boot;

import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.annotation.OnNotLeader;
import io.subetha.cxc.ownership.SharedLeaderElection;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The {@link LeaderOnly} advice. The leadership check reads the election's leader word once ({@link
 * SharedLeaderElection#termIfLeader}), so the term bound in {@link LeaderContext} is exactly the
 * term the check passed under. Neither path allocates once a method has been seen.
 */
final class LeaderOnlyInterceptor implements MethodInterceptor {

    /** Marks a {@link OnNotLeader#THROW} method in {@link #skipResults}. */
    private static final Object THROW = new Object();

    /** Marks a skipped method that returns null (void, or a reference type). */
    private static final Object NULL = new Object();

    private final Supplier<@Nullable SharedLeaderElection> electionSupplier;
    private final long pid;
    private final ConcurrentHashMap<Method, Object> skipResults = new ConcurrentHashMap<>();

    // Racy lazy initialisation is benign: every thread resolves the same singleton, whose fields
    // are final and so safely published.
    private @Nullable SharedLeaderElection election;

    /** The supplier found no election: remembered so a skip does not look it up every call. */
    private volatile boolean noElection;

    LeaderOnlyInterceptor(Supplier<@Nullable SharedLeaderElection> election, long pid) {
        this.electionSupplier = election;
        this.pid = pid;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        SharedLeaderElection e = election;
        if (e == null && !noElection) {
            // No election bean (cxc.leader.enabled=false): this process never leads, so the
            // method never runs here rather than running everywhere.
            e = electionSupplier.get();
            if (e == null) {
                noElection = true;
            } else {
                election = e;
            }
        }
        long term = e == null ? -1 : e.termIfLeader(pid);
        if (term >= 0) {
            LeaderContext.Binding slot = LeaderContext.slot();
            long outer = slot.term; // a @LeaderOnly method may call another
            SharedLeaderElection outerElection = slot.election;
            slot.term = term;
            slot.election = e;
            slot.pid = pid;
            try {
                return invocation.proceed();
            } finally {
                slot.term = outer;
                slot.election = outerElection;
            }
        }
        Method method = invocation.getMethod();
        Object result = skipResults.get(method);
        if (result == null) {
            Object target = invocation.getThis();
            result =
                    skipResults.computeIfAbsent(
                            method,
                            m ->
                                    skipResultOf(
                                            target == null
                                                    ? m
                                                    : AopUtils.getMostSpecificMethod(
                                                            m, target.getClass())));
        }
        if (result == THROW) {
            throw new NotLeaderException(
                    method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()",
                    pid,
                    e == null ? SharedLeaderElection.NO_LEADER : e.currentLeader().orElse(0));
        }
        return result == NULL ? null : result;
    }

    private static Object skipResultOf(Method method) {
        // The annotation may sit on the implementation while the proxy reports the interface's
        // method: look at the most specific method, as the pointcut did.
        LeaderOnly leaderOnly =
                AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
        if (leaderOnly != null && leaderOnly.onNotLeader() == OnNotLeader.THROW) {
            return THROW;
        }
        Class<?> type = method.getReturnType();
        if (type == Optional.class) {
            return Optional.empty();
        } else if (type == OptionalInt.class) {
            return OptionalInt.empty();
        } else if (type == OptionalLong.class) {
            return OptionalLong.empty();
        } else if (type == OptionalDouble.class) {
            return OptionalDouble.empty();
        }
        return NULL;
    }
}

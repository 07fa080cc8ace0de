package io.subetha.cxc.boot.aop;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import java.lang.reflect.Method;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Applies {@link LeaderOnly} to every bean method that carries it. A plain Spring AOP advisor (a
 * pointcut and a {@code MethodInterceptor}), not an AspectJ aspect: the advice stays one volatile
 * read, a compare and a thread-local slot, with no join-point object per call.
 *
 * <p>Methods with a primitive return type other than {@code void} are rejected while their bean is
 * proxied at startup: a skipped call would have nothing to return.
 */
public final class LeaderOnlyAdvisor extends AbstractPointcutAdvisor {

    private final Pointcut pointcut = new LeaderOnlyPointcut();
    private final LeaderOnlyInterceptor interceptor;

    /**
     * @param leadership resolved on the first call, so that creating the advisor (early, with the
     *     proxy infrastructure) does not create the election; null when this process takes no part
     *     in the election, and so never leads
     */
    public LeaderOnlyAdvisor(Supplier<@Nullable CxcLeadership> leadership, long pid) {
        this(leadership, () -> null, pid);
    }

    /**
     * @param observer resolved on each method's first call: counts (and may observe) the calls;
     *     null for none
     */
    public LeaderOnlyAdvisor(
            Supplier<@Nullable CxcLeadership> leadership,
            Supplier<@Nullable LeaderOnlyObserver> observer,
            long pid) {
        this.interceptor = new LeaderOnlyInterceptor(leadership, observer, pid);
    }

    /**
     * Refuses new {@code @LeaderOnly} calls from now on (they are skipped, or refused in THROW
     * mode, and counted as refused) and waits up to {@code timeout} for the running ones: what
     * graceful shutdown does before this process steps down, so that a successor's first run never
     * overlaps this process's last.
     *
     * @return how many calls were still running when it gave up; 0 if all finished
     */
    int drain(java.time.Duration timeout) {
        return interceptor.drain(timeout);
    }

    /** Lets {@code @LeaderOnly} calls run again after a {@link #drain}. */
    void reopen() {
        interceptor.reopen();
    }

    /**
     * Interrupts the running {@code @LeaderOnly(interruptOnLoss = true)} calls whose term this
     * process no longer leads under. The starter's ticker calls it after every election round.
     *
     * @return how many calls were interrupted now
     */
    public int interruptCallsThatLostLeadership() {
        return interceptor.interruptCallsThatLost();
    }

    /** {@code @LeaderOnly} calls running now (a nested call counts with its outer one). */
    int inFlight() {
        return interceptor.inFlight();
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    private static final class LeaderOnlyPointcut extends StaticMethodMatcherPointcut {

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
            if (!AnnotatedElementUtils.hasAnnotation(specific, LeaderOnly.class)
                    && !AnnotatedElementUtils.hasAnnotation(method, LeaderOnly.class)) {
                return false;
            }
            Class<?> returnType = method.getReturnType();
            if (returnType.isPrimitive() && returnType != void.class) {
                throw new IllegalStateException(
                        "@LeaderOnly method "
                                + targetClass.getName()
                                + "."
                                + method.getName()
                                + "() returns "
                                + returnType.getName()
                                + ": when this process does not lead the call is skipped and"
                                + " there is no "
                                + returnType.getName()
                                + " to return. Return void, a wrapper ("
                                + wrapperName(returnType)
                                + ", null when skipped) or an Optional (empty when skipped)"
                                + " instead.");
            }
            return true;
        }

        private static String wrapperName(Class<?> primitive) {
            return org.springframework.util.ClassUtils.resolvePrimitiveIfNecessary(primitive)
                    .getSimpleName();
        }
    }
}

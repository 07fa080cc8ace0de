package io.subetha.cxc.boot.aop;

import io.subetha.cxc.boot.CxcLeadership;
import io.subetha.cxc.boot.LeaderContext;
import io.subetha.cxc.boot.NotLeaderException;
import io.subetha.cxc.boot.annotation.LeaderOnly;
import io.subetha.cxc.boot.annotation.OnNotLeader;
import io.subetha.cxc.boot.aop.LeaderOnlyObserver.Outcome;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * The {@link LeaderOnly} advice. The leadership check is one call of {@link
 * CxcLeadership#termIfLeader()} (the host election's leader word, PID and term together, or the
 * global tier's term when a backend across hosts is on), so the term bound in {@link LeaderContext}
 * is exactly the term the check passed under. Neither path allocates once a method has been seen.
 *
 * <p>Calls that run are counted in flight, so that graceful shutdown can {@linkplain #drain drain}
 * them: new calls are refused, the running ones finish while the ticker still beats, and only then
 * does this process step down. A {@code @LeaderOnly} method called from inside a running one is
 * part of that call, and is never refused.
 */
final class LeaderOnlyInterceptor implements MethodInterceptor {

    /** {@link CxcLeadership#termIfLeader()} when this process does not lead. */
    private static final long NO_TERM = -1;

    /** Marks a skipped method that returns null (void, or a reference type). */
    private static final Object NULL = new Object();

    /** Counts nothing: no observer bean. */
    private static final LeaderOnlyObserver.Site UNOBSERVED = outcome -> {};

    private final Supplier<@Nullable CxcLeadership> leadershipSupplier;
    private final Supplier<@Nullable LeaderOnlyObserver> observerSupplier;
    private final long pid;

    /** Per bean class, per method: made once, then looked up without allocating. */
    private final ConcurrentHashMap<Class<?>, ConcurrentHashMap<Method, Site>> sites =
            new ConcurrentHashMap<>();

    /** Calls running now (outermost ones only). */
    private final AtomicInteger inFlight = new AtomicInteger();

    /**
     * Running calls of {@code interruptOnLoss} methods, watched by {@link #interruptCallsThatLost}.
     */
    private final Set<Watched> watched = ConcurrentHashMap.newKeySet();

    /** Set by {@link #drain}: new calls are refused. */
    private volatile boolean draining;

    // Racy lazy initialisation is benign: every thread resolves the same singleton, whose fields
    // are final and so safely published.
    private @Nullable CxcLeadership leadership;

    /** The supplier found no leadership: remembered so a skip does not look it up every call. */
    private volatile boolean noLeadership;

    LeaderOnlyInterceptor(
            Supplier<@Nullable CxcLeadership> leadership,
            Supplier<@Nullable LeaderOnlyObserver> observer,
            long pid) {
        this.leadershipSupplier = leadership;
        this.observerSupplier = observer;
        this.pid = pid;
    }

    /** One method of one bean class: what a skip returns, and its meters. */
    private record Site(
            @Nullable Object skipResult,
            boolean throwWhenSkipped,
            boolean interruptOnLoss,
            LeaderOnlyObserver.Site meters) {}

    /**
     * One running call that asked to be interrupted on loss. The interrupt and the call's end are
     * ordered by this object's lock, so an interrupt never lands after the call returned.
     */
    private static final class Watched {
        private final Thread thread = Thread.currentThread();
        private final long term;
        private final CxcLeadership leadership;
        private boolean done;
        private boolean interrupted;

        Watched(long term, CxcLeadership leadership) {
            this.term = term;
            this.leadership = leadership;
        }

        synchronized boolean interruptIfLost() {
            if (done || interrupted || leadership.termIfLeader() == term) {
                return false;
            }
            interrupted = true;
            thread.interrupt();
            return true;
        }

        synchronized void finish() {
            done = true;
            if (interrupted) {
                Thread.interrupted(); // ours, and the call is over: not the thread's next task's
            }
        }
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Site site = site(invocation);
        CxcLeadership l = leadership;
        if (l == null && !noLeadership) {
            // No leadership bean (the application excluded ours): this process never leads, so
            // the method never runs here rather than running everywhere.
            l = leadershipSupplier.get();
            if (l == null) {
                noLeadership = true;
            } else {
                leadership = l;
            }
        }
        long term = l == null ? NO_TERM : l.termIfLeader();
        if (term != NO_TERM) {
            LeaderContext.Binding slot = LeaderContext.binding();
            long outer = slot.term(); // a @LeaderOnly method may call another: the same call
            @Nullable CxcLeadership outerLeadership = slot.leadership();
            boolean outermost = outer == LeaderContext.NO_TERM;
            if (outermost) {
                // Count first, then look: drain() sets the flag, then waits for zero, so either it
                // sees this call or this call sees the flag.
                inFlight.incrementAndGet();
                if (draining) {
                    exit();
                    site.meters().count(Outcome.REFUSED);
                    return notRun(site, invocation, l);
                }
            }
            slot.bind(term, l); // the leadership for LeaderContext.stillLeads()
            Watched watch = null;
            if (site.interruptOnLoss()) {
                watch = new Watched(term, l);
                watched.add(watch);
            }
            try {
                site.meters().count(Outcome.RAN);
                return site.meters().run(invocation, term);
            } finally {
                if (watch != null) {
                    watched.remove(watch);
                    watch.finish();
                }
                slot.bind(outer, outerLeadership);
                if (outermost) {
                    exit();
                }
            }
        }
        site.meters().count(Outcome.SKIPPED);
        return notRun(site, invocation, l);
    }

    private @Nullable Object notRun(
            Site site, MethodInvocation invocation, @Nullable CxcLeadership l) {
        if (site.throwWhenSkipped()) {
            Method method = invocation.getMethod();
            throw new NotLeaderException(
                    method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()",
                    pid,
                    l == null || draining ? 0 : l.currentLeader().orElse(0));
        }
        Object result = site.skipResult();
        return result == NULL ? null : result;
    }

    private void exit() {
        if (inFlight.decrementAndGet() == 0 && draining) {
            synchronized (inFlight) {
                inFlight.notifyAll();
            }
        }
    }

    /**
     * Refuses new calls from now on and waits up to {@code timeout} for the running ones.
     *
     * @return the calls still running when it gave up, 0 if all finished
     */
    int drain(Duration timeout) {
        draining = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (inFlight) {
            int running;
            while ((running = inFlight.get()) > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return running;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(inFlight, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return inFlight.get();
                }
            }
        }
        return 0;
    }

    /**
     * Interrupts every running {@code interruptOnLoss} call whose term this process no longer leads
     * under; run by the ticker after each election round. Nothing to do, no work: one empty-set
     * check.
     *
     * @return the calls interrupted now
     */
    int interruptCallsThatLost() {
        if (watched.isEmpty()) {
            return 0;
        }
        int interrupted = 0;
        for (Watched call : watched) {
            if (call.interruptIfLost()) {
                interrupted++;
            }
        }
        return interrupted;
    }

    /** Lets calls run again (the context started again after a stop). */
    void reopen() {
        draining = false;
    }

    int inFlight() {
        return inFlight.get();
    }

    private Site site(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Class<?> type =
                target == null ? invocation.getMethod().getDeclaringClass() : target.getClass();
        Method method = invocation.getMethod();
        ConcurrentHashMap<Method, Site> byMethod = sites.get(type);
        if (byMethod == null) {
            byMethod = sites.computeIfAbsent(type, t -> new ConcurrentHashMap<>());
        }
        Site site = byMethod.get(method);
        if (site == null) {
            site = byMethod.computeIfAbsent(method, m -> makeSite(type, m));
        }
        return site;
    }

    private Site makeSite(Class<?> type, Method method) {
        // The annotation may sit on the implementation while the proxy reports the interface's
        // method: look at the most specific method, as the pointcut did.
        Method specific = AopUtils.getMostSpecificMethod(method, type);
        LeaderOnly leaderOnly =
                AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
        boolean throwing = leaderOnly != null && leaderOnly.onNotLeader() == OnNotLeader.THROW;
        boolean interrupting = leaderOnly != null && leaderOnly.interruptOnLoss();
        LeaderOnlyObserver observer = observerSupplier.get();
        LeaderOnlyObserver.Site meters =
                observer == null
                        ? UNOBSERVED
                        : observer.site(ClassUtils.getUserClass(type), specific);
        return new Site(skipResultOf(specific), throwing, interrupting, meters);
    }

    private static Object skipResultOf(Method method) {
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

package io.subetha.cxc.boot.dispatch;

import io.subetha.cxc.boot.annotation.PassId;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.dispatch.PassHandler;
import io.subetha.cxc.dispatch.PassRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Registers every {@link PassHandler} bean annotated with {@link PassId} in its pass registry when
 * the context starts, and unregisters them (newest first) when it stops, before the registries
 * close. A handler bean without {@code @PassId} is left to the application's own code.
 *
 * <p><b>Copies stand by.</b> Every copy of a service registers the same handlers. Each is
 * registered under a handler key made from its bean's name and class and the pass id, the same in
 * every copy: the first copy owns the id, the others stand by (logged at INFO) and try again on
 * every tick of the leader ticker, so one of them takes the id over within a tick of the owner
 * unregistering (graceful shutdown) or dying. A call that was waiting at a dead owner is sent again
 * to the new owner when its handler had not started; otherwise it fails with a {@code
 * PassOwnerDiedException} saying whether it may be retried. A different handler bean on the same id
 * is a {@code PassOwnedException} at startup, which {@code PassOwnedFailureAnalyzer} explains.
 * Standbys need the ticker ({@code cxc.leader.enabled}, the default); without it a standby stays
 * one.
 */
public final class PassHandlers implements SmartLifecycle, TickTask {

    private static final Log logger = LogFactory.getLog(PassHandlers.class);

    private final ListableBeanFactory beans;
    private final Deque<Registered> registered = new ArrayDeque<>();
    private final List<Standby> standbys = new ArrayList<>();
    private volatile boolean running;

    private record Registered(PassRegistry registry, long passId) {}

    private record Standby(
            PassRegistry registry, long passId, PassHandler handler, long key, String name) {}

    public PassHandlers(ListableBeanFactory beans) {
        this.beans = beans;
    }

    @Override
    public synchronized void start() {
        for (String name : beans.getBeanNamesForType(PassHandler.class)) {
            PassId id = beans.findAnnotationOnBean(name, PassId.class);
            if (id == null) {
                continue;
            }
            PassRegistry registry = registryFor(name, id);
            PassHandler handler = beans.getBean(name, PassHandler.class);
            long key = handlerKey(name, declaredAs(name, handler), id.value());
            Standby candidate = new Standby(registry, id.value(), handler, key, name);
            if (registry.registerOrStandBy(id.value(), handler, key)) {
                registered.push(new Registered(registry, id.value()));
            } else {
                standbys.add(candidate);
                logger.info(
                        "cxc: pass "
                                + id.value()
                                + " ('"
                                + name
                                + "') of "
                                + registry.file()
                                + " is served by another copy; this one stands by and takes it"
                                + " over when that copy stops or dies");
            }
        }
        running = true;
    }

    /**
     * What the handler bean is declared as, the same in every JVM: its {@code @Bean} method, or its
     * class; never a lambda's class name, which the JVM makes up anew in each process.
     */
    private String declaredAs(String name, PassHandler handler) {
        if (beans instanceof ConfigurableListableBeanFactory factory
                && factory.containsBeanDefinition(name)) {
            BeanDefinition definition = factory.getBeanDefinition(name);
            if (definition.getFactoryMethodName() != null) {
                return definition.getFactoryBeanName() + "." + definition.getFactoryMethodName();
            }
            if (definition.getBeanClassName() != null) {
                return definition.getBeanClassName();
            }
        }
        String type = handler.getClass().getName();
        int lambda = type.indexOf("$$Lambda");
        return lambda < 0 ? type : type.substring(0, lambda);
    }

    /** Each standby tries to take its pass over: at once once the owner is gone. */
    @Override
    public synchronized void onTick() {
        if (!running || standbys.isEmpty()) {
            return;
        }
        for (Iterator<Standby> it = standbys.iterator(); it.hasNext(); ) {
            Standby s = it.next();
            if (s.registry().isClosed()) {
                it.remove();
                continue;
            }
            if (s.registry().registerOrStandBy(s.passId(), s.handler(), s.key())) {
                it.remove();
                registered.push(new Registered(s.registry(), s.passId()));
                logger.info(
                        "cxc: this copy took pass "
                                + s.passId()
                                + " ('"
                                + s.name()
                                + "') of "
                                + s.registry().file()
                                + " over");
            }
        }
    }

    /** The pass ids this copy stands by for, not serving them now. */
    public synchronized List<Long> standingBy() {
        List<Long> ids = new ArrayList<>();
        for (Standby s : standbys) {
            ids.add(s.passId());
        }
        return ids;
    }

    /**
     * The same in every copy of a service, and another for another handler: FNV-1a over the bean
     * name, its class and the pass id; never 0 (which means "not said").
     */
    static long handlerKey(String beanName, String className, long passId) {
        long hash = 0xcbf29ce484222325L;
        for (byte b :
                (beanName + "#" + className + "#" + passId).getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash == 0 ? 1 : hash;
    }

    private PassRegistry registryFor(String handler, PassId id) {
        Map<String, PassRegistry> registries = beans.getBeansOfType(PassRegistry.class);
        if (!id.registry().isEmpty()) {
            PassRegistry named = registries.get(id.registry());
            if (named == null) {
                throw new IllegalStateException(
                        "pass handler '"
                                + handler
                                + "' names registry '"
                                + id.registry()
                                + "', but the declared pass registries are "
                                + registries.keySet()
                                + ": declare it with cxc.pass-registries."
                                + id.registry()
                                + ".max-passes=64");
            }
            return named;
        }
        if (registries.size() != 1) {
            throw new IllegalStateException(
                    "pass handler '"
                            + handler
                            + "' (@PassId "
                            + id.value()
                            + ") names no registry, and "
                            + (registries.isEmpty()
                                    ? "none is declared: declare one, e.g."
                                            + " cxc.pass-registries.calls.max-passes=64"
                                    : registries.size()
                                            + " are declared "
                                            + registries.keySet()
                                            + ": name one with @PassId(registry = ...)"));
        }
        return registries.values().iterator().next();
    }

    @Override
    public synchronized void stop() {
        standbys.clear();
        while (!registered.isEmpty()) {
            Registered r = registered.pop();
            if (!r.registry().isClosed()) {
                r.registry().unregister(r.passId());
            }
        }
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}

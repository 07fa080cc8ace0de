package io.subetha.cxc.boot.dispatch;

import io.subetha.cxc.boot.annotation.PassId;
import io.subetha.cxc.dispatch.PassHandler;
import io.subetha.cxc.dispatch.PassRegistry;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Registers every {@link PassHandler} bean annotated with {@link PassId} in its pass registry when
 * the context starts, and unregisters them (newest first) when it stops, before the registries
 * close. A handler bean without {@code @PassId} is left to the application's own code.
 */
public final class PassHandlers implements SmartLifecycle {

    private final ListableBeanFactory beans;
    private final Deque<Registered> registered = new ArrayDeque<>();
    private volatile boolean running;

    private record Registered(PassRegistry registry, long passId) {}

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
            registry.register(id.value(), beans.getBean(name, PassHandler.class));
            registered.push(new Registered(registry, id.value()));
        }
        running = true;
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

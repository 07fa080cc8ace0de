package io.subetha.cxc.boot.eventlog;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.annotation.CxcEventListener;
import io.subetha.cxc.eventlog.NamedReadersDescriptor;
import io.subetha.cxc.eventlog.ReaderNameTakenException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds every {@link CxcEventListener} method once the singletons exist, checks it against its
 * declared log (a log that is not declared, a parameter the log's events are not, a reader name too
 * long: each refused at startup, naming the method), and runs each on a thread of its own from the
 * context's start to its stop; no thread outlives the stop. See {@link EventLogListener}.
 */
public final class EventLogListeners implements SmartInitializingSingleton, SmartLifecycle {

    /** How long a listener's event in hand may take to finish when the context stops. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final ConfigurableListableBeanFactory beans;
    private final ObjectProvider<DeclaredEventLogs> logs;
    private final ObjectProvider<EventListenerObserver> observer;
    private final String copyName;
    private final String copyNameOrigin;
    private final List<EventLogListener<?>> listeners = new ArrayList<>();
    private volatile boolean running;

    /**
     * @param copyName this copy's name: its listeners read as {@code <copyName>/<id>}
     * @param copyNameOrigin where it comes from, for messages: "cxc.listeners.copy-name" or how the
     *     default was made
     */
    public EventLogListeners(
            ConfigurableListableBeanFactory beans,
            ObjectProvider<DeclaredEventLogs> logs,
            ObjectProvider<EventListenerObserver> observer,
            String copyName,
            String copyNameOrigin) {
        this.beans = beans;
        this.logs = logs;
        this.observer = observer;
        this.copyName = copyName;
        this.copyNameOrigin = copyNameOrigin;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (String name : beans.getBeanNamesForType(Object.class, false, false)) {
            Class<?> type = beans.getType(name, false);
            if (type == null || !AnnotationUtils.isCandidateClass(type, CxcEventListener.class)) {
                continue;
            }
            Map<Method, CxcEventListener> annotated =
                    MethodIntrospector.selectMethods(
                            ClassUtils.getUserClass(type),
                            (MethodIntrospector.MetadataLookup<CxcEventListener>)
                                    method ->
                                            AnnotatedElementUtils.findMergedAnnotation(
                                                    method, CxcEventListener.class));
            annotated.forEach(
                    (method, listener) -> listeners.add(listener(name, method, listener)));
        }
        Map<String, EventLogListener<?>> byReader = new HashMap<>();
        for (EventLogListener<?> listener : listeners) {
            EventLogListener<?> other =
                    byReader.putIfAbsent(listener.log() + " " + listener.readerName(), listener);
            if (other != null) {
                throw new IllegalStateException(
                        other.describe()
                                + " and "
                                + listener.describe()
                                + " both read event log '"
                                + listener.log()
                                + "' as reader '"
                                + listener.readerName()
                                + "': give each its own id (@CxcEventListener(id = ...))");
            }
        }
    }

    private EventLogListener<?> listener(String beanName, Method method, CxcEventListener spec) {
        String where =
                "@CxcEventListener(log = \""
                        + spec.log()
                        + "\") "
                        + method.getDeclaringClass().getName()
                        + "."
                        + method.getName();
        DeclaredEventLog<?, ?> log;
        try {
            log = DeclaredEventPublisher.require(logs.getIfAvailable(), spec.log(), "listen to it");
        } catch (IllegalArgumentException e) {
            throw new BeanCreationException(beanName, where + ": " + e.getMessage());
        }
        Class<?>[] parameters = method.getParameterTypes();
        boolean sequence =
                parameters.length == 2
                        && ClassUtils.resolvePrimitiveIfNecessary(parameters[1]) == Long.class;
        if (parameters.length < 1
                || (parameters.length == 2 && !sequence)
                || parameters.length > 2) {
            throw new BeanCreationException(
                    beanName,
                    where
                            + " takes "
                            + List.of(parameters).stream().map(Class::getSimpleName).toList()
                            + ": a listener takes the event ("
                            + log.codecs().eventType().getSimpleName()
                            + ") and, optionally, its long sequence");
        }
        if (!log.accepts(parameters[0])) {
            throw new BeanCreationException(
                    beanName,
                    where
                            + " takes "
                            + parameters[0].getName()
                            + ", but event log '"
                            + log.name()
                            + "' holds "
                            + log.codecs().eventType().getName()
                            + " events ("
                            + log.source()
                            + "): take "
                            + log.codecs().eventType().getSimpleName()
                            + ", or give the log an EventLogCodecs bean of your event type");
        }
        String id = spec.id().isEmpty() ? beanName + "." + method.getName() : spec.id();
        String readerName = copyName + "/" + id;
        int bytes = readerName.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > NamedReadersDescriptor.MAX_NAME_BYTES) {
            throw new BeanCreationException(
                    beanName,
                    where
                            + ": its reader name '"
                            + readerName
                            + "' is "
                            + bytes
                            + " bytes, more than "
                            + NamedReadersDescriptor.MAX_NAME_BYTES
                            + "; give it a shorter id (@CxcEventListener(id = ...)) or a shorter"
                            + " cxc.listeners.copy-name");
        }
        Object bean = beans.getBean(beanName);
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        ReflectionUtils.makeAccessible(invocable);
        return listener(log, id, readerName, bean, invocable);
    }

    private <E> EventLogListener<E> listener(
            DeclaredEventLog<E, ?> log, String id, String readerName, Object bean, Method method) {
        return new EventLogListener<>(
                log,
                id,
                readerName,
                bean,
                method,
                observer.getIfAvailable(() -> EventListenerObserver.NONE));
    }

    @Override
    public synchronized void start() {
        for (EventLogListener<?> listener : listeners) {
            try {
                listener.start();
            } catch (ReaderNameTakenException taken) {
                stop(); // the listeners started before this one
                throw new InvalidCxcPropertyException(
                        "cxc.listeners.copy-name",
                        copyName,
                        "a live process (PID "
                                + taken.holderPid()
                                + (taken.holderPid() == ProcessHandle.current().pid()
                                        ? ", this one"
                                        : "")
                                + ") reads event log '"
                                + listener.log()
                                + "' as reader '"
                                + listener.readerName()
                                + "': each copy of the service needs a copy name of its own ("
                                + copyNameOrigin
                                + ")",
                        "Set cxc.listeners.copy-name to a name unique to this copy and the same"
                                + " when it restarts, e.g. --cxc.listeners.copy-name=orders-2.");
            }
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        running = false;
        InterruptedException interrupted = null;
        for (EventLogListener<?> listener : listeners) {
            try {
                listener.stop(STOP_TIMEOUT);
            } catch (InterruptedException e) {
                interrupted = e;
            }
        }
        if (interrupted != null) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The listeners found, by reader name: what the tests and the gauge see. */
    public Set<String> readerNames() {
        return Set.copyOf(listeners.stream().map(EventLogListener::readerName).toList());
    }

    /** Whether any listener's thread still runs. */
    public boolean anyThreadAlive() {
        return listeners.stream().anyMatch(EventLogListener::isAlive);
    }
}

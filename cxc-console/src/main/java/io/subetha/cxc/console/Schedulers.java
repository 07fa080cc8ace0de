package io.subetha.cxc.console;

import io.subetha.cxc.observe.ObservedPrimitive;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.scheduling.BackgroundScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The schedulers this application has open, found by name for the views and the actions. */
public final class Schedulers {

    private final PrimitiveRegistry registry;

    public Schedulers(PrimitiveRegistry registry) {
        this.registry = registry;
    }

    public List<BackgroundScheduler<?, ?>> all() {
        List<BackgroundScheduler<?, ?>> schedulers = new ArrayList<>();
        for (ObservedPrimitive primitive : registry.primitives()) {
            if (primitive instanceof BackgroundScheduler<?, ?> scheduler && !scheduler.isClosed()) {
                schedulers.add(scheduler);
            }
        }
        return schedulers;
    }

    /**
     * @throws ConsoleRequestException 404 naming the schedulers there are
     */
    public BackgroundScheduler<?, ?> require(String name) {
        List<BackgroundScheduler<?, ?>> all = all();
        return all.stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow(
                        () ->
                                ConsoleRequestException.notFound(
                                        "no scheduler named \""
                                                + name
                                                + "\"; the application has "
                                                + names(all)));
    }

    private static String names(List<BackgroundScheduler<?, ?>> schedulers) {
        return schedulers.isEmpty()
                ? "none"
                : schedulers.stream()
                        .map(s -> "\"" + s.name() + "\"")
                        .collect(Collectors.joining(", "));
    }
}

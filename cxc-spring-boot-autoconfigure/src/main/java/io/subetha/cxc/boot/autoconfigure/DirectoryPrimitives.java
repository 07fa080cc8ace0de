package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.observe.PrimitiveRegistry;
import io.subetha.cxc.primitive.MappedPrimitive;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.factory.DisposableBean;

/**
 * The starter's {@link CxcPrimitives}: files in {@code cxc.directory} (with {@code
 * cxc.enabled=false}, in a private directory: see {@link CxcFileLocation}), registered in this
 * context's {@link PrimitiveRegistry}, closed in reverse order of opening when the context closes
 * (after the beans that use them, which Spring destroys first since they depend on this one).
 */
final class DirectoryPrimitives implements CxcPrimitives, DisposableBean {

    static final String SUFFIX = ".cxc";

    private final CxcFileLocation location;
    private final PrimitiveRegistry registry;
    private final Map<String, MappedPrimitive> byName = new LinkedHashMap<>();
    private boolean closed;

    DirectoryPrimitives(CxcFileLocation location, PrimitiveRegistry registry) {
        this.location = location;
        this.registry = registry;
    }

    @Override
    public synchronized <P extends MappedPrimitive> P open(String name, Opener<P> opener) {
        Objects.requireNonNull(opener, "opener");
        if (closed) {
            throw new IllegalStateException(
                    "cannot open '" + name + "': the application context is closing");
        }
        requirePlainName(name);
        MappedPrimitive open = byName.get(name);
        if (open != null && !open.isClosed()) {
            throw new IllegalStateException(
                    "'"
                            + name
                            + "' is already open in this context ("
                            + open
                            + "); inject the bean that opened it instead of opening it again");
        }
        Path file = location.file(name + SUFFIX);
        P primitive = opener.open(file, location.options());
        if (primitive == null) {
            throw new IllegalStateException("the opener of '" + name + "' returned null");
        }
        if (!primitive.file().toAbsolutePath().normalize().equals(file)) {
            primitive.close();
            throw new IllegalStateException(
                    "the opener of '"
                            + name
                            + "' opened "
                            + primitive.file()
                            + " instead of the file it was given, "
                            + file);
        }
        byName.put(name, primitive);
        return registry.register(primitive);
    }

    @Override
    public synchronized List<MappedPrimitive> opened() {
        List<MappedPrimitive> open = new ArrayList<>();
        for (MappedPrimitive primitive : byName.values()) {
            if (!primitive.isClosed()) {
                open.add(primitive);
            }
        }
        return List.copyOf(open);
    }

    @Override
    public Path directory() {
        return location.directory();
    }

    @Override
    public synchronized void destroy() {
        closed = true;
        List<MappedPrimitive> reverse = new ArrayList<>(byName.values());
        Collections.reverse(reverse);
        for (MappedPrimitive primitive : reverse) {
            primitive.close();
            registry.unregister(primitive);
        }
        byName.clear();
    }

    private static void requirePlainName(String name) {
        Objects.requireNonNull(name, "name");
        if (!CxcDirectory.isPlainFileName(name)) {
            throw new IllegalArgumentException(
                    "'"
                            + name
                            + "' is not a plain file name: letters, digits, '.', '_' or '-', not"
                            + " starting with '.'. Open it under a plain name such as 'orders'.");
        }
    }
}

package io.subetha.cxc.boot.ticker;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * A bean a {@link TickTask} needs, looked up when a tick first finds it and kept from then on: a
 * bean factory lookup (candidate matching, generics) costs an idle process more than the rest of
 * its tick, twenty times a second. Until the bean exists (made after the ticker, say) every tick
 * looks again.
 */
public final class TickLookup<T> implements Supplier<@Nullable T> {

    private final ObjectProvider<T> provider;
    private volatile @Nullable T found;

    public TickLookup(ObjectProvider<T> provider) {
        this.provider = provider;
    }

    /** The bean, or null while there is none. */
    @Override
    public @Nullable T get() {
        T bean = found;
        if (bean == null) {
            bean = provider.getIfAvailable();
            found = bean;
        }
        return bean;
    }
}

package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.boot.FanoutCodec;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Refuses, once every bean exists, a {@link FanoutCodec} (or handler) bean naming a fan-out that no
 * {@code cxc.fanouts.<name>.*} declares: its items would never be handled, and nothing else says
 * so.
 */
public final class FanoutNames implements SmartInitializingSingleton {

    private final ListableBeanFactory beans;

    public FanoutNames(ListableBeanFactory beans) {
        this.beans = beans;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<String> declared = new TreeSet<>();
        beans.getBeansOfType(FanoutWorkers.class)
                .values()
                .forEach(w -> declared.addAll(w.declared()));
        beans.getBeansOfType(FanoutCodec.class)
                .forEach(
                        (bean, codec) -> {
                            String name = codec.fanout();
                            if (declared.contains(name)) {
                                return;
                            }
                            String what =
                                    beans.containsBean(name)
                                            ? "; '"
                                                    + name
                                                    + "' is a bean of type "
                                                    + beans.getType(name).getSimpleName()
                                                    + ", not a declared fan-out"
                                            : "";
                            throw new InvalidCxcPropertyException(
                                    "cxc.fanouts." + name,
                                    name,
                                    "bean '"
                                            + bean
                                            + "' names fan-out '"
                                            + name
                                            + "', which no cxc.fanouts."
                                            + name
                                            + ".* property declares"
                                            + what
                                            + (declared.isEmpty()
                                                    ? ""
                                                    : " (declared: " + declared + ")"),
                                    "Declare it, e.g. cxc.fanouts."
                                            + name
                                            + ".capacity=1024, or name a declared fan-out in"
                                            + " the bean's fanout().");
                        });
    }
}

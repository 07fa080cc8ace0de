package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.CxcFormatException;
import io.subetha.cxc.CxcSettingsException;
import io.subetha.cxc.boot.FanoutCodec;
import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.boot.ticker.TickTask;
import io.subetha.cxc.fanout.PriorityFanout;
import io.subetha.cxc.fanout.PriorityFanoutDescriptor;
import io.subetha.cxc.mmf.CxcFileOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The starter's side of the fan-outs declared by {@code cxc.fanouts.<name>.*}: as a lifecycle bean
 * it runs, per fan-out with a {@link FanoutHandler} bean, a pool of {@code workers} threads (claim
 * → handle → acknowledge, see {@link FanoutPool}); on every tick it beats each running pool's
 * participant record, so a handler may run longer than the fan-out's grace.
 *
 * <p><b>Shutdown</b>: the pools stop claiming, running handlers get {@code shutdown-timeout} to
 * finish and acknowledge; threads still running then are interrupted, and the fan-out bean's close
 * (right after, as the context closes) returns their items to their levels, so another instance
 * takes them at once; a late acknowledgement is refused.
 */
public final class FanoutWorkers implements TickTask, SmartLifecycle {

    private static final Log logger = LogFactory.getLog(FanoutWorkers.class);

    /** A declared fan-out's file: {@code <name>.fanout}. */
    public static final String SUFFIX = ".fanout";

    private final List<FanoutPool<?>> pools = new ArrayList<>();
    private final Set<String> declared;
    private volatile boolean running;
    private volatile boolean stopping;

    /**
     * @param fanouts the declared fan-outs, by bean name
     * @param poolSettings each one's worker pool in this process, by bean name
     * @param retries each one's retry policy, by bean name
     * @param codecs every {@link FanoutCodec} bean (handlers among them)
     */
    public FanoutWorkers(
            Map<String, PriorityFanout<?>> fanouts,
            Map<String, WorkerPoolSettings> poolSettings,
            Map<String, FanoutRetry> retries,
            List<FanoutCodec<?>> codecs) {
        this.declared = Set.copyOf(fanouts.keySet());
        fanouts.forEach(
                (name, fanout) -> {
                    WorkerPoolSettings pool = poolSettings.get(name);
                    FanoutCodec<?> given = codecFor(name, codecs);
                    if (given instanceof FanoutHandler<?> handler && pool.workers() > 0) {
                        pools.add(FanoutPool.of(name, fanout, handler, pool, retries.get(name)));
                    } else if (pool.workers() > 0) {
                        logger.info(
                                "cxc fan-out "
                                        + name
                                        + ": no FanoutHandler bean names it, so this process"
                                        + " handles none of its items (it may submit)");
                    }
                });
    }

    private static final CodecBeans<FanoutCodec<?>> CODECS =
            new CodecBeans<>(
                    "fan-out",
                    "cxc.fanouts",
                    "FanoutHandler",
                    "FanoutCodec",
                    "the item codec",
                    "handle its items here",
                    "only submit, a bean FanoutCodec.of(\"%s\", codec)",
                    FanoutCodec::fanout);

    /** The one codec bean naming {@code fanout}; throws naming the property otherwise. */
    static FanoutCodec<?> codecFor(String fanout, List<FanoutCodec<?>> all) {
        return CODECS.theOneNaming(fanout, all);
    }

    /** Opens a declared fan-out's file with the codec its handler (or codec bean) gives. */
    public static PriorityFanout<?> open(
            Path file,
            PriorityFanout.Settings<?> declared,
            CxcFileOptions options,
            List<FanoutCodec<?>> codecs) {
        String fileName = file.getFileName().toString();
        String name = fileName.substring(0, fileName.length() - SUFFIX.length());
        return open(name, file, declared, options, codecFor(name, codecs));
    }

    private static <T> PriorityFanout<T> open(
            String name,
            Path file,
            PriorityFanout.Settings<?> declared,
            CxcFileOptions options,
            FanoutCodec<T> codec) {
        PriorityFanout.Settings<T> settings;
        try {
            settings =
                    new PriorityFanout.Settings<>(
                            declared.capacityPerPriority(), codec.codec(), declared.grace());
        } catch (CxcSettingsException e) {
            throw new InvalidCxcPropertyException(
                    "cxc.fanouts." + name,
                    name,
                    "the " + e.setting() + " of bean " + codec + " is refused: " + e.getMessage(),
                    "Give a codec of at most "
                            + PriorityFanoutDescriptor.MAX_PAYLOAD
                            + " bytes, or a smaller cxc.fanouts."
                            + name
                            + ".capacity.");
        }
        try {
            @SuppressWarnings("unchecked") // the type makes what the settings' codec types
            PriorityFanout<T> opened =
                    (PriorityFanout<T>) PriorityFanout.TYPE.openOrCreate(file, settings, options);
            return opened;
        } catch (CxcFormatException e) {
            // Most often a handler of another item type than the copies that made the file.
            throw new InvalidCxcPropertyException(
                    "cxc.fanouts." + name,
                    name,
                    "its file does not open with the codec of bean "
                            + codec
                            + " ("
                            + codec.codec().describe()
                            + "): "
                            + e.getMessage(),
                    "Give the item codec the processes sharing "
                            + file
                            + " give, or stop every one of them and remove the file.");
        }
    }

    @Override
    public void onTick() {
        for (FanoutPool<?> pool : pools) {
            pool.heartbeat(); // long handlers: this process is alive while it ticks
        }
    }

    @Override
    public synchronized void start() {
        pools.forEach(FanoutPool::start);
        running = true;
    }

    @Override
    public synchronized void stop() {
        stopping = true;
        pools.forEach(FanoutPool::stopTaking);
        pools.forEach(FanoutPool::awaitStopped);
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Whether {@link #stop} has begun: the pools claim no more. */
    public boolean isStopping() {
        return stopping;
    }

    /** The declared fan-outs' names, with a pool here or not. */
    public Set<String> declared() {
        return declared;
    }

    /** The pools' counts, by fan-out name: workers, handled, returned, dead-lettered, refused. */
    public Map<String, Map<String, Long>> counts() {
        Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
        for (FanoutPool<?> pool : pools) {
            counts.put(pool.name(), pool.counts());
        }
        return counts;
    }

    @Override
    public String toString() {
        return "FanoutWorkers" + counts().keySet();
    }
}

package io.subetha.cxc.sample;

import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The orders of the fan-out {@code orders} (declared by {@code cxc.fanouts.orders.*}, the file
 * {@code <cxc.directory>/orders.fanout}): {@code POST /orders?count=9&priority=5} submits orders
 * 1..9 at a priority (0..7, the highest handled first), and every copy's worker pool ships them,
 * each order by one copy; {@code GET /orders} shows the orders this copy shipped.
 */
@RestController
public class OrderShipping implements FanoutHandler<Long> {

    private static final Logger logger = LoggerFactory.getLogger(OrderShipping.class);

    private final List<Long> shipped = new ArrayList<>();
    // The fan-out is opened with this bean's codec, so it comes later than this bean.
    private final ObjectProvider<PriorityFanout<Long>> orders;
    private final long shippingMillis;

    public OrderShipping(
            @Qualifier("orders") ObjectProvider<PriorityFanout<Long>> orders,
            @Value("${sample.orders.shipping-time:100ms}") Duration shippingTime) {
        this.orders = orders;
        this.shippingMillis = shippingTime.toMillis();
    }

    @Override
    public String fanout() {
        return "orders";
    }

    @Override
    public FixedCodec<Long> codec() {
        return FixedCodec.INT64;
    }

    @Override
    public void handle(FanoutItem<Long> order) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(
                shippingMillis); // the work: the other copies take the next ones
        synchronized (shipped) {
            shipped.add(order.item());
        }
        logger.info("shipped order {} (priority {})", order.item(), order.priority());
    }

    @PostMapping("/orders")
    String submit(@RequestParam int count, @RequestParam(defaultValue = "4") int priority) {
        PriorityFanout<Long> fanout = orders.getObject();
        for (long order = 1; order <= count; order++) {
            fanout.submit(priority, order);
        }
        return "submitted orders 1.." + count + " at priority " + priority + "\n";
    }

    @GetMapping("/orders")
    String status() {
        synchronized (shipped) {
            return "this instance (pid "
                    + ProcessHandle.current().pid()
                    + ") shipped "
                    + shipped.size()
                    + " orders: "
                    + shipped
                    + "\n";
        }
    }
}

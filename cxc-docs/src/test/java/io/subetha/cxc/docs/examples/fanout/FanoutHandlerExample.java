package io.subetha.cxc.docs.examples.fanout;

// docs:begin fanout-handler
import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
// docs:end fanout-handler
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

// docs:begin fanout-handler

@Component
class Orders implements FanoutHandler<Long> {
    public String fanout() { return "orders"; }                  // the declared name
    public FixedCodec<Long> codec() { return FixedCodec.INT64; }
    public void handle(FanoutItem<Long> order) throws Exception { // throws: returned, retried
        ship(order.item());                                      // order.priority(), .attempt()
    }
    public void onDeadLetter(FanoutItem<Long> order, Exception last) { park(order.item(), last); }
    private void ship(long orderId) {} // docs:hide
    private void park(long orderId, Exception last) {} // docs:hide
}

@Service // anywhere (this or another instance): submit at a priority, 0..7, the highest first
class Checkout {
    private final PriorityFanout<Long> orders;

    Checkout(@Qualifier("orders") PriorityFanout<Long> orders) {
        this.orders = orders;
    }

    void placed(long orderId) {
        orders.submit(7, orderId);
    }
}
// docs:end fanout-handler

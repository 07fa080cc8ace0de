package io.subetha.cxc.docs.examples;

import io.subetha.cxc.boot.CxcEventPublisher;
import io.subetha.cxc.boot.EventLogCodecs;
import io.subetha.cxc.boot.annotation.CxcEventListener;
import io.subetha.cxc.codec.FixedCodec;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** An event log declared by properties, a publisher and a listener in every copy. */
@RestController
class EventListenerExample {

    interface Projection {
        void apply(Order order, long sequence);
    }

    private final CxcEventPublisher events;
    private final Projection projection;

    EventListenerExample(CxcEventPublisher events, Projection projection) {
        this.events = events;
        this.projection = projection;
    }

    // docs:begin event-listener
    // cxc.event-logs.orders.capacity=4096
    public record Order(long id, int quantity) {}

    @Bean
    EventLogCodecs<Order, Long> ordersCodecs() {                  // events, state, fold
        return EventLogCodecs.of("orders", Order.class, FixedCodec.record(Order.class),
                FixedCodec.INT64, 0L, (total, order) -> total + order.quantity());
    }

    @PostMapping("/orders")
    void place(@RequestBody Order order) {
        events.publish("orders", order);                          // a CxcEventPublisher
    }

    @CxcEventListener(log = "orders")
    void onOrder(Order order, long sequence) {                    // every copy, every order, in order
        projection.apply(order, sequence);
    }
    // docs:end event-listener
}

package io.subetha.cxc.docs.examples.fanout;

import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.boot.FanoutItem;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.fanout.PriorityFanout;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

// docs:begin prioritised-jobs
@Component // cxc.fanouts.renders.workers=1
class Renders implements FanoutHandler<Long> {
    public String fanout() {
        return "renders";
    }

    public FixedCodec<Long> codec() {
        return FixedCodec.INT64;
    }

    public void handle(FanoutItem<Long> job) throws Exception {
        render(job.item());
    }
    private void render(long id) {} // docs:hide
}

@Service
class RenderQueue {
    static final int URGENT = 7, BATCH = 0; // levels 0..7: a higher one is taken first
    private final PriorityFanout<Long> renders;

    RenderQueue(@Qualifier("renders") PriorityFanout<Long> renders) {
        this.renders = renders;
    }

    void urgent(long id) {
        renders.submit(URGENT, id);
    }

    void batch(long id) {
        renders.submit(BATCH, id);
    }
}
// docs:end prioritised-jobs

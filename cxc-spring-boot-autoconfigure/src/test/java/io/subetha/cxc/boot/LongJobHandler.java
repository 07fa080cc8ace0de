package io.subetha.cxc.boot;

import io.subetha.cxc.codec.FixedCodec;

/**
 * The tests' job handler of {@code Long} jobs with {@code Long} results for one declared scheduler:
 * a test writes only what its handler does with a job.
 */
public abstract class LongJobHandler implements JobHandler<Long, Long> {

    private final String scheduler;

    protected LongJobHandler(String scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public final String scheduler() {
        return scheduler;
    }

    @Override
    public final FixedCodec<Long> jobCodec() {
        return FixedCodec.INT64;
    }

    @Override
    public final FixedCodec<Long> resultCodec() {
        return FixedCodec.INT64;
    }
}

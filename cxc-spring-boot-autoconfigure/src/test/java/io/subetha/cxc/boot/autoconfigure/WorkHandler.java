package io.subetha.cxc.boot.autoconfigure;

import io.subetha.cxc.boot.FanoutHandler;
import io.subetha.cxc.codec.FixedCodec;

/** A handler of the tests' fan-out {@code cxc.fanouts.work}, whose items are longs. */
abstract class WorkHandler implements FanoutHandler<Long> {

    @Override
    public String fanout() {
        return "work";
    }

    @Override
    public FixedCodec<Long> codec() {
        return FixedCodec.INT64;
    }
}

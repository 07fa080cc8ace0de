/** JMH benchmarks and HdrHistogram harnesses, each beside its anchor in the same run. */
@NullMarked
package io.subetha.cxc.benchmarks;

import org.jspecify.annotations.NullMarked;

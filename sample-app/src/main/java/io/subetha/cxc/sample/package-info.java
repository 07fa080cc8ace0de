/** The sample: a Boot service of which one copy per host does the bookkeeping. */
@NullMarked
package io.subetha.cxc.sample;

import org.jspecify.annotations.NullMarked;

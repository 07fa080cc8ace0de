/**
 * Graph and topology in a mapped file, shared by every process on the host: {@link
 * io.subetha.cxc.graph.SharedGraph} (codec-typed nodes and edges inline, links as body offsets) and
 * {@link io.subetha.cxc.graph.SharedTopologyMap} (observed traffic between nodes, with decay, and a
 * fan-in or fan-out recommendation from it).
 */
@NullMarked
package io.subetha.cxc.graph;

import org.jspecify.annotations.NullMarked;

package io.subetha.cxc.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.subetha.cxc.boot.CxcPrimitives;
import io.subetha.cxc.boot.actuate.endpoint.CxcEndpoint;
import io.subetha.cxc.codec.FixedCodec;
import io.subetha.cxc.collections.SharedLinkedList;
import io.subetha.cxc.collections.SharedVec;
import io.subetha.cxc.graph.SharedGraph;
import io.subetha.cxc.graph.SharedTopologyMap;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The collections, the graph and the topology map as an application opens them in the starter. */
class StructurePrimitivesTest {

    @TempDir Path temp;

    @Configuration(proxyBeanMethods = false)
    static class Structures {
        @Bean
        SharedVec<Long> orders(CxcPrimitives primitives) {
            return primitives.open(
                    "orders",
                    (file, options) ->
                            SharedVec.TYPE.openOrCreate(
                                    file, new SharedVec.Settings<>(64, FixedCodec.INT64), options));
        }

        @Bean
        SharedLinkedList<Long> work(CxcPrimitives primitives) {
            return primitives.open(
                    "work",
                    (file, options) ->
                            SharedLinkedList.TYPE.openOrCreate(
                                    file,
                                    new SharedLinkedList.Settings<>(64, FixedCodec.INT64),
                                    options));
        }

        @Bean
        SharedGraph<String, Long> routes(CxcPrimitives primitives) {
            return primitives.open(
                    "routes",
                    (file, options) ->
                            SharedGraph.TYPE.openOrCreate(
                                    file,
                                    new SharedGraph.Settings<>(
                                            8, 32, FixedCodec.string(16), FixedCodec.INT64),
                                    options));
        }

        @Bean
        SharedTopologyMap traffic(CxcPrimitives primitives) {
            return primitives.open(
                    "traffic",
                    (file, options) ->
                            SharedTopologyMap.TYPE.openOrCreate(
                                    file, new SharedTopologyMap.Settings(256), options));
        }
    }

    @Test
    void eachOpensByNameAndShowsItsKindStateAndOps() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(
                                CxcAutoConfiguration.class,
                                CxcEndpointAutoConfiguration.class,
                                CxcMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "cxc.directory=" + temp.resolve("cxc"),
                        "management.endpoints.web.exposure.include=cxc")
                .withUserConfiguration(Structures.class)
                .withBean(SimpleMeterRegistry.class)
                .run(
                        context -> {
                            assertThat(context).hasNotFailed();
                            @SuppressWarnings("unchecked")
                            SharedVec<Long> orders = context.getBean("orders", SharedVec.class);
                            orders.push(7L);
                            @SuppressWarnings("unchecked")
                            SharedGraph<String, Long> routes =
                                    context.getBean("routes", SharedGraph.class);
                            routes.addNode("a");
                            routes.addEdge(0, 0, 1L);
                            context.getBean(SharedTopologyMap.class).record(1, 2, 3);
                            assertThat(orders.file())
                                    .isEqualTo(temp.resolve("cxc").resolve("orders.cxc"));

                            MeterRegistry meters = context.getBean(MeterRegistry.class);
                            context.getBean("cxcMeterBinder", MeterBinder.class).bindTo(meters);
                            assertThat(
                                            meters.get("cxc.ops")
                                                    .tags(
                                                            "primitive",
                                                            "orders.cxc",
                                                            "kind",
                                                            "shared-vec",
                                                            "op",
                                                            "push")
                                                    .functionCounter()
                                                    .count())
                                    .isEqualTo(1);
                            assertThat(
                                            meters.get("cxc.ops")
                                                    .tags(
                                                            "primitive",
                                                            "routes.cxc",
                                                            "kind",
                                                            "shared-graph",
                                                            "op",
                                                            "add_edge")
                                                    .functionCounter()
                                                    .count())
                                    .isEqualTo(1);
                            var primitives = context.getBean(CxcEndpoint.class).cxc().primitives();
                            assertThat(primitives)
                                    .extracting(p -> p.kind())
                                    .contains(
                                            "shared-vec",
                                            "shared-linked-list",
                                            "shared-graph",
                                            "topology-map");
                            assertThat(primitives)
                                    .filteredOn(p -> p.name().equals("orders.cxc"))
                                    .singleElement()
                                    .satisfies(p -> assertThat(p.state()).containsEntry("len", 1L));
                        });
    }
}

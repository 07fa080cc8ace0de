package io.subetha.cxc.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.subetha.cxc.boot.autoconfigure.CxcAutoConfiguration;
import io.subetha.cxc.console.action.StepDown;
import io.subetha.cxc.console.autoconfigure.CxcConsoleAutoConfiguration;
import io.subetha.cxc.console.web.ConsoleActions;
import io.subetha.cxc.console.web.ConsoleApi;
import io.subetha.cxc.console.web.ConsolePage;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * When the console is there: in a servlet web application running cxc, read-only unless actions are
 * on; never with cxc.console.enabled=false or outside a web application; a path that is no path is
 * refused at startup, naming the property.
 */
class ConsoleConditionsTest {

    @TempDir Path dir;

    private final AutoConfigurations configurations =
            AutoConfigurations.of(CxcAutoConfiguration.class, CxcConsoleAutoConfiguration.class);

    private WebApplicationContextRunner web() {
        return new WebApplicationContextRunner()
                .withConfiguration(configurations)
                .withPropertyValues("cxc.directory=" + dir.resolve("cxc"));
    }

    @Test
    void aWebApplicationGetsTheConsoleReadOnly() {
        web().run(
                        context -> {
                            assertThat(context).hasSingleBean(ConsolePage.class);
                            assertThat(context).hasSingleBean(ConsoleApi.class);
                            assertThat(context).hasSingleBean(LeadershipHistory.class);
                            assertThat(context).doesNotHaveBean(ConsoleActions.class);
                            assertThat(context).doesNotHaveBean(StepDown.class);
                        });
    }

    @Test
    void actionsOnAddTheActionsEndpointAndStepDown() {
        web().withPropertyValues("cxc.console.actions=true")
                .run(
                        context -> {
                            assertThat(context).hasSingleBean(ConsoleActions.class);
                            assertThat(context).hasSingleBean(StepDown.class);
                            assertThat(context.getBean(ConsoleOverview.class).read().actions())
                                    .containsExactly(
                                            "step-down",
                                            "rerun-job",
                                            "delete-job",
                                            "pause-scheduler",
                                            "resume-scheduler");
                        });
    }

    @Test
    void switchedOffOrOutsideAWebApplicationThereIsNoConsole() {
        web().withPropertyValues("cxc.console.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ConsoleApi.class));
        new ApplicationContextRunner()
                .withConfiguration(configurations)
                .withPropertyValues("cxc.directory=" + dir.resolve("cxc"))
                .run(context -> assertThat(context).doesNotHaveBean(ConsoleApi.class));
    }

    @Test
    void aPathThatIsNoPathIsRefusedNamingTheProperty() {
        for (String path : new String[] {"cxc", "/cxc/", "/", "/c c"}) {
            web().withPropertyValues("cxc.console.path=" + path)
                    .run(
                            context ->
                                    assertThat(context)
                                            .getFailure()
                                            .rootCause()
                                            .hasMessageContaining("cxc.console.path"));
        }
    }
}

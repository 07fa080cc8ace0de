package io.subetha.cxc.console.autoconfigure;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import io.subetha.cxc.console.ConsoleOverview;
import io.subetha.cxc.console.ConsoleProperties;
import io.subetha.cxc.console.EventBoard;
import io.subetha.cxc.console.JobBoard;
import io.subetha.cxc.console.LeaseTables;
import io.subetha.cxc.console.ScheduleBoard;
import io.subetha.cxc.console.action.ConsoleAction;
import io.subetha.cxc.console.web.ConsoleActions;
import io.subetha.cxc.console.web.ConsoleApi;
import io.subetha.cxc.console.web.ConsoleErrors;
import io.subetha.cxc.console.web.ConsolePage;
import java.util.regex.Pattern;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The console's controllers, in whichever context serves it: the application's, or the management
 * child context when a separate management port is set.
 */
@Configuration(proxyBeanMethods = false)
class ConsoleWeb {

    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

    @Bean
    ConsolePage cxcConsolePage(ConsoleProperties properties) {
        String path = properties.getPath();
        if (!PATH.matcher(path).matches()) {
            throw new InvalidCxcPropertyException(
                    "cxc.console.path",
                    path,
                    "the console's path must start with '/', name at least one segment and not end"
                            + " with '/' (letters, digits, '.', '_', '~', '-')",
                    "Set cxc.console.path to a path such as /cxc or /ops/cxc.");
        }
        return new ConsolePage(path);
    }

    @Bean
    ConsoleApi cxcConsoleApi(
            ConsoleOverview overview,
            LeaseTables leases,
            JobBoard jobs,
            ScheduleBoard schedules,
            EventBoard events) {
        return new ConsoleApi(overview, leases, jobs, schedules, events);
    }

    @Bean
    ConsoleErrors cxcConsoleErrors() {
        return new ConsoleErrors();
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "cxc.console.actions")
    ConsoleActions cxcConsoleActions(ObjectProvider<ConsoleAction> actions) {
        return new ConsoleActions(actions.orderedStream().toList());
    }
}

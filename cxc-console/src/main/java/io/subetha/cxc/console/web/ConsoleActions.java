package io.subetha.cxc.console.web;

import io.subetha.cxc.console.ConsoleRequestException;
import io.subetha.cxc.console.action.ActionRequest;
import io.subetha.cxc.console.action.ConsoleAction;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST {path}/api/actions/{name}}: runs one {@link ConsoleAction} and logs who asked. Exists
 * only with {@code cxc.console.actions=true}. Besides Spring Security's CSRF check where it is
 * present, a POST must carry the {@value #MARK} header, which a page of another origin cannot add
 * without the browser asking first (CORS), so a forged form post is refused.
 */
@RestController
@RequestMapping("${cxc.console.path:/cxc}/api/actions")
public class ConsoleActions {

    /** The header the console's page sends with every action. */
    public static final String MARK = "X-CXC-Console";

    private static final Log logger = LogFactory.getLog(ConsoleActions.class);

    private final Map<String, ConsoleAction> actions = new LinkedHashMap<>();

    public ConsoleActions(List<ConsoleAction> actions) {
        for (ConsoleAction action : actions) {
            this.actions.put(action.name(), action);
        }
    }

    /** What was done, in a sentence. */
    public record Outcome(String action, String done) {}

    @PostMapping("/{name}")
    public Outcome perform(
            @PathVariable String name,
            @RequestParam Map<String, String> arguments,
            HttpServletRequest request) {
        if (request.getHeader(MARK) == null) {
            throw new ConsoleRequestException(
                    403, "an action must come from the console's page (header " + MARK + ")");
        }
        ConsoleAction action = actions.get(name);
        if (action == null) {
            throw ConsoleRequestException.notFound(
                    "no action named \""
                            + name
                            + "\"; offered: "
                            + actions.keySet().stream().collect(Collectors.joining(", ")));
        }
        String who = who(request);
        String done;
        try {
            done = action.perform(new ActionRequest(arguments, who));
        } catch (ConsoleRequestException refused) {
            logger.info(
                    "cxc console: "
                            + who
                            + " asked "
                            + name
                            + ", refused: "
                            + refused.getMessage());
            throw refused;
        }
        logger.info("cxc console: " + who + " did " + name + ": " + done);
        return new Outcome(name, done);
    }

    private static String who(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        return (principal == null ? "anonymous" : principal.getName())
                + " from "
                + request.getRemoteAddr();
    }
}

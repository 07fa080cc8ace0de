package io.subetha.cxc.console.action;

/**
 * Something an operator may do from the console when {@code cxc.console.actions=true}: one bean per
 * action, found by its {@link #name()}, answered at {@code POST {path}/api/actions/{name}}. A new
 * action is one class implementing this and one bean.
 */
public interface ConsoleAction {

    /** The action's name in its URL and in the page: lower-case words joined by '-'. */
    String name();

    /**
     * Does it, or throws {@link io.subetha.cxc.console.ConsoleRequestException} (400 for a bad
     * argument, 404 for an unknown target, 409 when it cannot be done now) having changed nothing.
     *
     * @return what was done, in a sentence for the operator and the log
     */
    String perform(ActionRequest request);
}

package io.subetha.cxc.boot.scheduling;

import io.subetha.cxc.boot.InvalidCxcPropertyException;
import java.util.List;
import java.util.function.Function;

/**
 * Finds the one codec bean (a handler, or codecs alone) naming a declared primitive whose file is
 * typed by the application's codecs: a scheduler's, a fan-out's. Refuses none or several, naming
 * the declaration's property and the fix.
 *
 * @param kind the primitive as the message names it: "scheduler"
 * @param property the declarations' property prefix: "cxc.schedulers"
 * @param handler the handler bean type: "JobHandler"
 * @param codecsAlone the codecs-only bean type: "SchedulerCodecs"
 * @param needs what the file needs from the bean: "the job and result codecs"
 * @param handlerDoes what the handler bean does here: "run its jobs here"
 * @param codecsAloneUse what a codecs-only process does, and how: "only submit and collect, a bean
 *     SchedulerCodecs.of(\"%s\", jobCodec, resultCodec)" (%s: the name)
 */
record CodecBeans<C>(
        String kind,
        String property,
        String handler,
        String codecsAlone,
        String needs,
        String handlerDoes,
        String codecsAloneUse,
        Function<C, String> nameOf) {

    /** The one bean among {@code all} naming {@code name}; throws naming the property otherwise. */
    C theOneNaming(String name, List<? extends C> all) {
        List<? extends C> named = all.stream().filter(c -> name.equals(nameOf.apply(c))).toList();
        String declared = property + "." + name;
        if (named.isEmpty()) {
            throw new InvalidCxcPropertyException(
                    declared,
                    name,
                    "no "
                            + handler
                            + " or "
                            + codecsAlone
                            + " bean names "
                            + kind
                            + " '"
                            + name
                            + "', and its file needs "
                            + needs
                            + (all.isEmpty()
                                    ? ""
                                    : " (the beans there name "
                                            + all.stream().map(nameOf).toList()
                                            + ")"),
                    "Declare a "
                            + handler
                            + " bean whose "
                            + kind.replace("-", "")
                            + "() is \""
                            + name
                            + "\" to "
                            + handlerDoes
                            + ", or, to "
                            + codecsAloneUse.formatted(name)
                            + "; or remove "
                            + declared
                            + ".*.");
        }
        if (named.size() > 1) {
            throw new InvalidCxcPropertyException(
                    declared,
                    name,
                    named.size() + " beans name " + kind + " '" + name + "': " + named,
                    "Keep one " + handler + " (or " + codecsAlone + ") bean per " + kind + ".");
        }
        return named.get(0);
    }
}

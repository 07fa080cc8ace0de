package io.subetha.cxc.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** The {@code --grace-epochs} check shared by {@code inspect} and {@code watch}. */
final class GraceEpochs {

    private GraceEpochs() {}

    static void check(CommandSpec spec, long graceEpochs) {
        if (graceEpochs < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--grace-epochs must be 0 or more, got " + graceEpochs);
        }
    }
}

package io.subetha.cxc.cli;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code cxc}: the operator's view of cxc files. See {@link InspectCommand}, {@link WatchCommand}
 * and {@link VerifyCommand}; every command maps files read-only and changes nothing.
 */
@Command(
        name = "cxc",
        mixinStandardHelpOptions = true,
        versionProvider = Cxc.Version.class,
        description = {
            "Inspects, watches and verifies cxc files without starting the application that owns"
                    + " them.",
            "Read-only, always: maps every file read-only, never writes, registers or creates"
                    + " anything; works on another user's files when their mode allows reading."
        },
        subcommands = {
            InspectCommand.class,
            WatchCommand.class,
            VerifyCommand.class,
            CommandLine.HelpCommand.class
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every file looked at is sound",
            "1:a file has a problem (inspect, verify: one line per problem)",
            "2:usage error: unknown command or option, bad value, PATH does not exist",
            "3:cxc itself failed (a bug: please report it with the stack trace)"
        })
public final class Cxc implements Callable<Integer> {

    /** Every file looked at is sound. */
    public static final int SOUND = 0;

    /** At least one file has a problem. */
    public static final int PROBLEMS = 1;

    /** The command line is wrong, or PATH names nothing. */
    public static final int USAGE = 2;

    /** An unexpected failure of the tool itself. */
    public static final int FAILED = 3;

    private final boolean terminal;

    @Spec CommandSpec spec;

    /**
     * @param terminal whether stdout is a terminal: {@code watch} clears the screen only then
     */
    public Cxc(boolean terminal) {
        this.terminal = terminal;
    }

    public static void main(String[] args) {
        // System.console() is non-null only when stdin and stdout are both a terminal.
        // Straight to the file descriptor, not through System.out, which swallows write errors:
        // watch must see that its output was closed (the terminal went, `| head` had enough).
        PrintWriter out =
                new PrintWriter(
                        new BufferedWriter(
                                new OutputStreamWriter(
                                        new FileOutputStream(FileDescriptor.out),
                                        Charset.defaultCharset())),
                        true);
        CommandLine commandLine = commandLine(new Cxc(System.console() != null)).setOut(out);
        int exitCode = commandLine.execute(args);
        out.flush();
        System.exit(exitCode);
    }

    /**
     * The command line for {@code cxc}, its output going where {@code setOut}/{@code setErr} say.
     */
    public static CommandLine commandLine(Cxc cxc) {
        CommandLine commandLine = new CommandLine(cxc);
        commandLine.setParameterExceptionHandler(
                (e, args) -> {
                    CommandLine failed = e.getCommandLine();
                    PrintWriter err = failed.getErr();
                    err.println(failed.getCommandSpec().qualifiedName() + ": " + e.getMessage());
                    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
                    err.println(
                            "Try '"
                                    + failed.getCommandSpec().qualifiedName()
                                    + " --help' for more information.");
                    err.flush();
                    return USAGE;
                });
        commandLine.setExecutionExceptionHandler(
                (e, failed, parsed) -> {
                    PrintWriter err = failed.getErr();
                    err.println("cxc: internal error: " + e);
                    e.printStackTrace(err);
                    err.flush();
                    return FAILED;
                });
        return commandLine;
    }

    /**
     * Creates the command line with its output and errors written to {@code out} and {@code err}.
     */
    public static CommandLine commandLine(Cxc cxc, PrintWriter out, PrintWriter err) {
        return commandLine(cxc).setOut(out).setErr(err);
    }

    boolean isTerminal() {
        return terminal;
    }

    /** {@code cxc} alone: shows the commands, and is a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().getErr().println("cxc: a command is needed");
        spec.commandLine().usage(spec.commandLine().getErr());
        return USAGE;
    }

    /** {@code path}, or a usage error (exit 2) naming it if nothing is there. */
    static Path existing(CommandSpec spec, Path path) {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "no such file or directory: " + path);
        }
        return path;
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Cxc.class.getPackage().getImplementationVersion();
            return new String[] {
                "cxc (SubEtha CXC) " + (version == null ? "development" : version)
            };
        }
    }
}

package io.subetha.cxc.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code cxc inspect PATH}: each file's header and state, as a table or JSON. */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        versionProvider = Cxc.Version.class,
        description = {
            "Shows each cxc file's kind, layout version, creator PID, size and state: leader, term,"
                    + " epoch, heartbeat lag and whether the leader's process is alive; slots with"
                    + " PIDs, lag and status; participants; work assignments; and so on.",
            "PATH is a file, or a directory whose files are all looked at (subdirectories too;"
                    + " a creator's temporary .NAME.creating-* files are skipped; a file that is"
                    + " not a cxc file is shown as a problem)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every file is sound",
            "1:a file could not be opened (shown with the message open gives)",
            "2:usage error, or PATH does not exist",
            "3:cxc itself failed"
        })
final class InspectCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(paramLabel = "PATH", description = "a cxc file, or a directory of them")
    Path path;

    @Option(
            names = "--json",
            description =
                    "print one JSON object (field names are stable; see the README) instead of"
                            + " the table")
    boolean json;

    @Option(
            names = "--grace-epochs",
            paramLabel = "N",
            defaultValue = "3",
            description =
                    "epochs a heartbeat may lag before its slot counts as STALE (default: ${DEFAULT-VALUE},"
                            + " the starter's cxc.heartbeat.grace-epochs)")
    long graceEpochs;

    @Override
    public Integer call() throws Exception {
        Cxc.existing(spec, path);
        GraceEpochs.check(spec, graceEpochs);
        List<FileReport> reports = new FileInspector(graceEpochs).inspectAll(path);
        spec.commandLine()
                .getOut()
                .print(
                        json
                                ? JsonView.render(path, graceEpochs, reports)
                                : TableView.render(reports));
        spec.commandLine().getOut().flush();
        return reports.stream().allMatch(FileReport::isSound) ? Cxc.SOUND : Cxc.PROBLEMS;
    }
}

package io.subetha.cxc.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code cxc verify PATH}: opens every file as its kind would be opened, read-only, which checks
 * size, magic, initialised marker, layout version, header checksum, kind, every length and capacity
 * against the real file size, and the body; prints one line per problem.
 */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        versionProvider = Cxc.Version.class,
        description = {
            "Validates every cxc file without trusting it, as open does before it maps a file:"
                    + " size, magic, initialised marker, layout version, header checksum, kind,"
                    + " lengths and capacities against the real size, and the body.",
            "Prints one line per problem (the message open gives) and exits 1; if every file is"
                    + " sound, prints how many and exits 0. PATH is a file or a directory (as for"
                    + " inspect). Reads only: a damaged file is left exactly as it was."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every file is sound",
            "1:a file has a problem: one line per problem on stdout",
            "2:usage error, or PATH does not exist",
            "3:cxc itself failed"
        })
final class VerifyCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Parameters(paramLabel = "PATH", description = "a cxc file, or a directory of them")
    Path path;

    @Override
    public Integer call() throws Exception {
        Cxc.existing(spec, path);
        List<FileReport> reports =
                new FileInspector(io.subetha.cxc.liveness.HeartbeatTable.DEFAULT_GRACE_EPOCHS)
                        .inspectAll(path);
        PrintWriter out = spec.commandLine().getOut();
        long problems = 0;
        for (FileReport report : reports) {
            if (!report.isSound()) {
                problems++;
                out.println(report.problem().replace('\n', ' '));
            }
        }
        if (problems == 0) {
            out.println(
                    reports.isEmpty()
                            ? "no files in " + path
                            : reports.size()
                                    + (reports.size() == 1 ? " file" : " files")
                                    + " sound");
        }
        out.flush();
        return problems == 0 ? Cxc.SOUND : Cxc.PROBLEMS;
    }
}

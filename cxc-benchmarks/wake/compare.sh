#!/usr/bin/env bash
# The doorbell's figures before and after a change, in one run: each harness alternates between an
# earlier build's cxc-core (put ahead of the benchmarks jar on the class path, so its classes win)
# and this build's, ROUNDS times, with the load average beside every run.
#
#   mvn -B -q -pl cxc-benchmarks -am package -DskipTests
#   cp cxc-core/target/cxc-core-*-SNAPSHOT.jar /tmp/core-main.jar   # on the earlier commit
#   cxc-benchmarks/wake/compare.sh /tmp/core-main.jar cxc-benchmarks/target/benchmarks.jar [ROUNDS]
#
# Harnesses (override with HARNESSES="..."): EventLogLatency (stream and asleep rows),
# SchedulerWakeLatency, LockHandoffLatency.
set -euo pipefail
before=$(realpath "$1")
jar=$(realpath "$2")
rounds=${3:-2}
harnesses=${HARNESSES:-"EventLogLatency:20000 200000 5000|SchedulerWakeLatency:2000 2|LockHandoffLatency:1000"}
chronicle=(# ChronicleJvmArgs.OPTIONS: the writer JVM opens Chronicle Queue too
    --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED
    --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED
    --add-exports=java.base/sun.nio.ch=ALL-UNNAMED
    --add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED
    --add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
    --add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
    --add-opens=java.base/java.lang=ALL-UNNAMED
    --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
    --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    --add-opens=java.base/java.util=ALL-UNNAMED
)
IFS='|' read -ra list <<<"$harnesses"
for round in $(seq 1 "$rounds"); do
    for entry in "${list[@]}"; do
        name=${entry%%:*}
        args=${entry#*:}
        for build in before after; do
            cp=$jar
            [ "$build" = before ] && cp="$before:$jar"
            echo "== $name $args, $build (round $round), load $(cut -d' ' -f1-3 /proc/loadavg)"
            # shellcheck disable=SC2086
            java "${chronicle[@]}" -cp "$cp" "io.subetha.cxc.benchmarks.$name" $args
        done
    done
done

#!/usr/bin/env bash
# What an idle Boot app costs in CPU with the CXC starter, against one without CXC: utime + stime
# from /proc/<pid>/stat over SECONDS (after WARMUP seconds past start-up), both JVMs side by side
# so that both see the same load. "With" is the sample app (starter, election, @LeaderOnly job,
# the request log; its bookkeeping interval set to an hour so that nothing runs); "without" is
# IdleBootApp.java on the same libraries minus cxc-*.
#
#   mvn -B -q -pl sample-app -am package -DskipTests
#   cxc-benchmarks/idle/idle-cpu.sh sample-app/target/sample-app-*-SNAPSHOT.jar [SECONDS] [WARMUP]
set -euo pipefail
jar=$(realpath "$1")
seconds=${2:-60}
warmup=${3:-30}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
with=""
without=""
cleanup() {
    for pid in $with $without; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
(cd "$work" && unzip -q "$jar" 'BOOT-INF/lib/*')
classpath=$(ls "$work"/BOOT-INF/lib/*.jar | grep -v '/cxc-' | tr '\n' ':')

java -Xmx256m -jar "$jar" --server.port=0 --cxc.directory="$work/cxc" \
    --sample.bookkeeping.interval=1h >"$work/with.log" 2>&1 &
with=$!
java -Xmx256m -cp "$classpath" "$here/IdleBootApp.java" --server.port=0 >"$work/without.log" 2>&1 &
without=$!

for log in with without; do
    for _ in $(seq 1 300); do
        grep -q "Started " "$work/$log.log" && break
        sleep 1
    done
    grep -q "Started " "$work/$log.log" || { echo "$log did not start:"; tail -20 "$work/$log.log"; exit 1; }
done
sleep "$warmup"

ticks() { # utime + stime: fields 14 and 15, counted after the command's closing parenthesis
    local stat
    stat=$(cat "/proc/$1/stat")
    stat=${stat##*) }
    awk '{ print $12 + $13 }' <<<"$stat"
}
threads() { # "<tid> <name> <ticks>" per thread of the JVM with cxc: where its time goes
    local task stat
    for task in /proc/"$with"/task/*; do
        stat=$(cat "$task/stat" 2>/dev/null) || continue
        awk -v tid="${task##*/}" -v name="$(tr ' ' '_' <"$task/comm")" \
            '{ print tid, name, $12 + $13 }' <<<"${stat##*) }"
    done
}
hz=$(getconf CLK_TCK)
echo "load before: $(uptime)"
threads >"$work/threads0"
w0=$(ticks "$with"); o0=$(ticks "$without")
sleep "$seconds"
w1=$(ticks "$with"); o1=$(ticks "$without")
threads >"$work/threads1"
echo "load after:  $(uptime)"
echo "busiest threads with cxc (ticks over the span):"
join <(sort "$work/threads0") <(sort "$work/threads1") |
    awk '{ print $5 - $3, $2 }' | sort -rn | head -8 | sed 's/^/  /'
awk -v w=$((w1 - w0)) -v o=$((o1 - o0)) -v s="$seconds" -v hz="$hz" 'BEGIN {
    printf "with cxc    %6.2f %% of a core (%d ticks over %d s)\n", 100 * w / hz / s, w, s
    printf "without cxc %6.2f %% of a core (%d ticks over %d s)\n", 100 * o / hz / s, o, s
    printf "difference  %6.2f %% of a core\n", 100 * (w - o) / hz / s
}'

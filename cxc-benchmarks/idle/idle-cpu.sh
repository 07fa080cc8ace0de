#!/usr/bin/env bash
# What an idle Boot app costs in CPU with the CXC starter, against one without CXC: utime + stime
# from /proc/<pid>/stat over SECONDS (after WARMUP seconds past start-up), the JVMs side by side so
# that all see the same load. Rows:
#   sample    the sample app (starter, election, @LeaderOnly job, the request log; its bookkeeping
#             interval set to an hour, so nothing is scheduled to run)
#   declared  IdleCxcApp.java: the starter with a scheduler and its worker pool, a fan-out handler,
#             an event-log listener and a pass handler
#   before    (with BEFORE=<another sample app jar>) IdleCxcApp.java on that jar's libraries: the
#             same copy on an earlier build, side by side under the same load
#   none      IdleBootApp.java: a Boot app with nothing of its own, on the same libraries minus cxc-*
# Both source files run on the sample app's libraries, so Tomcat and Actuator start in every row.
#
#   mvn -B -q -pl sample-app -am package -DskipTests
#   [BEFORE=main.jar] cxc-benchmarks/idle/idle-cpu.sh sample-app/target/sample-app-*-SNAPSHOT.jar \
#       [SECONDS] [WARMUP]
set -euo pipefail
jar=$(realpath "$1")
seconds=${2:-60}
warmup=${3:-30}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
declare -A pid
cleanup() {
    for p in "${pid[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
(cd "$work" && unzip -q "$jar" 'BOOT-INF/lib/*')
all=$(ls "$work"/BOOT-INF/lib/*.jar | tr '\n' ':')
plain=$(ls "$work"/BOOT-INF/lib/*.jar | grep -v '/cxc-' | tr '\n' ':')
rows="sample declared none"
if [ -n "${BEFORE:-}" ]; then
    mkdir "$work/before-lib"
    (cd "$work/before-lib" && unzip -q "$(realpath "$BEFORE")" 'BOOT-INF/lib/*')
    rows="sample declared before none"
fi
# The copy IdleCxcApp runs: every kind the starter wakes for, none given work.
declared_args=(--server.port=0 --cxc.schedulers.jobs.capacity=64 --cxc.schedulers.jobs.workers=2
    --cxc.fanouts.items.capacity=64 --cxc.event-logs.events.capacity=1024
    --cxc.pass-registries.passes.max-passes=4)

java -Xmx256m -jar "$jar" --server.port=0 --cxc.directory="$work/sample" \
    --sample.bookkeeping.interval=1h >"$work/sample.log" 2>&1 &
pid[sample]=$!
java -Xmx256m -cp "$all" "$here/IdleCxcApp.java" --cxc.directory="$work/declared" \
    "${declared_args[@]}" >"$work/declared.log" 2>&1 &
pid[declared]=$!
if [ -n "${BEFORE:-}" ]; then
    java -Xmx256m -cp "$(ls "$work"/before-lib/BOOT-INF/lib/*.jar | tr '\n' ':')" \
        "$here/IdleCxcApp.java" --cxc.directory="$work/before" "${declared_args[@]}" \
        >"$work/before.log" 2>&1 &
    pid[before]=$!
fi
java -Xmx256m -cp "$plain" "$here/IdleBootApp.java" --server.port=0 >"$work/none.log" 2>&1 &
pid[none]=$!

for row in $rows; do
    for _ in $(seq 1 300); do
        grep -q "Started " "$work/$row.log" && break
        sleep 1
    done
    grep -q "Started " "$work/$row.log" || { echo "$row did not start:"; tail -20 "$work/$row.log"; exit 1; }
done
sleep "$warmup"

ticks() { # utime + stime: fields 14 and 15, counted after the command's closing parenthesis
    local stat
    stat=$(cat "/proc/$1/stat")
    awk '{ print $12 + $13 }' <<<"${stat##*) }"
}
threads() { # "<tid> <name> <ticks>" per thread of process $1: where its time goes
    local task stat
    for task in /proc/"$1"/task/*; do
        stat=$(cat "$task/stat" 2>/dev/null) || continue
        awk -v tid="${task##*/}" -v name="$(tr ' ' '_' <"$task/comm")" \
            '{ print tid, name, $12 + $13 }' <<<"${stat##*) }"
    done
}
hz=$(getconf CLK_TCK)
declare -A before
echo "load before: $(uptime)"
cxc_rows=${rows% none}
for row in $cxc_rows; do threads "${pid[$row]}" >"$work/$row.threads0"; done
for row in $rows; do before[$row]=$(ticks "${pid[$row]}"); done
sleep "$seconds"
declare -A spent
for row in $rows; do spent[$row]=$(($(ticks "${pid[$row]}") - ${before[$row]})); done
for row in $cxc_rows; do threads "${pid[$row]}" >"$work/$row.threads1"; done
echo "load after:  $(uptime)"
for row in $rows; do
    awk -v row="$row" -v t="${spent[$row]}" -v n="${spent[none]}" -v s="$seconds" -v hz="$hz" 'BEGIN {
        printf "%-8s %6.2f %% of a core (%4d ticks over %d s), %6.2f %% beyond none\n",
            row, 100 * t / hz / s, t, s, 100 * (t - n) / hz / s }'
done
for row in $cxc_rows; do
    echo "busiest threads of $row (ticks over the span):"
    join <(sort "$work/$row.threads0") <(sort "$work/$row.threads1") |
        awk '{ print $5 - $3, $2 }' | sort -rn | head -8 | sed 's/^/  /'
done

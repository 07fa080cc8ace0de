#!/usr/bin/env bash
# Three instances of the sample app on one host elect a leader through one shared directory; each
# handles every request any of them served (an event-log listener); they share a job scheduler
# (retries, a failed job, a recurring job fired once across them), a fan-out and a pass handler
# one of them owns; the leader is SIGKILLed and a survivor takes over (and the handler, if the
# leader owned it). Needs only Java 17+ and Maven; stops everything it started, whatever happens.
# Ports: CXC_DEMO_PORTS="8081 8082 8083" (the default).
set -euo pipefail

cd "$(dirname "$0")"
# ./demo.sh zookeeper: the same across two "hosts" on a 3-node ZooKeeper ensemble.
if [[ "${1:-}" == zookeeper ]]; then
    exec ./demo-zookeeper.sh
fi
read -r -a PORTS <<<"${CXC_DEMO_PORTS:-8081 8082 8083}"
PIDS=()
WORK=""

cleanup() {
    trap - EXIT INT TERM
    local pid
    for pid in "${PIDS[@]:-}"; do
        [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]:-}"; do
        [[ -z "$pid" ]] && continue
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    [[ -n "$WORK" ]] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# GET a path (default /actuator/cxc) on a port: curl if there is one, else bash's own /dev/tcp.
fetch() { send GET "$1" "${2:-/actuator/cxc}"; }
post() { send POST "$1" "$2"; }
send() {
    if command -v curl >/dev/null; then
        curl -sf --max-time 2 -X "$1" "http://127.0.0.1:$2$3" || true
    else
        { exec 3<>"/dev/tcp/127.0.0.1/$2" &&
            printf '%s %s HTTP/1.0\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n' "$1" "$3" >&3 &&
            sed '1,/^\r$/d' <&3; exec 3<&-; } 2>/dev/null || true
    fi
}
field() { sed -n "s/.*\"leader\":{[^}]*\"$1\":\([a-z0-9]*\).*/\1/p" <<<"$2"; }

for port in "${PORTS[@]}"; do
    if [[ -n "$(fetch "$port")" ]] || (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "port $port is in use: set CXC_DEMO_PORTS to three free ports" >&2
        exit 1
    fi
done

echo "==> building the sample app (mvn -DskipTests package -pl sample-app -am)"
# (Maven 3.8 may print stray colour codes even in batch mode: strip them.)
mvn -B -q -ntp -DskipTests package -pl sample-app -am 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
JAR=$(ls sample-app/target/sample-app-*.jar | grep -v original | head -n 1)

BASE=/dev/shm
[[ -d "$BASE" && -w "$BASE" ]] || BASE="${TMPDIR:-/tmp}"
WORK=$(mktemp -d "$BASE/cxc-demo.XXXXXX") # mode 700
DIRECTORY="$WORK/cxc"

echo "==> starting ${#PORTS[@]} instances sharing cxc.directory=$DIRECTORY"
for port in "${PORTS[@]}"; do
    java -Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$JAR" \
        --server.port="$port" --cxc.directory="$DIRECTORY" --sample.bookkeeping.interval=1s \
        --cxc.schedulers.reports.recurring.tick.fixed-rate=1s \
        >"$WORK/instance-$port.log" 2>&1 &
    PIDS+=("$!")
    disown "$!" # no "Killed" notice from the shell when the leader is killed
    echo "    port $port: pid $!   (log: $WORK/instance-$port.log)"
done

deadline=$(($(now_ms) + 180000))
for i in "${!PORTS[@]}"; do
    until [[ -n "$(fetch "${PORTS[$i]}")" ]]; do
        if ! kill -0 "${PIDS[$i]}" 2>/dev/null; then
            echo "instance on port ${PORTS[$i]} exited; its log:" >&2
            tail -n 30 "$WORK/instance-${PORTS[$i]}.log" >&2
            exit 1
        fi
        if (($(now_ms) > deadline)); then
            echo "instances did not come up within 180 s" >&2
            exit 1
        fi
        sleep 0.2
    done
done

show() {
    local port json
    printf '    %-6s %-8s %-7s %-6s %-8s %s\n' port pid leads term leader "live participants"
    for port in "$@"; do
        json=$(fetch "$port")
        printf '    %-6s %-8s %-7s %-6s %-8s %s\n' "$port" \
            "$(sed -n 's/^{"pid":\([0-9]*\).*/\1/p' <<<"$json")" \
            "$(field self "$json")" "$(field term "$json")" "$(field pid "$json")" \
            "$(grep -o '"alive":true' <<<"$json" | wc -l) of $(grep -o '"alive":' <<<"$json" | wc -l)"
    done
}

echo "==> all up; every instance's /actuator/cxc:"
show "${PORTS[@]}"
echo "==> the operations console (every instance serves one; the page follows the failover below):"
for port in "${PORTS[@]}"; do echo "    http://127.0.0.1:$port/cxc"; done

echo "==> 6 requests to /hello, 2 per instance: each is an event in the shared log 'requests', and"
echo "    every instance's @CxcEventListener (RequestTally) handles all 6, in order (GET /requests):"
for i in 0 1 2 3 4 5; do fetch "${PORTS[$((i % ${#PORTS[@]}))]}" /hello >/dev/null; done
for port in "${PORTS[@]}"; do
    tally=""
    for _ in $(seq 1 50); do
        tally=$(fetch "$port" /requests)
        [[ "$tally" == *"handled 6 requests"* ]] && break
        sleep 0.1
    done
    printf '    %-6s %s\n' "$port" "${tally:-(no answer)}"
done

echo "==> background jobs, run by every instance's worker pool: the scheduler 'reports' (ReportJobs)"
echo "    fires its recurring job 'tick' every second, once per due time across the instances; a flaky"
echo "    job fails once and is retried, a broken one fails 3 attempts and is FAILED (/actuator/cxcjobs);"
echo "    9 orders go into the fan-out 'orders' at priority 5, each shipped by one instance (OrderShipping):"
post "${PORTS[0]}" /reports/flaky >/dev/null
post "${PORTS[1 % ${#PORTS[@]}]}" /reports/broken >/dev/null
post "${PORTS[2 % ${#PORTS[@]}]}" '/orders?count=9&priority=5' >/dev/null
jobs_deadline=$(($(now_ms) + 30000))
while :; do
    reports=$(fetch "${PORTS[0]}" /reports)
    fires=$(sed -n 's/^timetable: tick .*, fired \([0-9]*\) times$/\1/p' <<<"$reports")
    ran=0
    shipped=0
    for port in "${PORTS[@]}"; do
        n=$(fetch "$port" /reports | sed -n 's/.* ran tick \([0-9]*\) times.*/\1/p')
        ran=$((ran + ${n:-0}))
        n=$(fetch "$port" /orders | sed -n 's/.* shipped \([0-9]*\) orders.*/\1/p')
        shipped=$((shipped + ${n:-0}))
    done
    if ((${fires:-0} >= 3 && ran == ${fires:-0} && shipped == 9)) &&
        [[ "$reports" == *"flaky attempt 2 succeeded"* && "$reports" == *"failed: job"* ]]; then
        break
    fi
    if (($(now_ms) > jobs_deadline)); then
        echo "the jobs did not all run within 30 s; /reports of port ${PORTS[0]}:" >&2
        echo "$reports" >&2
        exit 1
    fi
    sleep 0.2
done
for port in "${PORTS[@]}"; do
    printf '    %-6s %s\n' "$port" "$(fetch "$port" /reports | sed -n 's/^this instance (pid [0-9]*) //p')"
done
echo "    'tick' fired $fires times and ran $ran times in all"
grep -e '^history: ' -e '^failed: ' <<<"$reports" | sed 's/^/    /'
for port in "${PORTS[@]}"; do
    printf '    %-6s %s\n' "$port" "$(fetch "$port" /orders | sed -n 's/^this instance (pid [0-9]*) //p')"
done

leader_port=""
leader_pid=""
until [[ -n "$leader_port" ]]; do
    for i in "${!PORTS[@]}"; do
        if [[ "$(field self "$(fetch "${PORTS[$i]}")")" == true ]]; then
            leader_port=${PORTS[$i]}
            leader_pid=${PIDS[$i]}
        fi
    done
done
term=$(field term "$(fetch "$leader_port")")
survivors=()
for port in "${PORTS[@]}"; do [[ "$port" != "$leader_port" ]] && survivors+=("$port"); done

echo "==> GET /quote?for=demo on each instance: the pass handler 'quote' (@PassId(1), QuoteDesk)"
echo "    that every instance registers is run by its one owner, the others stand by:"
for port in "${PORTS[@]}"; do
    quote=$(fetch "$port" '/quote?for=demo')
    printf '    %-6s %s\n' "$port" "$quote"
done
quote_owner=$(sed -n 's/.* by pid \([0-9]*\)$/\1/p' <<<"$quote")

echo "==> leader: pid $leader_pid on port $leader_port, term $term; kill -9 $leader_pid"
start=$(now_ms)
kill -KILL "$leader_pid"
successor=""
until [[ -n "$successor" ]]; do
    for port in "${survivors[@]}"; do
        json=$(fetch "$port")
        if [[ "$(field self "$json")" == true ]]; then
            failover=$(($(now_ms) - start))
            successor=$port
            break
        fi
    done
    if (($(now_ms) - start > 30000)); then
        echo "no survivor took over within 30 s" >&2
        exit 1
    fi
done
echo "==> successor: pid $(sed -n 's/^{"pid":\([0-9]*\).*/\1/p' <<<"$json") on port $successor," \
    "term $(field term "$json")"
echo "==> failover: ${failover} ms from SIGKILL to a survivor's /actuator/cxc saying \"self\": true"
if [[ "$quote_owner" == "$leader_pid" ]]; then
    echo "==> GET /quote?for=demo on the survivors: the killed leader owned 'quote';"
    echo "    a standby took it over:"
else
    echo "==> GET /quote?for=demo on the survivors: 'quote' is still owned by pid $quote_owner"
    echo "    (not the leader):"
fi
for port in "${survivors[@]}"; do
    quote=""
    until [[ "$quote" == *"by pid "* && "$quote" != *"by pid $leader_pid" ]]; do
        if (($(now_ms) - start > 30000)); then
            echo "no live owner answered /quote on port $port within 30 s:" \
                "${quote:-(no answer)}" >&2
            exit 1
        fi
        quote=$(fetch "$port" '/quote?for=demo')
    done
    printf '    %-6s %s\n' "$port" "$quote"
done
sleep 0.3 # a few ticks: a lower PID that was not first to notice takes over from the first
echo "==> the survivors now (the lowest live PID leads):"
show "${survivors[@]}"
if [[ -t 0 && -t 1 ]]; then
    echo "==> the survivors' consoles stay up until you press Enter:"
    for port in "${survivors[@]}"; do echo "    http://127.0.0.1:$port/cxc"; done
    read -r || true
fi
echo "==> stopping everything"

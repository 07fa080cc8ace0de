#!/usr/bin/env bash
# Leadership across hosts: a 3-node ZooKeeper ensemble (three separate server processes), two
# "hosts" (two cxc directories) with two sample instances each. Each host elects its host leader in
# its own file; the host leaders elect the global leader through ZooKeeper. The global leader is
# SIGKILLed: its host-mate finds it dead in /proc, deletes its latch node, and the successor (on
# either host) leads well before the session would have expired. Stops everything it started and
# checks that nothing is left. Needs only Java 17+ and Maven.
# Ports: CXC_DEMO_ZK_PORTS="21810 21811 21812", CXC_DEMO_PORTS="8091 8092 8093 8094".
set -euo pipefail

cd "$(dirname "$0")"
read -r -a ZK_PORTS <<<"${CXC_DEMO_ZK_PORTS:-21810 21811 21812}"
read -r -a PORTS <<<"${CXC_DEMO_PORTS:-8091 8092 8093 8094}"
HOSTS=(host-a host-b host-a host-b)
SESSION=5s
APP_PIDS=()
ZK_PIDS=()
WORK=""

stop_all() {
    local pid
    for pid in "$@"; do [[ -n "$pid" ]] && kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        [[ -z "$pid" ]] && continue
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    stop_all "${APP_PIDS[@]:-}"
    stop_all "${ZK_PIDS[@]:-}"
    local left=""
    for pid in "${APP_PIDS[@]:-}" "${ZK_PIDS[@]:-}"; do
        [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && left="$left $pid"
    done
    if [[ -n "$left" ]]; then
        echo "==> still running:$left" >&2
        status=1
    else
        echo "==> stopped all $((${#APP_PIDS[@]} + ${#ZK_PIDS[@]})) processes it started; none left"
    fi
    if [[ -n "$WORK" && "$status" != 0 && -n "${CXC_DEMO_KEEP:-}" ]]; then
        echo "==> logs kept in $WORK" >&2
    elif [[ -n "$WORK" ]]; then
        rm -rf "$WORK"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now_ms() { echo $(($(date +%s%N) / 1000000)); }

fetch() {
    if command -v curl >/dev/null; then
        curl -sf --max-time 2 "http://127.0.0.1:$1/actuator/cxc" || true
    else
        { exec 3<>"/dev/tcp/127.0.0.1/$1" &&
            printf 'GET /actuator/cxc HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3 &&
            sed '1,/^\r$/d' <&3; exec 3<&-; } 2>/dev/null || true
    fi
}
# A field of the "leader" (host tier) or "global" (ZooKeeper tier) object of /actuator/cxc.
field() { sed -n "s/.*\"$1\":{[^}]*\"$2\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$3"; }
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

for port in "${ZK_PORTS[@]}" "${PORTS[@]}"; do
    if port_in_use "$port"; then
        echo "port $port is in use: set CXC_DEMO_ZK_PORTS / CXC_DEMO_PORTS to free ports" >&2
        exit 1
    fi
done

echo "==> building the sample app and the ZooKeeper server's classpath (mvn -DskipTests package)"
# The servers run ZooKeeper's own QuorumPeerMain on cxc-zookeeper's test classpath (curator-test
# brings what the server needs beyond the client: dropwizard metrics).
mvn -B -q -ntp -DskipTests package -pl sample-app,cxc-zookeeper -am \
    dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/classpath.txt \
    2>&1 | sed 's/\x1b\[[0-9;]*m//g'
JAR=$(ls sample-app/target/sample-app-*.jar | grep -v original | head -n 1)
ZK_CLASSPATH=$(cat cxc-zookeeper/target/classpath.txt)

BASE=/dev/shm
[[ -d "$BASE" && -w "$BASE" ]] || BASE="${TMPDIR:-/tmp}"
WORK=$(mktemp -d "$BASE/cxc-zk-demo.XXXXXX") # mode 700
CONNECT=""
for port in "${ZK_PORTS[@]}"; do CONNECT="${CONNECT:+$CONNECT,}127.0.0.1:$port"; done

cat >"$WORK/logback-zk.xml" <<'EOF'
<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{30} -- %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="OUT"/></root>
</configuration>
EOF

echo "==> starting a 3-node ZooKeeper ensemble on $CONNECT (ZooKeeper's own QuorumPeerMain)"
for i in 0 1 2; do
    id=$((i + 1))
    mkdir -p "$WORK/zk-$id"
    echo "$id" >"$WORK/zk-$id/myid"
    {
        echo "tickTime=500"
        echo "initLimit=10"
        echo "syncLimit=5"
        echo "dataDir=$WORK/zk-$id"
        echo "clientPort=${ZK_PORTS[$i]}"
        echo "clientPortAddress=127.0.0.1"
        echo "admin.enableServer=false"
        echo "4lw.commands.whitelist=*"
        for j in 0 1 2; do
            echo "server.$((j + 1))=127.0.0.1:$((ZK_PORTS[j] + 100)):$((ZK_PORTS[j] + 200))"
        done
    } >"$WORK/zk-$id/zoo.cfg"
    java -Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
        -Dlogback.configurationFile="$WORK/logback-zk.xml" -cp "$ZK_CLASSPATH" \
        org.apache.zookeeper.server.quorum.QuorumPeerMain "$WORK/zk-$id/zoo.cfg" \
        >"$WORK/zk-$id.log" 2>&1 &
    ZK_PIDS+=("$!")
    disown "$!"
    echo "    server $id: pid $!, port ${ZK_PORTS[$i]}   (log: $WORK/zk-$id.log)"
done

echo "==> starting 2 hosts x 2 instances (each host its own cxc.directory), session timeout $SESSION"
for i in "${!PORTS[@]}"; do
    host=${HOSTS[$i]}
    java -Xmx160m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$JAR" \
        --server.port="${PORTS[$i]}" --cxc.directory="$WORK/$host/cxc" \
        --cxc.zookeeper.connect-string="$CONNECT" --cxc.zookeeper.host-name="$host" \
        --cxc.zookeeper.session-timeout="$SESSION" --sample.bookkeeping.interval=1s \
        >"$WORK/instance-${PORTS[$i]}.log" 2>&1 &
    APP_PIDS+=("$!")
    disown "$!"
    echo "    $host port ${PORTS[$i]}: pid $!   (log: $WORK/instance-${PORTS[$i]}.log)"
done

deadline=$(($(now_ms) + 240000))
for i in "${!PORTS[@]}"; do
    until [[ -n "$(fetch "${PORTS[$i]}")" ]]; do
        if ! kill -0 "${APP_PIDS[$i]}" 2>/dev/null; then
            echo "instance on port ${PORTS[$i]} exited; its log:" >&2
            tail -n 30 "$WORK/instance-${PORTS[$i]}.log" >&2
            exit 1
        fi
        if (($(now_ms) > deadline)); then
            echo "instances did not come up within 240 s" >&2
            exit 1
        fi
        sleep 0.2
    done
done

show() {
    local i json
    printf '    %-6s %-7s %-8s %-12s %-13s %-12s %-16s %s\n' \
        port host pid "host leader" "global leader" "global term" "leader (pid@host)" connection
    for i in "$@"; do
        json=$(fetch "${PORTS[$i]}")
        printf '    %-6s %-7s %-8s %-12s %-13s %-12s %-16s %s\n' "${PORTS[$i]}" "${HOSTS[$i]}" \
            "$(sed -n 's/^{"pid":\([0-9]*\).*/\1/p' <<<"$json")" \
            "$(field leader self "$json")" "$(field global self "$json")" \
            "$(field global term "$json")" \
            "$(field global leaderPid "$json")@$(field global leaderHost "$json")" \
            "$(field global connection "$json" | cut -c1-24)"
    done
}

# Wait until exactly one instance leads globally.
leader=""
until [[ -n "$leader" ]]; do
    for i in "${!PORTS[@]}"; do
        [[ "$(field global self "$(fetch "${PORTS[$i]}")")" == true ]] && leader=$i
    done
    (($(now_ms) > deadline)) && { echo "no global leader within 240 s" >&2; exit 1; }
    [[ -z "$leader" ]] && sleep 0.2
done
sleep 0.5 # a few ticks: every host record names the leader
echo "==> all up; every instance's /actuator/cxc (host tier and global tier):"
show "${!PORTS[@]}"
sessions=0
for port in "${ZK_PORTS[@]}"; do
    n=$( { exec 3<>"/dev/tcp/127.0.0.1/$port" && printf cons >&3 && cat <&3; } 2>/dev/null |
        grep -c 'sid=0x' || true)
    sessions=$((sessions + n))
done
echo "==> ZooKeeper sessions on the servers: $sessions (one per host leader, not per instance)"

term=$(field global term "$(fetch "${PORTS[$leader]}")")
survivors=()
for i in "${!PORTS[@]}"; do [[ "$i" != "$leader" ]] && survivors+=("$i"); done
echo "==> global leader: pid ${APP_PIDS[$leader]} on ${HOSTS[$leader]} (port ${PORTS[$leader]})," \
    "term $term; kill -9 ${APP_PIDS[$leader]}"
start=$(now_ms)
kill -KILL "${APP_PIDS[$leader]}"
successor=""
until [[ -n "$successor" ]]; do
    for i in "${survivors[@]}"; do
        json=$(fetch "${PORTS[$i]}")
        if [[ "$(field global self "$json")" == true ]]; then
            failover=$(($(now_ms) - start))
            successor=$i
            break
        fi
    done
    if (($(now_ms) - start > 60000)); then
        echo "no survivor took over within 60 s" >&2
        exit 1
    fi
done
echo "==> successor: pid ${APP_PIDS[$successor]} on ${HOSTS[$successor]} (port" \
    "${PORTS[$successor]}), term $(field global term "$json")"
echo "==> failover: ${failover} ms from SIGKILL to the successor's /actuator/cxc saying" \
    "global \"self\": true (the session timeout is $SESSION)"
for host in host-a host-b; do
    if [[ -s "$WORK/$host/cxc/leader.zookeeper-deletions" ]]; then
        echo "==> $host's deletions log (a host-mate deleted the dead leader's latch node):"
        sed 's/^/    /' "$WORK/$host/cxc/leader.zookeeper-deletions"
    fi
done
sleep 0.5
echo "==> the survivors now:"
show "${survivors[@]}"
echo "==> stopping everything"

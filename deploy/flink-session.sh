#!/usr/bin/env bash
# A local Flink session cluster (one JobManager, one TaskManager, on 127.0.0.1) built from the Maven-resolved Flink
# jars (deploy/flink/pom.xml; there is no flink-dist to download here), and Flink's own CLI frontend against it:
#
#   deploy/flink-session.sh start             JobManager + TaskManager in the background; waits until the
#                                             TaskManager registered (REST on http://127.0.0.1:$WALSHADOW_FLINK_REST_PORT)
#   deploy/flink-session.sh flink <args>      `flink <args>` (org.apache.flink.client.cli.CliFrontend), e.g.
#       run -d -p 1 -c io.walshadow.job.WalshadowJob [-s <savepoint>] job/target/walshadow-job-*.jar --pg.host ...
#       list | stop --savepointPath file:///... <job id> | cancel <job id>
#   deploy/flink-session.sh submit [-s <savepoint>] [job args]
#                                             `flink run -d` of the shaded job jar with the local stack's settings
#                                             (deploy/local/stack.sh env) and --slot walshadow_session
#   deploy/flink-session.sh stop-job <job id> `flink stop --savepointPath` into the cluster's savepoint directory
#   deploy/flink-session.sh status | stop     whether it runs / stop both processes
#
# Everything lives under $WALSHADOW_FLINK_HOME (default $WALSHADOW_STATE_DIR/flink-session, else
# /var/lib/walshadow-dev/flink-session): conf/ (config.yaml, log4j), log/, checkpoints/, savepoints/, pids.
# The passwords reach the job from the environment of the `flink run` process (WALSHADOW_PG_PASSWORD,
# WALSHADOW_CH_PASSWORD), never from arguments; `submit` takes them from the local stack.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=local/toolchain.sh
source "$HERE/local/toolchain.sh"

FLINK_HOME_DIR=${WALSHADOW_FLINK_HOME:-${WALSHADOW_STATE_DIR:-/var/lib/walshadow-dev}/flink-session}
REST_PORT=${WALSHADOW_FLINK_REST_PORT:-18081}
RPC_PORT=${WALSHADOW_FLINK_RPC_PORT:-16123}
CONF=$FLINK_HOME_DIR/conf
LOG=$FLINK_HOME_DIR/log

log() { printf '[flink-session] %s\n' "$*" >&2; }
die() { printf '[flink-session] ERROR: %s\n' "$*" >&2; exit 1; }

# The cluster's classpath, resolved once per pom change (Maven's offline cache makes later runs quick).
classpath() {
  local cp_file=$FLINK_HOME_DIR/classpath.txt
  if [[ ! -s $cp_file || $HERE/flink/pom.xml -nt $cp_file || $ROOT/pom.xml -nt $cp_file ]]; then
    mkdir -p "$FLINK_HOME_DIR"
    (cd "$HERE/flink" && mvn -B -q dependency:build-classpath -Dmdep.outputFile="$cp_file" >&2) \
      || die "could not resolve the Flink jars (deploy/flink/pom.xml)"
  fi
  cat "$cp_file"
}

write_conf() {
  mkdir -p "$CONF" "$LOG" "$FLINK_HOME_DIR/checkpoints" "$FLINK_HOME_DIR/savepoints"
  cat >"$CONF/config.yaml" <<EOF
# Written by deploy/flink-session.sh; a Flink distribution's conf/config.yaml would hold the same keys.
jobmanager.rpc.address: 127.0.0.1
jobmanager.rpc.port: $RPC_PORT
jobmanager.bind-host: 127.0.0.1
jobmanager.memory.process.size: ${WALSHADOW_FLINK_JM_MEMORY:-1024m}
taskmanager.bind-host: 127.0.0.1
taskmanager.host: 127.0.0.1
taskmanager.rpc.port: $((RPC_PORT + 1))-$((RPC_PORT + 9))
taskmanager.memory.process.size: ${WALSHADOW_FLINK_TM_MEMORY:-2048m}
taskmanager.numberOfTaskSlots: 2
blob.server.port: $((RPC_PORT + 10))
rest.address: 127.0.0.1
rest.bind-address: 127.0.0.1
rest.port: $REST_PORT
state.backend.type: rocksdb
execution.checkpointing.incremental: true
execution.checkpointing.dir: file://$FLINK_HOME_DIR/checkpoints
execution.checkpointing.savepoint-dir: file://$FLINK_HOME_DIR/savepoints
EOF
  # one logging configuration for the cluster's processes and the CLI, each writing its own -Dlog.file
  cat >"$CONF/log4j.properties" <<'EOF'
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
logger.metricgroup.name = org.apache.flink.metrics.MetricGroup
logger.metricgroup.level = ERROR
EOF
}

# Kryo and the RocksDB backend reflect into the JDK (Flink's own scripts pass the same kind of list).
JAVA_OPENS=(--add-exports=java.base/sun.net.util=ALL-UNNAMED --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED
  --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.text=ALL-UNNAMED
  --add-opens=java.base/java.time=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED)

# The JVM sizes and derived memory settings of a process, computed as Flink's own start scripts do it.
resource_params() { # <GET_JM_RESOURCE_PARAMS|GET_TM_RESOURCE_PARAMS> -> two lines: jvm args, dynamic configs
  java -cp "$1" org.apache.flink.runtime.util.bash.BashJavaUtils "$2" --configDir "$CONF" 2>"$LOG/bash-java-utils.err" \
    | sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p'
}

running() { [[ -f $FLINK_HOME_DIR/$1.pid ]] && kill -0 "$(cat "$FLINK_HOME_DIR/$1.pid")" 2>/dev/null; }

start_process() { # <name> <main class> <resource command>
  local name=$1 main=$2 cp params jvm dyn
  cp=$(classpath)
  params=$(resource_params "$cp" "$3") || die "BashJavaUtils $3 failed: $(cat "$LOG/bash-java-utils.err")"
  jvm=$(sed -n 1p <<<"$params")
  dyn=$(sed -n 2p <<<"$params")
  [[ -n $jvm ]] || die "BashJavaUtils $3 printed nothing: $(cat "$LOG/bash-java-utils.err")"
  # shellcheck disable=SC2086 # jvm and dyn are word lists
  nohup java $jvm "${JAVA_OPENS[@]}" -Dlog.file="$LOG/$name.log" \
    -Dlog4j.configurationFile="file:$CONF/log4j.properties" -cp "$cp" "$main" --configDir "$CONF" $dyn \
    >"$LOG/$name.out" 2>&1 </dev/null &
  echo $! >"$FLINK_HOME_DIR/$name.pid"
  log "$name started (pid $!, log $LOG/$name.log)"
}

# GET on the REST endpoint with bash's /dev/tcp (no curl on a fresh machine).
rest_get() {
  local path=$1
  exec 3<>"/dev/tcp/127.0.0.1/$REST_PORT" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3
  cat <&3
  exec 3<&-
}

cmd_start() {
  if running jobmanager && running taskmanager; then
    log "already running (REST http://127.0.0.1:$REST_PORT)"
    return
  fi
  cmd_stop >/dev/null 2>&1 || true
  write_conf
  start_process jobmanager org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint GET_JM_RESOURCE_PARAMS
  start_process taskmanager org.apache.flink.runtime.taskexecutor.TaskManagerRunner GET_TM_RESOURCE_PARAMS
  for _ in $(seq 1 120); do
    if [[ $(rest_get /overview 2>/dev/null) =~ \"taskmanagers\":([0-9]+) ]] && ((BASH_REMATCH[1] >= 1)); then
      log "session cluster up: REST http://127.0.0.1:$REST_PORT, 1 TaskManager with 2 slots"
      return
    fi
    running jobmanager || die "the JobManager exited: $(tail -20 "$LOG/jobmanager.out" "$LOG/jobmanager.log" 2>/dev/null)"
    running taskmanager || die "the TaskManager exited: $(tail -20 "$LOG/taskmanager.out" "$LOG/taskmanager.log" 2>/dev/null)"
    sleep 1
  done
  die "no TaskManager registered within 120 s (logs in $LOG)"
}

cmd_stop() {
  local name pid
  for name in taskmanager jobmanager; do
    if running "$name"; then
      pid=$(cat "$FLINK_HOME_DIR/$name.pid")
      kill "$pid"
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
      log "$name stopped"
    fi
    rm -f "$FLINK_HOME_DIR/$name.pid"
  done
}

cmd_flink() {
  [[ -f $CONF/config.yaml ]] || die "no cluster configuration in $CONF: run '$0 start' first"
  FLINK_CONF_DIR=$CONF java "${JAVA_OPENS[@]}" -Dlog.file="$LOG/cli.log" \
    -Dlog4j.configurationFile="file:$CONF/log4j.properties" -cp "$(classpath)" \
    org.apache.flink.client.cli.CliFrontend "$@"
}

job_jar() {
  local jar
  jar=$(ls "$ROOT"/job/target/walshadow-job-*.jar 2>/dev/null | grep -v original- | head -1 || true)
  if [[ -z $jar ]]; then
    log "building the job jar (mvn package -DskipTests)"
    (cd "$ROOT" && mvn -B -q package -DskipTests -pl job -am >&2)
    jar=$(ls "$ROOT"/job/target/walshadow-job-*.jar | grep -v original- | head -1)
  fi
  echo "$jar"
}

cmd_submit() {
  local restore=()
  if [[ ${1:-} == -s ]]; then
    restore=(-s "$2")
    shift 2
  fi
  eval "$(bash "$HERE/local/stack.sh" env)"
  cmd_flink run -d -p 1 -c io.walshadow.job.WalshadowJob "${restore[@]}" "$(job_jar)" \
    --pg.host "$WALSHADOW_PG_HOST" --pg.port "$WALSHADOW_PG_PORT" --pg.database "$WALSHADOW_PG_DATABASE" \
    --pg.user "$WALSHADOW_PG_USER" --pg.sslmode disable --slot walshadow_session \
    --clickhouse.url "$WALSHADOW_CH_URL" --clickhouse.user "$WALSHADOW_CH_USER" \
    --clickhouse.database "$WALSHADOW_CH_DATABASE" --checkpoint.interval 5s "$@"
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status)
    if running jobmanager && running taskmanager; then
      echo "running: REST http://127.0.0.1:$REST_PORT, home $FLINK_HOME_DIR"
    else
      echo "not running"
      exit 1
    fi
    ;;
  flink) shift; cmd_flink "$@" ;;
  submit) shift; cmd_submit "$@" ;;
  stop-job)
    [[ -n ${2:-} ]] || die "usage: $0 stop-job <job id>"
    cmd_flink stop --savepointPath "file://$FLINK_HOME_DIR/savepoints" "$2"
    ;;
  classpath) classpath ;;
  *) die "usage: $0 start|stop|status|flink <args>|submit [-s savepoint] [job args]|stop-job <job id>" ;;
esac

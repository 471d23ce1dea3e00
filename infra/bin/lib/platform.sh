# Shell functions that start and stop the platform as local processes: MariaDB + Kafka + Redis (through
# the infra launcher), the connector, and the sample services. Sourced by infra/bin/local-run and the
# gatling scripts. Every process started here is recorded in $PLATFORM_DIR/pids and stopped by PID in
# platform_stop_all (scripts call it from an EXIT trap).

PLATFORM_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PLATFORM_DIR="${PLATFORM_DIR:-$PLATFORM_ROOT/.local}"
PLATFORM_VERSION="0.1.0-SNAPSHOT"
MARIADB_PORT="${MARIADB_PORT:-13306}"
KAFKA_PORT="${KAFKA_PORT:-19092}"
REDIS_PORT="${REDIS_PORT:-16379}"
TOPIC_PREFIX="${TOPIC_PREFIX:-cdc}"

platform_log() { printf '\033[1m[platform]\033[0m %s\n' "$*" >&2; }

platform_jar() { # module -> runnable jar path
  echo "$PLATFORM_ROOT/$1/target/$1-$PLATFORM_VERSION-exec.jar"
}

# Builds every module once (skipped when PLATFORM_SKIP_BUILD=1 and the jars exist).
platform_build() {
  if [ "${PLATFORM_SKIP_BUILD:-0}" = 1 ] && [ -f "$(platform_jar cdc-connector)" ]; then
    return
  fi
  platform_log "building (./mvnw install -DskipTests) ..."
  (cd "$PLATFORM_ROOT" && ./mvnw -B -q install -DskipTests) || { platform_log "build failed"; return 1; }
}

# Records a background process for platform_stop_all.
platform_track() { # name pid
  mkdir -p "$PLATFORM_DIR"
  echo "$2 $1" >> "$PLATFORM_DIR/pids"
}

platform_pid() { # name -> pid of a process started here
  awk -v n="$1" '$2 == n { p = $1 } END { print p }' "$PLATFORM_DIR/pids" 2>/dev/null
}

# Waits until a command succeeds; gives up early when the named process (optional) has died.
#   platform_wait_for DESCRIPTION TIMEOUT-SECONDS [--process NAME] COMMAND...
platform_wait_for() {
  local what=$1 timeout=$2 watched=""; shift 2
  if [ "${1:-}" = "--process" ]; then watched=$(platform_pid "$2"); shift 2; fi
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if [ -n "$watched" ] && ! kill -0 "$watched" 2>/dev/null; then platform_log "gave up waiting for $what: the process exited"; return 1; fi
    if [ $SECONDS -ge $deadline ]; then platform_log "timed out waiting for $what"; return 1; fi
    sleep 0.3
  done
}

# Fails with a clear message when a port the platform needs is taken.
platform_require_free_port() {
  if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
    platform_log "port $1 is in use (needed for $2); stop what listens there or choose another port"
    return 1
  fi
}

platform_http_ok() { curl -fsS -o /dev/null --max-time 2 "$1"; }

# The command-line tools the scripts call themselves (the Java launcher finds MariaDB and Redis on its own).
# Missing ones are installed with apt-get when CDC_INFRA_INSTALL_PACKAGES=true and running as root, the same
# switch as the launcher's for mariadb-server; otherwise the run stops naming the install command.
#   platform_require_tools TOOL...   (each tool's Debian package has the same name: curl, jq)
platform_require_tools() {
  local missing=() tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "${CDC_INFRA_INSTALL_PACKAGES:-false}" = true ] && [ "$(id -u)" = 0 ]; then
    platform_log "installing ${missing[*]} (CDC_INFRA_INSTALL_PACKAGES=true) ..."
    DEBIAN_FRONTEND=noninteractive apt-get update -q \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" \
      || { platform_log "apt-get install ${missing[*]} failed"; return 1; }
    for tool in "${missing[@]}"; do
      command -v "$tool" >/dev/null 2>&1 || { platform_log "$tool is still missing after apt-get install"; return 1; }
    done
    return 0
  fi
  platform_log "${missing[*]} not found: install with 'sudo apt-get install -y ${missing[*]}'," \
    "or run as root with CDC_INFRA_INSTALL_PACKAGES=true to let this script install them"
  return 1
}

# Prints the infra launcher's classpath: PLATFORM_INFRA_CLASSPATH when set, otherwise the infra module's, compiled
# and resolved by Maven (the module alone: the launcher needs no other module of the project). Logback, the tests'
# logging backend, is left out: the broker's log4j binding is then the only one (errors only, on the console).
platform_infra_classpath() {
  if [ -n "${PLATFORM_INFRA_CLASSPATH:-}" ]; then
    echo "$PLATFORM_INFRA_CLASSPATH"
    return
  fi
  local cp_file="$PLATFORM_DIR/infra.classpath"
  mkdir -p "$PLATFORM_DIR"
  (cd "$PLATFORM_ROOT" && ./mvnw -B -q -pl infra compile dependency:build-classpath \
      -Dmdep.outputFile="$cp_file" -DexcludeArtifactIds=logback-classic,logback-core >&2) \
    || { platform_log "building the infra module failed"; return 1; }
  echo "$PLATFORM_ROOT/infra/target/classes:$(cat "$cp_file")"
}

# Starts MariaDB (binlog on), Kafka (KRaft) and Redis through the infra launcher; exports their coordinates.
# PLATFORM_INFRA_CLASSPATH, when set, is the launcher's classpath (default: the infra module's, resolved by Maven).
platform_start_stack() {
  for p in "$MARIADB_PORT" "$KAFKA_PORT" "$((KAFKA_PORT + 1))" "$REDIS_PORT"; do
    platform_require_free_port "$p" "the local stack" || return 1
  done
  mkdir -p "$PLATFORM_DIR/logs"
  local classpath
  classpath=$(platform_infra_classpath) || return 1
  rm -f "$PLATFORM_DIR/stack/stack.env"
  # java itself in the background (not a function in a subshell), so the PID tracked is the JVM's
  java -cp "$classpath" dev.cdccache.infra.cli.InfraCommand up \
      --dir "$PLATFORM_DIR/stack" --mariadb-port "$MARIADB_PORT" --kafka-port "$KAFKA_PORT" --redis-port "$REDIS_PORT" \
      > "$PLATFORM_DIR/logs/stack.log" 2>&1 &
  platform_track stack $!
  platform_wait_for "MariaDB, Kafka and Redis (log: $PLATFORM_DIR/logs/stack.log)" 120 --process stack \
      test -f "$PLATFORM_DIR/stack/stack.env" || return 1
  set -a; . "$PLATFORM_DIR/stack/stack.env"; set +a
  platform_log "stack up: MariaDB 127.0.0.1:$MARIADB_PORT, Kafka $KAFKA_BOOTSTRAP_SERVERS, Redis 127.0.0.1:$REDIS_PORT"
}

# Runs SQL as the admin user: platform_sql DATABASE "SQL"
platform_sql() {
  mariadb --protocol=TCP -h 127.0.0.1 -P "$MARIADB_PORT" -u "$MARIADB_ADMIN_USER" -p"$MARIADB_ADMIN_PASSWORD" \
      --batch --skip-column-names "$1" -e "$2"
}

# Creates an application database and grants the app user on it.
platform_create_database() {
  platform_sql "" "CREATE DATABASE IF NOT EXISTS \`$1\`; GRANT ALL PRIVILEGES ON \`$1\`.* TO '$MARIADB_APP_USER'@'%';"
}

# Starts a Spring Boot exec jar and waits until its health is UP:
#   platform_start_app NAME MODULE PORT HEAP [--property=value ...]
platform_start_app() {
  platform_launch_app "$@" && platform_await_app "$1" "$3"
}

# Sets PLATFORM_LAUNCH to the JVM arguments that start an executable jar. With PLATFORM_STARTUP_ARCHIVE=1 (the
# default), from its extracted layout, which takes about 30% less CPU to boot than "java -jar", and with the
# class-data-sharing archive beside it when there is one (about 40% less again). The layout is infra's
# StartupArchive's (<jar>.startup/<size>-<mtime>/), so a build's integration tests leave an archive for the jars in
# target/ that they booted often enough; scripts write none (writing one costs more CPU than a few boots save).
# "-jar JAR" when switched off (PLATFORM_STARTUP_ARCHIVE=0) or when extraction fails.
#   platform_prepare_jar JAR
platform_prepare_jar() {
  local jar=$1 home layout app scratch
  PLATFORM_LAUNCH=(-jar "$jar")
  [ "${PLATFORM_STARTUP_ARCHIVE:-1}" = 1 ] || return 0
  # a link to a build's jar (BENCH_JARS_IN_PLACE in the benchmark scripts) shares that jar's layout and archive
  [ -L "$jar" ] && jar=$(readlink "$jar")
  home="$jar.startup"
  layout="$home/$(stat -c '%s-%Y' "$jar" 2>/dev/null)" || return 0
  if [ ! -d "$layout" ]; then
    mkdir -p "$home" && scratch=$(mktemp -d "$home/extracting-XXXXXX") || return 0
    if java -XX:TieredStopAtLevel=1 -Djarmode=tools -jar "$jar" extract --destination "$scratch/app" >/dev/null 2>&1; then
      mv -T "$scratch/app" "$layout" 2>/dev/null  # a concurrent launch may have put its own there first
      # layouts of earlier builds of the jar (about 70 MB each, 160 with an archive)
      find "$home" -mindepth 1 -maxdepth 1 ! -name "$(basename "$layout")" ! -name 'extracting-*' -exec rm -rf {} +
    fi
    rm -rf "$scratch"
  fi
  app=$(ls "$layout"/*.jar 2>/dev/null | head -1)
  [ -n "$app" ] || return 0
  # -Xlog: the JVM's note on an archive it cannot use (another JDK) would land in the service's log
  PLATFORM_LAUNCH=(-Xlog:cds*=off -jar "$app")
  [ -f "$layout/app.jsa" ] && PLATFORM_LAUNCH=(-XX:SharedArchiveFile="$layout/app.jsa" "${PLATFORM_LAUNCH[@]}")
  return 0
}

# Starts a Spring Boot exec jar without waiting (for a service whose health needs something started later).
platform_launch_app() {
  local name=$1 module=$2 port=$3 heap=$4; shift 4
  platform_require_free_port "$port" "$name" || return 1
  platform_prepare_jar "$(platform_jar "$module")"
  # G1 with a 50 ms pause goal, as docs/coupon-service.md recommends for a latency-bound API (the default is 200 ms)
  java -Xmx"$heap" -Xms"$heap" -XX:+UseG1GC -XX:MaxGCPauseMillis=50 "${PLATFORM_LAUNCH[@]}" --server.port="$port" "$@" \
      > "$PLATFORM_DIR/logs/$name.log" 2>&1 &
  platform_track "$name" $!
}

# Waits until an app started by platform_launch_app answers UP: platform_await_app NAME PORT
platform_await_app() {
  platform_wait_for "$1 on port $2 (log: $PLATFORM_DIR/logs/$1.log)" 180 --process "$1" \
      platform_http_ok "http://127.0.0.1:$2/actuator/health" || { tail -20 "$PLATFORM_DIR/logs/$1.log" >&2; return 1; }
  platform_log "$1 up on http://127.0.0.1:$2"
}

# Waits until a table exists (a service's Flyway migration ran): platform_await_table DB TABLE PROCESS-NAME
platform_await_table() {
  platform_wait_for "table $1.$2" 180 --process "$3" platform_table_exists "$1" "$2"
}

platform_table_exists() { # database table
  [ "$(platform_sql "" "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='$1' AND table_name='$2'")" = 1 ]
}

# Starts the connector capturing the given tables, with optional further settings after "--":
#   platform_start_connector PORT TABLE... [-- --cdc.connector.name=value ...]
platform_start_connector() {
  local port=$1; shift
  local list=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do list+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  local tables; tables=$(IFS=,; echo "${list[*]}")
  # G1's default 200 ms pause goal let young pauses of 50-190 ms through on 2 cores, and every one of them
  # delays the events in flight; a 20 ms goal keeps them near 10-20 ms. No performance-data counters (for jps
  # and jstat): their sampling thread took 0.4-0.7% of a core in an idle connector (docs/connector.md, "JVM
  # options for the idle cost")
  JAVA_TOOL_OPTIONS="-XX:MaxGCPauseMillis=20 -XX:-UsePerfData ${JAVA_TOOL_OPTIONS:-}" \
  platform_start_app cdc-connector cdc-connector "$port" 512m \
      --cdc.connector.database.host=127.0.0.1 \
      --cdc.connector.database.port="$MARIADB_PORT" \
      --cdc.connector.database.user="$MARIADB_CONNECTOR_USER" \
      --cdc.connector.database.password="$MARIADB_CONNECTOR_PASSWORD" \
      --cdc.connector.tables="$tables" \
      --cdc.connector.topic-prefix="$TOPIC_PREFIX" \
      --cdc.connector.kafka.bootstrap-servers="$KAFKA_BOOTSTRAP_SERVERS" "$@"
}

# Stops one process: SIGTERM, then SIGKILL after 20 s: platform_stop_pid PID NAME
platform_stop_pid() {
  local pid=$1 name=$2
  kill -0 "$pid" 2>/dev/null || return 0
  platform_log "stopping $name (pid $pid)"
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
}

# Stops one process started here, by name, and forgets it (e.g. to restart a service in another mode).
platform_stop_app() { # name
  local pids_file="$PLATFORM_DIR/pids" pid
  pid=$(platform_pid "$1")
  [ -n "$pid" ] || return 0
  platform_stop_pid "$pid" "$1"
  awk -v n="$1" '$2 != n' "$pids_file" > "$pids_file.tmp" && mv "$pids_file.tmp" "$pids_file"
}

# Stops everything this library started, newest first.
platform_stop_all() {
  local pids_file="$PLATFORM_DIR/pids"
  [ -f "$pids_file" ] || return 0
  tac "$pids_file" | while read -r pid name; do
    platform_stop_pid "$pid" "$name"
  done
  rm -f "$pids_file"
}

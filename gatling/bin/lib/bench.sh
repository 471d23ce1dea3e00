# Shell functions of the load tests and the benchmark report: start the platform for a run, restart the
# services in a given mode, run one Gatling simulation (Gatling's own main class in a JVM of its own, on the
# classpath the build wrote to gatling/target/simulation.classpath) and sample the services' CPU time and SQL
# statement counters around it. Builds on infra/bin/lib/platform.sh (stack,
# connector, apps started in the background and stopped by PID from $PLATFORM_DIR/pids).
#
# Sourced by gatling/bin/run-simulation and gatling/bin/benchmark-report; expects BENCH_DIR to be set.

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
: "${BENCH_DIR:?BENCH_DIR must be set}"
export PLATFORM_DIR="${PLATFORM_DIR:-$BENCH_DIR/platform}"
# Ports of their own, so a benchmark can run beside infra/bin/local-run (MariaDB 13306, Kafka 19092, Redis
# 16379, coupon-service 8081 8082, ticket-orchestrator 8083, connector 8090). Kafka also uses KAFKA_PORT + 1.
export MARIADB_PORT="${MARIADB_PORT:-23306}"
export KAFKA_PORT="${KAFKA_PORT:-29092}"
export REDIS_PORT="${REDIS_PORT:-26379}"
COUPON_PORTS="${COUPON_PORTS:-28081 28082}"
TICKET_PORT="${TICKET_PORT:-28083}"
CONNECTOR_PORT="${CONNECTOR_PORT:-28090}"
# Heap of every service instance: the size docs/benchmarks.md recommends (a 128 MB heap loses the tail).
SERVICE_HEAP="${SERVICE_HEAP:-512m}"
COUPON_DATA="${COUPON_DATA:-full}"          # coupon-service generator plan: full | small | PLACES:COUPONS[:ATTRS]
TICKET_LOTS="${TICKET_LOTS:-5}"
TICKET_PER_LOT="${TICKET_PER_LOT:-5000}"
CAPTURED_TABLES="coupon_db.place coupon_db.coupon coupon_db.coupon_attribute coupon_db.coupon_progress ticket_db.ticket_category ticket_db.parking_lot ticket_db.car_exchange_detail bench_db.lag_probe"

# shellcheck source=../../../infra/bin/lib/platform.sh
. "$BENCH_ROOT/infra/bin/lib/platform.sh"

# Runnable jars are copied into the run directory before anything starts (bench_snapshot), so a build
# running meanwhile (it replaces target/*.jar) cannot pull classes out from under a running service.
# BENCH_JARS names another directory of jars, e.g. a baseline build's (bench_build_baseline).
platform_jar() {
  if [ -f "${BENCH_JARS:-$BENCH_DIR/jars}/$1.jar" ]; then
    echo "${BENCH_JARS:-$BENCH_DIR/jars}/$1.jar"
  elif [ -f "$BENCH_DIR/jars/$1.jar" ]; then
    echo "$BENCH_DIR/jars/$1.jar"
  else
    echo "$PLATFORM_ROOT/$1/target/$1-$PLATFORM_VERSION-exec.jar"
  fi
}

bench_log() { printf '\033[1m[bench]\033[0m %s\n' "$*" >&2; }

# shellcheck disable=SC2086
bench_mvn() { (cd "$BENCH_ROOT" && ./mvnw -B -q ${BENCH_MVN_OFFLINE:+-o} "$@"); }

# Builds what a run needs: the runnable jars (whole project, once) and this module's classes + classpath.
bench_build() {
  local missing=0
  for m in cdc-connector coupon-service ticket-orchestrator; do
    [ -f "$(platform_jar "$m")" ] || missing=1
  done
  if [ "$missing" = 1 ] && [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
    platform_build || return 1
  fi
  for m in cdc-connector coupon-service ticket-orchestrator; do
    [ -f "$(platform_jar "$m")" ] || { bench_log "missing $(platform_jar "$m"): build the project first"; return 1; }
  done
  # BENCH_SKIP_BUILD=1 also reuses this module's classes when a build left them (gatling/bin/smoke builds once)
  if [ "${BENCH_SKIP_BUILD:-0}" != 1 ] || [ ! -f "$BENCH_ROOT/gatling/target/driver.classpath" ] \
      || [ ! -f "$BENCH_ROOT/gatling/target/simulation.classpath" ] \
      || [ ! -d "$BENCH_ROOT/gatling/target/test-classes" ]; then
    bench_mvn -f gatling/pom.xml test-compile || { bench_log "gatling module does not compile"; return 1; }
  fi
  bench_snapshot
}

# Copies the service jars and this module's classes and classpaths into $BENCH_DIR (see platform_jar): lib/
# holds the drivers' classes and jars, lib/simulation the simulations (test classes) and the jars only they use.
# BENCH_JARS_IN_PLACE=1 links the service jars instead of copying them, for a run that nothing rebuilds during
# (gatling/bin/smoke, after the build): the services then start from the extracted layout, and the startup archive,
# that the build's integration tests left beside the jars in target/ (see platform_prepare_jar); a copy gets a
# layout of its own and no archive, since an archive holds the paths it was written with.
bench_snapshot() {
  mkdir -p "$BENCH_DIR/jars" "$BENCH_DIR/lib/simulation"
  for m in cdc-connector coupon-service ticket-orchestrator; do
    rm -f "$BENCH_DIR/jars/$m.jar"
    if [ "${BENCH_JARS_IN_PLACE:-0}" = 1 ]; then
      ln -s "$PLATFORM_ROOT/$m/target/$m-$PLATFORM_VERSION-exec.jar" "$BENCH_DIR/jars/$m.jar" || return 1
    else
      cp "$PLATFORM_ROOT/$m/target/$m-$PLATFORM_VERSION-exec.jar" "$BENCH_DIR/jars/$m.jar" || return 1
    fi
  done
  rm -rf "$BENCH_DIR/lib/classes" "$BENCH_DIR/lib/simulation/test-classes"
  cp -r "$BENCH_ROOT/gatling/target/classes" "$BENCH_DIR/lib/classes"
  cp -r "$BENCH_ROOT/gatling/target/test-classes" "$BENCH_DIR/lib/simulation/test-classes"
  tr ':' '\n' < "$BENCH_ROOT/gatling/target/driver.classpath" | while read -r jar; do
    [ -n "$jar" ] && cp "$jar" "$BENCH_DIR/lib/"
  done
  tr ':' '\n' < "$BENCH_ROOT/gatling/target/simulation.classpath" | while read -r jar; do
    [ -n "$jar" ] && [ ! -f "$BENCH_DIR/lib/$(basename "$jar")" ] && cp "$jar" "$BENCH_DIR/lib/simulation/"
  done
  BENCH_CLASSPATH="$BENCH_DIR/lib/classes:$(find "$BENCH_DIR/lib" -maxdepth 1 -name '*.jar' | sort | paste -sd:)"
  BENCH_SIMULATION_CLASSPATH="$BENCH_DIR/lib/simulation/test-classes:$BENCH_CLASSPATH:$(find "$BENCH_DIR/lib/simulation" \
      -maxdepth 1 -name '*.jar' | sort | paste -sd:)"
  export BENCH_CLASSPATH BENCH_SIMULATION_CLASSPATH
}

# Builds coupon-service at a git revision in a temporary worktree and copies its runnable jar to
# $BENCH_DIR/jars-baseline (use it with BENCH_JARS=$BENCH_DIR/jars-baseline); the worktree is removed
# afterwards. Sets BENCH_BASELINE_SHA. bench_build_baseline REVISION
bench_build_baseline() {
  local rev=$1 tree jar status
  BENCH_BASELINE_SHA=$(git -C "$BENCH_ROOT" rev-parse --verify "$rev^{commit}" 2>/dev/null) \
      || { bench_log "baseline: no such revision '$rev'"; return 1; }
  tree=$(mktemp -d "${TMPDIR:-/tmp}/bench-baseline.XXXXXX") || return 1
  git -C "$BENCH_ROOT" worktree add --detach "$tree" "$BENCH_BASELINE_SHA" > "$BENCH_DIR/logs/baseline-build.log" 2>&1 \
      || { bench_log "baseline: git worktree add failed (log: $BENCH_DIR/logs/baseline-build.log)"; rm -rf "$tree"; return 1; }
  bench_log "building coupon-service at $rev (${BENCH_BASELINE_SHA:0:10}) in $tree ..."
  (cd "$tree" && ./mvnw -B -q ${BENCH_MVN_OFFLINE:+-o} package -DskipTests -pl coupon-service -am) \
      >> "$BENCH_DIR/logs/baseline-build.log" 2>&1
  status=$?
  jar=$(ls "$tree"/coupon-service/target/coupon-service-*-exec.jar 2>/dev/null | head -1)
  if [ "$status" = 0 ] && [ -n "$jar" ]; then
    mkdir -p "$BENCH_DIR/jars-baseline" && cp "$jar" "$BENCH_DIR/jars-baseline/coupon-service.jar"
  fi
  git -C "$BENCH_ROOT" worktree remove --force "$tree" >> "$BENCH_DIR/logs/baseline-build.log" 2>&1 || rm -rf "$tree"
  git -C "$BENCH_ROOT" worktree prune
  [ -f "$BENCH_DIR/jars-baseline/coupon-service.jar" ] \
      || { bench_log "baseline build failed (log: $BENCH_DIR/logs/baseline-build.log)"; return 1; }
}

# Puts the load generator on a CPU of its own: this shell (so every service, MariaDB, Kafka, Redis and the
# connector it starts from now on) on BENCH_SERVICE_CPUS, each Gatling run on BENCH_LOADGEN_CPUS (default:
# the last CPU this process may use for Gatling, the others for the rest). BENCH_PIN=0 turns it off. Says
# what it did in BENCH_PINNING (for the report) and in the log, also when it cannot pin: taskset missing
# or a single CPU.
bench_pin() {
  local allowed cpus
  BENCH_LOADGEN_CPUS_SET=""
  if [ "${BENCH_PIN:-1}" = 0 ]; then
    BENCH_PINNING="not pinned (BENCH_PIN=0): Gatling shares the CPUs with the services"
  elif ! command -v taskset > /dev/null 2>&1; then
    BENCH_PINNING="not pinned: taskset not found (util-linux); Gatling shares the CPUs with the services"
  else
    allowed=$(taskset -cp $$ 2>/dev/null | sed 's/.*: *//')
    # expand "0-3,6" into one CPU a line
    cpus=$(echo "$allowed" | tr ',' '\n' | awk -F- '{ if (NF == 2) for (c = $1; c <= $2; c++) print c; else if ($1 != "") print $1 }')
    if [ "$(echo "$cpus" | grep -c .)" -lt 2 ]; then
      BENCH_PINNING="not pinned: only one CPU (${allowed:-?}) available; Gatling shares it with the services"
    else
      local loadgen=${BENCH_LOADGEN_CPUS:-$(echo "$cpus" | tail -1)}
      local services=${BENCH_SERVICE_CPUS:-$(echo "$cpus" | grep -vxF -f <(echo "$loadgen" | tr ',' '\n') | paste -sd,)}
      if taskset -cp "$services" $$ > /dev/null 2>&1; then
        BENCH_LOADGEN_CPUS_SET=$loadgen
        BENCH_PINNING="Gatling pinned to CPU $loadgen, everything else (services, MariaDB, Kafka, Redis, connector) to CPU $services (taskset; CPUs allowed: $allowed)"
      else
        BENCH_PINNING="not pinned: taskset -cp $services failed; Gatling shares the CPUs with the services"
      fi
    fi
  fi
  bench_log "$BENCH_PINNING"
}

# This module's classes and dependencies: the copy made by bench_build, else the build's own.
bench_classpath() {
  echo "${BENCH_CLASSPATH:-$BENCH_ROOT/gatling/target/classes:$(cat "$BENCH_ROOT/gatling/target/driver.classpath")}"
}

# The same for the simulations: test classes first, then the test-scope dependencies (Gatling among them).
bench_simulation_classpath() {
  local t=$BENCH_ROOT/gatling/target
  echo "${BENCH_SIMULATION_CLASSPATH:-$t/test-classes:$t/classes:$(cat "$t/simulation.classpath")}"
}

# JVM options of a Gatling run: those the gatling-maven-plugin gives the JVM it forks (so that figures stay
# comparable with runs through `gatling:test`), then the heap this module's pom sets for it.
BENCH_GATLING_JVM=(-XX:+HeapDumpOnOutOfMemoryError -XX:MaxInlineLevel=20 -XX:MaxTrivialSize=12
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED
  -Xms512m -Xmx1g -Djansi.mode=strip)

# java for the drivers of this module (lag driver, report).
bench_java() {
  java -cp "$(bench_classpath)" "$@"
}

bench_jdbc_url() { echo "jdbc:mariadb://127.0.0.1:$MARIADB_PORT/"; }

# The stack is started from this module's classpath (infra and its dependencies as resolved for the
# gatling module), so a run does not depend on the reactor build.
bench_start_stack() {
  PLATFORM_INFRA_CLASSPATH="$(bench_classpath)" platform_start_stack
}

# Creates the lag driver's probe table (before the connector starts: it checks captured tables exist).
bench_lag_setup() {
  bench_java dev.cdccache.bench.lag.InvalidationLagDriver setup --jdbc-url "$(bench_jdbc_url)" \
      --user "$MARIADB_ADMIN_USER" --password "$MARIADB_ADMIN_PASSWORD" --app-user "$MARIADB_APP_USER" \
      > "$BENCH_DIR/logs/lag-setup.log" 2>&1 || { bench_log "lag probe setup failed"; return 1; }
}

# Runs the lag driver against the running connector: bench_lag_run RESULT-FILE [JVM-OPTION...] -- DRIVER-ARGS...
# Figures go to RESULT-FILE, the driver's log next to it (.log), its summary lines to stdout.
bench_lag_run() {
  local out=$1; shift
  local jvm=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do jvm+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  bench_java -Xmx1g "${jvm[@]}" dev.cdccache.bench.lag.InvalidationLagDriver run --jdbc-url "$(bench_jdbc_url)" \
      --user "$MARIADB_ADMIN_USER" --password "$MARIADB_ADMIN_PASSWORD" \
      --bootstrap-servers "$KAFKA_BOOTSTRAP_SERVERS" --topic-prefix "$TOPIC_PREFIX" "$@" --out "$out" \
      2> "${out%.properties}.log"
}

# Starts the stack, generates the data, starts ticket-orchestrator and the connector. The coupon-service
# instances are started separately (bench_start_coupons), because the report restarts them per cache mode.
#   bench_start_platform [TICKET_MODE | none]
# "none" leaves ticket-orchestrator and ticket_db out, for a run that measures coupon-service alone: the
# connector then captures the coupon tables and the lag probe only (CAPTURED_TABLES is narrowed to match, for a
# later restart of the connector), and no idle service takes CPU from the one measured.
bench_start_platform() {
  local ticket_mode=${1:-batched}
  mkdir -p "$BENCH_DIR/logs" "$BENCH_DIR/gc"
  bench_start_stack || return 1
  platform_create_database coupon_db || return 1
  # ticket-orchestrator creates ticket_db's tables, and the connector checks that every captured table
  # exists; the service's health in turn stays DOWN until the connector has created the topics it
  # subscribes to. So: launch the service (it boots while the coupon data is generated), wait for its
  # schema, start the connector, then wait for the service.
  if [ "$ticket_mode" = none ]; then
    CAPTURED_TABLES=$(echo "$CAPTURED_TABLES" | tr ' ' '\n' | grep -v '^ticket_db\.' | paste -sd' ')
  else
    platform_create_database ticket_db || return 1
    bench_launch_ticket "$ticket_mode" || return 1
  fi
  bench_generate_coupons || return 1
  bench_lag_setup || return 1
  [ "$ticket_mode" = none ] || platform_await_table ticket_db car_exchange_detail ticket-orchestrator || return 1
  # shellcheck disable=SC2086
  platform_start_connector "$CONNECTOR_PORT" $CAPTURED_TABLES || return 1
  [ "$ticket_mode" = none ] || platform_await_app ticket-orchestrator "$TICKET_PORT"
}

# Fills coupon_db (which must exist) with coupon-service's generator, plan $COUPON_DATA.
bench_generate_coupons() {
  bench_log "generating coupon data ($COUPON_DATA) ..."
  local started=$SECONDS
  platform_prepare_jar "$(platform_jar coupon-service)"
  java -Xmx1g "${PLATFORM_LAUNCH[@]}" --coupon.generate="$COUPON_DATA" \
      --spring.datasource.url="jdbc:mariadb://127.0.0.1:$MARIADB_PORT/coupon_db" \
      --spring.datasource.username="$MARIADB_APP_USER" --spring.datasource.password="$MARIADB_APP_PASSWORD" \
      > "$BENCH_DIR/logs/coupon-generator.log" 2>&1 \
      || { bench_log "coupon data generation failed (log: $BENCH_DIR/logs/coupon-generator.log)"; return 1; }
  bench_log "coupon data generated in $((SECONDS - started)) s"
}

# Starts (or restarts) the coupon-service instances in a cache mode, all booting at once:
#   bench_start_coupons MODE [HEAP] [TAG]
bench_start_coupons() {
  local mode=$1 heap=${2:-$SERVICE_HEAP} tag=${3:-$1} i=0 port
  for port in $COUPON_PORTS; do
    i=$((i + 1))
    platform_stop_app "coupon-service-$i"
  done
  i=0
  for port in $COUPON_PORTS; do
    i=$((i + 1))
    JAVA_TOOL_OPTIONS="-Xlog:gc:file=$BENCH_DIR/gc/coupon-$tag-$i.log:uptime,level,tags ${BENCH_EXTRA_JVM_OPTS:-} ${JAVA_TOOL_OPTIONS:-}" \
    platform_launch_app "coupon-service-$i" coupon-service "$port" "$heap" \
        --spring.datasource.url="jdbc:mariadb://127.0.0.1:$MARIADB_PORT/coupon_db" \
        --spring.datasource.username="$MARIADB_APP_USER" --spring.datasource.password="$MARIADB_APP_PASSWORD" \
        --spring.data.redis.port="$REDIS_PORT" \
        --coupon.cache.mode="$mode" \
        --cdc.invalidation.bootstrap-servers="$KAFKA_BOOTSTRAP_SERVERS" \
        --cdc.invalidation.topic-prefix="$TOPIC_PREFIX" || return 1
  done
  i=0
  for port in $COUPON_PORTS; do
    i=$((i + 1))
    platform_await_app "coupon-service-$i" "$port" || return 1
  done
  bench_await_fresh $COUPON_PORTS
}

# Restarts ticket-orchestrator and waits for its health (the connector must be running: without the topics
# it reads, its health is DOWN): bench_start_ticket MODE [--property=value ...]
bench_start_ticket() {
  bench_launch_ticket "$@" && platform_await_app ticket-orchestrator "$TICKET_PORT"
}

# Starts (or restarts) ticket-orchestrator without waiting for it: bench_launch_ticket MODE [--property=value ...]
bench_launch_ticket() {
  local mode=$1; shift
  platform_stop_app ticket-orchestrator
  JAVA_TOOL_OPTIONS="-Xlog:gc:file=$BENCH_DIR/gc/ticket-$mode.log:uptime,level,tags ${JAVA_TOOL_OPTIONS:-}" \
  platform_launch_app ticket-orchestrator ticket-orchestrator "$TICKET_PORT" "$SERVICE_HEAP" \
      --spring.datasource.url="jdbc:mariadb://127.0.0.1:$MARIADB_PORT/ticket_db" \
      --spring.datasource.username="$MARIADB_APP_USER" --spring.datasource.password="$MARIADB_APP_PASSWORD" \
      --ticket.composition.mode="$mode" \
      --ticket.generator.enabled=true --ticket.generator.parking-lots="$TICKET_LOTS" \
      --ticket.generator.tickets-per-lot="$TICKET_PER_LOT" \
      --ticket.coupons.base-url="http://127.0.0.1:${COUPON_PORTS%% *}" \
      --cdc.invalidation.bootstrap-servers="$KAFKA_BOOTSTRAP_SERVERS" \
      --cdc.invalidation.topic-prefix="$TOPIC_PREFIX" "$@"
}

# Waits until each instance's health is UP (with the connector running, that includes the invalidation
# client proving it is caught up), so no run measures a cache that still bypasses itself.
bench_await_fresh() {
  local port
  for port in "$@"; do
    platform_wait_for "health UP on $port" 90 bench_health_up "$port" || bench_log "port $port not UP; measuring anyway"
  done
}

# The top-level status is the first or the last key of the health document, depending on the version.
bench_health_up() {
  local body
  body=$(curl -fsS --max-time 2 "http://127.0.0.1:$1/actuator/health" | tr -d '\n') || return 1
  echo "$body" | grep -Eq '^\{"status":"UP"|"status":"UP"\}$' || return 1
  # a component that is not UP (e.g. the invalidation client DEGRADED: not yet caught up) is not ready either
  ! echo "$body" | grep -Eq '"status":"(DOWN|DEGRADED|OUT_OF_SERVICE|UNKNOWN)"'
}

# CPU seconds (user + system) a process has used so far.
bench_cpu_seconds() {
  local pid=$1 ticks
  [ -r "/proc/$pid/stat" ] || { echo 0; return; }
  ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }'
}

# Sum of a Prometheus counter over its series on one instance: bench_counter PORT METRIC
bench_counter() {
  curl -fsS --max-time 5 "http://127.0.0.1:$1/actuator/prometheus" 2>/dev/null \
      | awk -v m="$2" '$1 == m || index($1, m "{") == 1 { s += $NF } END { printf "%.0f", s + 0 }'
}

# The cumulative bucket counts of a Prometheus histogram on one instance, summed over its series, one
# "le count" line per bucket: bench_buckets PORT METRIC (e.g. cdc_client_invalidation_lag_seconds)
bench_buckets() {
  curl -fsS --max-time 5 "http://127.0.0.1:$1/actuator/prometheus" 2>/dev/null \
      | awk -v m="$2_bucket{" 'index($1, m) == 1 { if (match($0, /le="[^"]*"/)) { le = substr($0, RSTART + 4, RLENGTH - 5); c[le] += $NF } }
                               END { for (le in c) print le, c[le] }'
}

# From two bench_buckets snapshots, the number of observations in between and the upper bound (ms) of the
# highest bucket any of them fell into: bench_bucket_delta BEFORE-FILE AFTER-FILE -> "count max_ms"
bench_bucket_delta() {
  awk 'NR == FNR { before[$1] = $2; next }
       { d = $2 - before[$1]; if ($1 != "+Inf") { n++; le[n] = $1 + 0; delta[n] = d } else total = d }
       END {
         max = -1
         # cumulative buckets: the smallest le holding every new observation bounds the largest one
         for (i = 1; i <= n; i++) if (delta[i] == total && (max < 0 || le[i] < max)) max = le[i]
         printf "%d %s\n", total, (total > 0 && max >= 0) ? sprintf("%.1f", max * 1000) : "?"
       }' "$1" "$2"
}

# Samples CPU and statement counters of the named apps: bench_sample APP:PORT:METRIC ... -> "key=value" lines
bench_sample() {
  local spec name port metric pid
  for spec in "$@"; do
    IFS=: read -r name port metric <<< "$spec"
    pid=$(platform_pid "$name")
    echo "$name.cpu_s=$(bench_cpu_seconds "${pid:-0}")"
    echo "$name.db_statements=$(bench_counter "$port" "$metric")"
  done
}

# Runs one simulation: bench_simulation CLASS RESULT_FILE SAMPLED_APPS -- [-Dname=value ...]
# SAMPLED_APPS is a space-separated list of APP:PORT:METRIC whose CPU time and statement counter are
# recorded before and after (as server.<app>.* in the result file). Returns Gatling's exit status
# (non-zero when an assertion failed, e.g. a failed request).
bench_simulation() {
  local class=$1 result=$2 apps=$3; shift 3; [ "${1:-}" = "--" ] && shift
  local name; name=$(basename "$result" .properties)
  local before after status report
  # shellcheck disable=SC2086
  before=$(bench_sample $apps)
  bench_log "simulation $class ($name) ..."
  local t0=$SECONDS load0; load0=$(cut -d' ' -f1-3 /proc/loadavg)
  # Gatling's main class directly, as the plugin's forked JVM runs it, without a Maven JVM per run (about 6
  # CPU-s each): its working directory the module's, the run description base64-encoded as Gatling reads it.
  # shellcheck disable=SC2086
  (cd "$BENCH_ROOT/gatling" && ${BENCH_LOADGEN_CPUS_SET:+taskset -c $BENCH_LOADGEN_CPUS_SET} java "${BENCH_GATLING_JVM[@]}" \
      -DjdbcUrl="$(bench_jdbc_url)" -DjdbcUser="${MARIADB_ADMIN_USER:-root}" -DjdbcPassword="${MARIADB_ADMIN_PASSWORD:-}" \
      -Dresults="$result" -Dlabel="$name" "$@" -cp "$(bench_simulation_classpath)" io.gatling.app.Gatling \
      -s "dev.cdccache.bench.simulation.$class" -rf "$BENCH_ROOT/gatling/target/gatling" \
      -rd "$(printf '%s' "$name" | base64 -w0)") > "$BENCH_DIR/logs/$name.gatling.log" 2>&1
  status=$?
  # shellcheck disable=SC2086
  after=$(bench_sample $apps)
  report=$(grep -o 'file://[^ ]*index.html' "$BENCH_DIR/logs/$name.gatling.log" | tail -1 | sed 's|^file://||')
  if [ -f "$result" ]; then
    {
      echo "run.gatling_exit=$status"
      echo "run.gatling_report=${report:-none}"
      echo "run.wall_s=$((SECONDS - t0))"
      echo "run.loadavg_before=$load0"
      echo "run.loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)"
      paste -d' ' <(echo "$before") <(echo "$after") | while read -r b a; do
        local key=${b%%=*} vb=${b#*=} va=${a#*=}
        echo "server.$key=$(awk -v x="$va" -v y="$vb" 'BEGIN { printf "%.2f", x - y }')"
      done
    } >> "$result"
  fi
  grep -E '^(coupon|ticket|mixed) .*\]:|Global.*KO|failed' "$BENCH_DIR/logs/$name.gatling.log" | head -5 >&2
  [ -n "$report" ] && bench_log "Gatling report: $report"
  return $status
}

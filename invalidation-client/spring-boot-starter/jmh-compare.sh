#!/usr/bin/env bash
# Runs the same JMH benchmarks for this checkout and for a baseline checkout alternately (A B, then B A, ...), so
# that load drift on a shared machine hits both builds alike, and prints every score (ns/op, µs/op for getAll).
# Each round runs one JMH invocation per build with all the selected benchmarks, bare Caffeine among them, so every
# ratio to bare Caffeine is taken within one run. A benchmark a build does not have is printed as "-".
# Usage (each checkout built as in docs/benchmarks.md, "Client"):
#   invalidation-client/spring-boot-starter/jmh-compare.sh <baseline spring-boot-starter dir> [rounds] [regex]
# JAVA_OPTS is passed to the JMH launcher (e.g. -Djmh.ignoreLock=true to run beside another JMH).
set -euo pipefail
cd "$(dirname "$0")"
baseline="$(cd "$1" && pwd)"
rounds="${2:-5}"
regex="${3:-(CacheHitBenchmark\.(bareCaffeineGetIfPresent|invalidatingCacheGetIfPresent|invalidatingCacheGetIfPresentEveryHitCheck|invalidatingCacheGetIfPresentScheduledCheck|springCaffeineCacheGet|springCdcCacheGet)|BulkLookupBenchmark\.getAll400AllHits)\$}"
current="$(pwd)"
out="$current/target/jmh-compare"
mkdir -p "$out"

run() { # <build name> <starter dir> <round>
  local dir="$2" json="$out/$1-$3.json"
  # JMH runs one benchmark at a time per machine (/tmp/jmh.lock): wait while another one runs.
  until (cd "$dir" && java ${JAVA_OPTS:-} -cp "target/test-classes:target/classes:$(cat target/jmh.classpath)" org.openjdk.jmh.Main \
      "$regex" -f 1 -wi 2 -i 3 -rf json -rff "$json" > "$out/$1-$3.log" 2>&1); do
    grep -q "Unable to acquire the JMH lock" "$out/$1-$3.log" || { cat "$out/$1-$3.log" >&2; exit 1; }
    sleep 5
  done
  # "benchmark" : "...Class.method", then the primary metric's "score" : x
  awk -v build="$1" -v round="$3" '
    /"benchmark"/ { gsub(/.*benchmark\.|",?/, ""); name = $0; primary = 0 }
    /"primaryMetric"/ { primary = 1 }
    /"score" :/ && primary { gsub(/.*: |,/, ""); printf "%s %s %s %s\n", round, build, name, $0; primary = 0 }
  ' "$json"
}

echo "round build benchmark score"
for round in $(seq 1 "$rounds"); do
  if (( round % 2 == 1 )); then
    run baseline "$baseline" "$round"; run current "$current" "$round"
  else
    run current "$current" "$round"; run baseline "$baseline" "$round"
  fi
done

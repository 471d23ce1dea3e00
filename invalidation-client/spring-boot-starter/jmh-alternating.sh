#!/usr/bin/env bash
# Runs the cache-hit benchmarks alternately in short JMH runs, so that load drift on a shared machine
# affects every benchmark alike, and prints each round's scores (ns/op). See docs/benchmarks.md.
# Usage (from the repository root, after the build command in docs/benchmarks.md):
#   invalidation-client/spring-boot-starter/jmh-alternating.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")"
rounds="${1:-6}"
benchmarks=(bareCaffeineGetIfPresent expiringCaffeineGetIfPresent invalidatingCacheGetIfPresent invalidatingCacheGetIfPresentServeStale
            invalidatingCacheGetIfPresentScheduledCheck invalidatingCacheGetIfPresentEveryHitCheck
            invalidatingCacheGetWithLoader
            springCaffeineCacheGet springCdcCacheGet springCdcCacheGetScheduledCheck springCdcCacheGetEveryHitCheck)
classpath="target/test-classes:target/classes:$(cat target/jmh.classpath)"
mkdir -p target/jmh-alt
echo "round ${benchmarks[*]}"
for round in $(seq 1 "$rounds"); do
  line="$round"
  for b in "${benchmarks[@]}"; do
    out="target/jmh-alt/$b-$round.json"
    java -cp "$classpath" org.openjdk.jmh.Main "CacheHitBenchmark.$b\$" -f 1 -wi 2 -i 3 -rf json -rff "$out" > /dev/null
    score=$(grep -m1 -A0 '"score"' "$out" | sed -E 's/.*"score" : ([0-9.]+).*/\1/')
    line="$line $score"
  done
  echo "$line"
done

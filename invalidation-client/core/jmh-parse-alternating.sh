#!/usr/bin/env bash
# Runs the envelope-parsing benchmarks alternately in short JMH runs with the GC profiler, so that load drift on
# a shared machine affects the old and the new parser alike, and prints each round's ns/op and B/op.
# See docs/benchmarks.md. Usage (from the repository root, after the build command in EnvelopeParseBenchmark):
#   invalidation-client/core/jmh-parse-alternating.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")"
rounds="${1:-5}"
benchmarks=(treeParse streamingAllColumns streamingKeyColumns)
classpath="target/test-classes:target/classes:$(cat target/jmh.classpath)"
mkdir -p target/jmh-parse
header="round"
for b in "${benchmarks[@]}"; do header="$header $b(ns/op) $b(B/op)"; done
echo "$header"
for round in $(seq 1 "$rounds"); do
  line="$round"
  for b in "${benchmarks[@]}"; do
    out="target/jmh-parse/$b-$round.json"
    java -cp "$classpath" org.openjdk.jmh.Main "EnvelopeParseBenchmark.$b\$" -f 1 -wi 3 -i 5 -prof gc \
        -rf json -rff "$out" > /dev/null
    score=$(grep -m1 '"score"' "$out" | sed -E 's/.*"score" : ([0-9.]+).*/\1/')
    bytes=$(grep -A1 '"gc.alloc.rate.norm"' "$out" | grep -m1 '"score"' | sed -E 's/.*"score" : ([0-9.]+).*/\1/')
    line="$line $score $bytes"
  done
  echo "$line"
done

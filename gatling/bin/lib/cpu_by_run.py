#!/usr/bin/env python3
"""CPU time of every process while something runs, summed per run directory.

    python3 gatling/bin/lib/cpu_by_run.py record OUT.json      # until SIGTERM or Ctrl-C
    python3 gatling/bin/lib/cpu_by_run.py summary OUT.json [NAME ...]

`record` reads /proc/<pid>/stat of every process every 0.5 s and keeps, per process (pid and start time),
its last user + system CPU seconds and its command line. A process that lives less than 0.5 s may be missed;
a process that started before the recording counts with all its CPU since it started.

`summary` sums the CPU seconds per NAME: a process counts for the first NAME that appears as a path segment of
its command line (the benchmark scripts put their run directory, e.g. .../smoke/compare-sql/..., into the
command line of every process they start). Without NAMEs it uses the scripts of gatling/bin/smoke. Within a
NAME it splits by kind of process (Kafka, connector, services, Gatling, Maven, MariaDB, ...).
"""
import collections
import json
import os
import signal
import sys
import time

import proc_stat

SMOKE_SCRIPTS = ["load-test", "lag-driver", "bulk-visibility", "run-simulation", "compare-sql",
                 "benchmark-report", "compare-modes"]


def record(out):
    seen = {}
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    try:
        while not stopping:
            for pid in filter(str.isdigit, os.listdir("/proc")):
                stat = proc_stat.read(pid)
                if stat is None:
                    continue  # the process ended meanwhile
                cpu, start = stat
                key = f"{pid}:{start}"  # pid and start time: a reused pid is another process
                if key in seen:
                    seen[key][0] = cpu
                    continue
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        seen[key] = [cpu, command_line(f.read())]
                except OSError:
                    pass  # the process ended meanwhile
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    with open(out, "w") as f:
        json.dump(seen, f)


def command_line(raw):
    """The arguments joined by spaces, a class path cut short: the main class and the options after it must stay."""
    args = raw.decode(errors="replace").split("\0")
    for i in range(1, len(args)):
        if args[i - 1] in ("-cp", "-classpath", "--class-path"):
            args[i] = args[i][:300] + "..."
    return " ".join(args)[:4000]


def kind(cmd):
    # Gatling and Maven first: their system properties name the services (-DcpuPids=coupon-service-1:...).
    # mvnw execs Maven in the same process, so a Maven JVM keeps the wrapper's command line.
    for needle, name in (("io.gatling.app.Gatling", "Gatling"), ("mvnw", "Maven"), ("/bin/mvn", "Maven"),
                         ("mariadbd", "mariadb"), ("redis-server", "redis"), ("InfraCommand", "stack (Kafka)"),
                         ("kafka.logs.dir", "stack (Kafka)"), ("cdc-connector", "connector"),
                         ("coupon.generate", "coupon generator"), ("coupon-service", "coupon-service"),
                         ("ticket-orchestrator", "ticket-orchestrator"), ("InvalidationLagDriver", "lag driver")):
        if needle in cmd:
            return name
    return os.path.basename(cmd.split(" ")[0]) or "other"


def summary(path, names):
    with open(path) as f:
        seen = json.load(f)
    names = names or SMOKE_SCRIPTS
    total = collections.Counter()
    split = collections.defaultdict(collections.Counter)
    for cpu, cmd in seen.values():
        name = next((n for n in names if f"/{n}/" in cmd or cmd.rstrip().endswith(f"/{n}")), None)
        if name is None:
            continue
        total[name] += cpu
        split[name][kind(cmd)] += cpu
    for name in names:
        parts = ", ".join(f"{k} {v:.1f}" for k, v in split[name].most_common())
        print(f"{name:20s} {total[name]:8.1f} CPU-s  ({parts})")
    print(f"{'all':20s} {sum(total.values()):8.1f} CPU-s")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "record":
        record(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "summary":
        summary(sys.argv[2], sys.argv[3:])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)

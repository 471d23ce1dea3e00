"""One round of gatling/bin/bulk-visibility.

Caches the probe coupons on every coupon-service instance, then, in one database session, updates every other row
of the coupon table in one transaction and renames the probes in the next. The probes are several, so that the
topic's partitions are likely all among theirs: a change waits for the rows ahead of it on its own partition.
Meanwhile it polls each instance for the probes (one bulk request; the time each first shows its new name) and for
its count of consumed events of the coupon topic (the time of its last increase is when that instance had applied
the whole round). Times are measured from the large UPDATE's commit, read from the database's clock on the same host.
With --cpu NAME=PID, it also samples each process's CPU time (user + system, /proc/PID/stat) and reports what
each used from just before the UPDATE until every instance had consumed the round: CPU per row changed, process by
process (connector, broker, database, each instance), since all of them share the host's cores.
"""
import argparse
import http.client
import json
import subprocess
import sys
import threading
import time

import proc_stat

NAME_POLL_S = 0.01
EVENTS_POLL_S = 0.05


def get(conn, path):
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        raise RuntimeError(f"GET {path}: HTTP {response.status}")
    return json.loads(body)


class Instance:
    def __init__(self, port, coupon_ids, topic):
        self.port = port
        self.coupon_path = "/coupons?ids=" + ",".join(str(i) for i in coupon_ids)
        self.events_path = f"/actuator/metrics/cdc.client.events?tag=topic:{topic}"
        self.seen = {}  # probe id -> first time its new name was served
        self.seen_at = None  # when every probe was served with its new name
        self.events_start = self.events()
        self.events_last = self.events_start
        self.events_changed_at = None
        self.errors = []

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)

    def names(self, conn):
        return {c["id"]: c["name"] for c in get(conn, self.coupon_path)}

    def events(self, conn=None):
        conn = conn or self.connection()
        conn.request("GET", self.events_path)
        response = conn.getresponse()
        body = response.read()
        if response.status == 404:  # the counter of a topic is registered with its first event
            return 0
        if response.status != 200:
            raise RuntimeError(f"GET {self.events_path}: HTTP {response.status}")
        return sum(m["value"] for m in json.loads(body)["measurements"] if m["statistic"] == "COUNT")

    def watch_name(self, new_name, probes, stop):
        conn = self.connection()
        while not stop.is_set():
            try:
                now = time.time()
                for probe, name in self.names(conn).items():
                    if name == new_name and probe not in self.seen:
                        self.seen[probe] = now
                if len(self.seen) == probes:
                    self.seen_at = max(self.seen.values())
                    return
            except Exception as e:  # keep polling: one failed request does not end the round
                self.errors.append(str(e))
                conn = self.connection()
            time.sleep(NAME_POLL_S)

    def watch_events(self, stop):
        conn = self.connection()
        while not stop.is_set():
            try:
                count = self.events(conn)
                if count != self.events_last:
                    self.events_last, self.events_changed_at = count, time.time()
            except Exception as e:
                self.errors.append(str(e))
                conn = self.connection()
            time.sleep(EVENTS_POLL_S)


CPU_POLL_S = 0.1


def cpu_seconds(pid):
    """User + system CPU seconds of a process so far, or None once it is gone."""
    stat = proc_stat.read(pid)
    return None if stat is None else stat[0]


class CpuSampler:
    """Samples the CPU time of named processes every CPU_POLL_S: (time, {name: seconds}) in order."""

    def __init__(self, processes):
        self.processes = processes  # name -> pid
        self.samples = []

    def sample(self):
        self.samples.append((time.time(), {n: cpu_seconds(pid) for n, pid in self.processes.items()}))

    def run(self, stop):
        while not stop.is_set():
            self.sample()
            time.sleep(CPU_POLL_S)

    def used(self, start, end):
        """Per name, the CPU seconds between the last sample at or before start and the first at or after end."""
        before = next((s for t, s in reversed(self.samples) if t <= start), None)
        after = next((s for t, s in self.samples if t >= end), None)
        if before is None or after is None:
            return {}
        return {n: after[n] - before[n] for n in self.processes
                if before.get(n) is not None and after.get(n) is not None}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ports", required=True)
    p.add_argument("--coupon-ids", required=True, help="the probe coupons, comma-separated")
    p.add_argument("--topic", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--round", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--settle", type=float, default=3, help="seconds without a new event that end the round")
    p.add_argument("--cpu", action="append", default=[], metavar="NAME=PID",
                   help="a process whose CPU time per row to report (repeatable)")
    p.add_argument("--sql", nargs=argparse.REMAINDER, required=True, help="the database client command")
    a = p.parse_args()
    processes = {}
    for spec in a.cpu:
        name, _, pid = spec.partition("=")
        if not name or not pid.isdigit():
            sys.exit(f"--cpu {spec}: NAME=PID expected")
        processes[name] = int(pid)

    probes = [int(i) for i in a.coupon_ids.split(",")]
    instances = [Instance(int(port), probes, a.topic) for port in a.ports.split()]
    for i in instances:  # cached on every instance before the change
        conn = i.connection()
        i.names(conn)
        if len(i.names(conn)) != len(probes):
            sys.exit(f"instance :{i.port} does not serve every probe coupon {probes}")
    new_name = f"bulk-visibility {a.config} round {a.round} {time.time():.6f}"
    stop = threading.Event()
    threads = [threading.Thread(target=i.watch_name, args=(new_name, len(probes), stop), daemon=True) for i in instances]
    threads += [threading.Thread(target=i.watch_events, args=(stop,), daemon=True) for i in instances]
    cpu = CpuSampler(processes)
    threads.append(threading.Thread(target=cpu.run, args=(stop,), daemon=True))
    for t in threads:
        t.start()
    time.sleep(2 * CPU_POLL_S)  # a CPU sample before the UPDATE
    sql_started = time.time()

    # The probes are left out of the large UPDATE: their entries must stay cached until the stream evicts them for
    # the probes' change (or a table-wide eviction), not be evicted early by their own rows of the large UPDATE.
    in_probes = ",".join(str(p) for p in probes)
    script = (f"UPDATE coupon SET issue_limit = issue_limit + 1 WHERE id NOT IN ({in_probes});"
              " SELECT ROW_COUNT(), UNIX_TIMESTAMP(NOW(6));"
              f" UPDATE coupon SET name = '{new_name}' WHERE id IN ({in_probes});"
              " SELECT UNIX_TIMESTAMP(NOW(6));")
    sql = subprocess.run(a.sql + ["-e", script], capture_output=True, text=True)
    if sql.returncode != 0:
        stop.set()
        sys.exit(f"the database client failed: {sql.stderr.strip()}")
    lines = sql.stdout.split("\n")
    rows, bulk_commit = lines[0].split("\t")
    row_commit = float(lines[1])
    bulk_commit = float(bulk_commit)

    deadline = time.time() + a.timeout
    settled = False
    while time.time() < deadline:
        settled = all(i.events_changed_at is not None and time.time() - i.events_changed_at >= a.settle
                      for i in instances)
        if settled and all(i.seen_at is not None for i in instances):
            break
        time.sleep(0.1)
    cpu.sample()
    stop.set()

    ms = lambda t: "" if t is None else f"{(t - bulk_commit) * 1000:.0f}"
    figures = {
        "config": a.config, "round": a.round, "rows": rows, "probes": len(probes),
        # the large UPDATE's commit, in seconds since the epoch by the database's clock; every *.ms is from it
        "bulk.commit.epoch.s": f"{bulk_commit:.6f}",
        "probes.commit.ms": f"{(row_commit - bulk_commit) * 1000:.0f}",
    }
    ok = settled
    for i in instances:
        events = i.events_last - i.events_start
        consumed = None if i.events_changed_at is None else i.events_changed_at - bulk_commit
        figures[f"instance.{i.port}.served.first.probe.ms"] = ms(min(i.seen.values()) if i.seen else None)
        figures[f"instance.{i.port}.served.all.probes.ms"] = ms(i.seen_at)
        figures[f"instance.{i.port}.events"] = f"{events:.0f}"
        figures[f"instance.{i.port}.consumed.ms"] = ms(i.events_changed_at)
        # events over the time to consume them: the end-to-end rate only when every row arrived as an event
        figures[f"instance.{i.port}.events.per.s"] = f"{events / consumed:.0f}" if consumed and consumed > 0 else ""
        figures[f"instance.{i.port}.poll.errors"] = str(len(i.errors))
        ok = ok and i.seen_at is not None and events > 0
    consumed_at = [i.events_changed_at for i in instances]
    if processes and None not in consumed_at:
        used = cpu.used(sql_started, max(consumed_at))
        changed = int(rows) if rows.isdigit() else 0
        for name, seconds in used.items():
            figures[f"cpu.{name}.s"] = f"{seconds:.2f}"
            figures[f"cpu.{name}.us.per.row"] = f"{seconds * 1e6 / changed:.1f}" if changed else ""
        if used and changed:
            figures["cpu.all.us.per.row"] = f"{sum(used.values()) * 1e6 / changed:.1f}"
            figures["cpu.window.s"] = f"{max(consumed_at) - sql_started:.2f}"
    with open(a.out, "w") as f:
        for k, v in figures.items():
            f.write(f"{k}={v}\n")
    visible = ", ".join(f":{i.port} {ms(min(i.seen.values())) if i.seen else 'never'}-{ms(i.seen_at) or 'never'} ms"
                        for i in instances)
    consumed = ", ".join(f":{i.port} {i.events_last - i.events_start:.0f} events by {ms(i.events_changed_at) or '?'} ms"
                         for i in instances)
    print(f"{a.config} round {a.round}: {rows} rows updated; the {len(probes)} probes' change was committed"
          f" {figures['probes.commit.ms']} ms after them and served (first-last probe) by {visible};"
          f" consumed: {consumed}", flush=True)
    if "cpu.all.us.per.row" in figures:
        per = ", ".join(f"{n} {figures[f'cpu.{n}.us.per.row']}" for n in processes if f"cpu.{n}.us.per.row" in figures)
        print(f"  CPU per row changed, in us, until every instance had consumed the round: {per};"
              f" all {figures['cpu.all.us.per.row']} over {figures['cpu.window.s']} s", flush=True)
    if not ok:
        sys.exit("the probes' change was not served by every instance, an instance consumed no event, or the event"
                 f" counts had not settled for {a.settle:.0f} s, within {a.timeout:.0f} s")


def summary(results_dir):
    """Per configuration, over its rounds: the later instance's figures, median (min-max)."""
    import glob
    import statistics
    rounds = {}
    for path in sorted(glob.glob(f"{results_dir}/round-*.properties")):
        with open(path) as f:
            p = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
        ports = sorted({k.split(".")[1] for k in p if k.startswith("instance.")})
        try:
            served = max(float(p[f"instance.{x}.served.all.probes.ms"]) for x in ports)
            consumed = max(float(p[f"instance.{x}.consumed.ms"]) for x in ports)
            events = min(float(p[f"instance.{x}.events"]) for x in ports)
        except (KeyError, ValueError):
            continue  # a failed round: its file says what is missing
        cpu = {k[len("cpu."):-len(".us.per.row")]: float(v) for k, v in p.items()
               if k.startswith("cpu.") and k.endswith(".us.per.row") and v}
        rounds.setdefault(p["config"], []).append((served / 1000, consumed / 1000, events, cpu))
    fmt = lambda xs, unit: (f"{statistics.median(xs):.2f}{unit} ({min(xs):.2f}-{max(xs):.2f})")
    print("configuration | rounds | served by both instances (last probe) | all consumed | events per s (all rows as"
          " events only)")
    for config, rs in rounds.items():
        served = [r[0] for r in rs]
        consumed = [r[1] for r in rs]
        rates = [r[2] / r[1] for r in rs if r[1] > 0]
        print(f"{config} | {len(rs)} | {fmt(served, ' s')} | {fmt(consumed, ' s')} | "
              f"{statistics.median(rates):.0f} ({min(rates):.0f}-{max(rates):.0f})")
    cpu_rows = [(config, rs) for config, rs in rounds.items() if any(r[3] for r in rs)]
    if cpu_rows:
        print()
        print("CPU per row changed (us, user + system), from the UPDATE until every instance had consumed the round:"
              " median (min-max)")
        for config, rs in cpu_rows:
            names = [n for n in rs[0][3] if all(n in r[3] for r in rs)]
            per = lambda xs: f"{statistics.median(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})"
            print(f"{config}: " + "; ".join(f"{n} {per([r[3][n] for r in rs])}" for n in names))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--summary":
        summary(sys.argv[2])
    else:
        main()

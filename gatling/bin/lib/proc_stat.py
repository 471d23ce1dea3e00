"""CPU time of a process from /proc/<pid>/stat, for the benchmark helpers that sample it (bulk_round.py,
cpu_by_run.py)."""
import os

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def read(pid):
    """(user + system CPU seconds so far, start time in clock ticks since boot) of a process, or None once it is gone.

    The start time tells a process from a later one that got the same pid."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            # the fields after the command name, which is in parentheses and may hold spaces
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS, int(fields[19])
    except (OSError, IndexError, ValueError):
        return None

#!/usr/bin/env python3
"""The CPU that processes outside a publication use while it runs.

    other-cpu.py ROOT_PID OUT_CSV [INTERVAL_S]

Every INTERVAL_S seconds (default 2) reads /proc: the CPU time (user and system) of every process
that does not descend from ROOT_PID (publish.sh), summed over the intervals it was seen in, and the
time the hypervisor took from this machine's CPUs for others (steal, /proc/stat). OUT_CSV gets a
line per sample: seconds since the start, the other processes' CPU-seconds so far (steal
included), and the 1-minute load average. publish.sh divides the CPU-seconds others used during a
part by the part's seconds: the cores others took from it.

A foreign process that starts and ends between two samples is missed (a compiler's seconds, a
short command): what others use is undercounted, never overcounted. Processes of other PID
namespaces are counted only through the CPUs' steal time.
"""

import os
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def processes():
    """{pid: (ppid, cpu ticks, start ticks)} of every visible process."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        # the command (field 2) may hold spaces and parentheses: split after its last ')'
        fields = stat[stat.rindex(")") + 2 :].split()
        ppid = int(fields[1])
        cpu = int(fields[11]) + int(fields[12])  # utime, stime
        start = int(fields[19])
        out[int(name)] = (ppid, cpu, start)
    return out


def ours(procs, root):
    """The pids that descend from root (root included)."""
    children = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    seen = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(children.get(pid, ()))
    return seen


def steal():
    with open("/proc/stat") as f:
        cpu = f.readline().split()
    return int(cpu[8]) if len(cpu) > 8 else 0


def uptime_ticks():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0]) * TICK


def main():
    root = int(sys.argv[1])
    out = sys.argv[2]
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    t0 = time.monotonic()
    before = processes()
    steal0 = steal()
    last_uptime = uptime_ticks()
    other = 0
    with open(out, "w") as f:
        f.write("seconds,other_cpu_seconds,load1\n")
        f.flush()
        while True:
            time.sleep(interval)
            now = processes()
            mine = ours(now, root)
            for pid, (_, cpu, start) in now.items():
                if pid in mine:
                    continue
                was = before.get(pid)
                if was is not None and was[2] == start:
                    other += max(0, cpu - was[1])
                elif start >= last_uptime:
                    other += cpu  # started since the last sample
            before = now
            last_uptime = uptime_ticks()
            with open("/proc/loadavg") as la:
                load1 = la.read().split()[0]
            others = (other + steal() - steal0) / TICK
            f.write("%.1f,%.2f,%s\n" % (time.monotonic() - t0, others, load1))
            f.flush()
            if not os.path.exists("/proc/%d" % root):
                return


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass

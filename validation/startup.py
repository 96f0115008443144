#!/usr/bin/python3
"""Start-up: the fixed cost of a rodsim process that reads and writes no
video, as whole processes, with the shared libraries the program loads.

usage: validation/startup.py [--rodsim build/rodsim] [--before OTHER/rodsim]
           [--runs 50]

Prints a Markdown table, one row a command: `rodsim --version`, `rodsim
keys`, `rodsim bench` and `rodsim run` of the weight release to its first step
(its static state and one step; run also makes the file, writes the step
and closes it: run less bench is the file's fixed cost; with and without
the XDMF description beside it), and
`rodsim sweep` of one such case (what each process of a sweep pays
before its cases); then the number of shared libraries (ldd) and the
dynamic loader's own time (LD_DEBUG=statistics, in cycles). Each time is
the best of --runs runs after 3 warm-ups, wall time and in brackets CPU
time (user + system), the binaries of a command taking turns, so that
the machine's load touches them alike.
"""
import argparse
import os
import re
import shlex
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCEN = os.path.join(ROOT, "data", "scenarios", "weight_release.ini")


def best_times(commands, runs, prepare=None):
    """Each command run `runs` times after 3 warm-ups, the commands taking
    turns (so that the machine's load touches them alike): the least wall
    time and the least CPU time (user + system) of each, in s."""
    wall = [float("inf")] * len(commands)
    cpu = [float("inf")] * len(commands)
    for i in range(runs + 3):
        for k, cmd in enumerate(commands):
            if prepare:
                subprocess.run(prepare, shell=True, check=True)
            t0 = time.perf_counter()
            p = subprocess.Popen(shlex.split(cmd), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            t = time.perf_counter() - t0
            if status != 0:
                raise SystemExit(f"startup.py: {cmd}: exit status {status}")
            if i >= 3:
                wall[k] = min(wall[k], t)
                cpu[k] = min(cpu[k], ru.ru_utime + ru.ru_stime)
    return wall, cpu


def libraries(exe):
    p = subprocess.run(["ldd", exe], capture_output=True, text=True)
    return sum(1 for line in p.stdout.splitlines() if "=>" in line)


def loader_cycles(exe):
    env = dict(os.environ, LD_DEBUG="statistics")
    p = subprocess.run([exe, "--version"], capture_output=True, text=True,
                       env=env)
    m = re.search(r"total startup time in dynamic loader: (\d+)", p.stderr)
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rodsim", default=os.path.join(ROOT, "build", "rodsim"))
    ap.add_argument("--before", help="a second rodsim to compare")
    ap.add_argument("--runs", type=int, default=50)
    a = ap.parse_args()
    bins = [("after", a.rodsim)] + ([("before", a.before)] if a.before else [])
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        one = f"{SCEN} --set time.duration=0.002"
        rows = [
            ("rodsim --version", "{exe} --version", None),
            ("rodsim keys", "{exe} keys", None),
            ("rodsim bench, one step (no file)", f"{{exe}} bench {one}",
             None),
            ("rodsim run, one step", f"{{exe}} run {one} -o "
             f"{scratch}/{{label}}.h5 -q", None),
            ("rodsim run, one step, output.xdmf = false",
             f"{{exe}} run {one} --set output.xdmf=false -o "
             f"{scratch}/{{label}}.h5 -q", None),
            ("rodsim sweep, one case of one step",
             f"{{exe}} sweep {one} -o {scratch}/sweep-{{label}} "
             f"--vary tip.mass=0.02 --threads 1",
             f"rm -rf {scratch}/sweep-after {scratch}/sweep-before"),
        ]
        head = "| command | " + " | ".join(label for label, _ in bins) + " |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for name, cmd, prepare in rows:
            cmds = [cmd.format(exe=exe, label=label) for label, exe in bins]
            wall, cpu = best_times(cmds, a.runs, prepare)
            print(f"| {name} | " +
                  " | ".join(f"{w * 1e3:.1f} ms ({c * 1e3:.1f} ms)"
                             for w, c in zip(wall, cpu)) + " |")
        print("| shared libraries (ldd) | " +
              " | ".join(str(libraries(exe)) for _, exe in bins) + " |")
        print("| dynamic loader, --version (cycles) | " +
              " | ".join(f"{loader_cycles(exe) / 1e6:.1f} M"
                         for _, exe in bins) + " |")
    print(f"\nbest of {a.runs}; load average (1 min) {load0:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

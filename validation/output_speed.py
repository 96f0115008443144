#!/usr/bin/python3
"""Output at the solver's pace: `rodsim run` of every shipped scenario at
default settings against `rodsim bench` of the same file (which writes
nothing), as whole processes, with the size of each run's file.

usage: validation/output_speed.py [--rodsim build/rodsim]
           [--before OTHER/rodsim] [--runs 10] [--cpus LIST]
           [--set KEY=VALUE]...

Prints a Markdown table: bench's wall time, run's wall time and its ratio
to bench's, the median over the rounds of that ratio within a round (the
steadier figure when the machine's speed swings), the file's size, and the same for a second binary (--before,
e.g. a build of an earlier commit), with the machine's load before and
after. Each time is the best of --runs runs after one warm-up (the
others were slowed by whatever else the machine did); a scenario's
commands are taken in turn within each round, in an order drawn anew
each round, so that the machine's speed, which drifts by 10 to 25% from
one minute to the next on a shared machine, falls on all of them alike
(timing all of one command's runs before the other's puts that drift
into the ratio), and so that each command starts on either core (the
system starts successive processes on alternate cores, which at times
differ in speed by 25%). The ratio of a run of tens of milliseconds still varies by about
10% from one call to the next (docs/hdf5.md). pendulum_post takes 3
runs. --cpus 0 runs everything on one core (taskset): then run's time
over bench's is the writer's whole work.
"""
import argparse
import glob
import math
import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wall_time(command):
    """Wall time (s) of one process, its output discarded."""
    t = time.perf_counter()
    subprocess.run(shlex.split(command), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def round_times(commands, runs):
    """Wall times of each command in `runs` rounds after a warm-up round
    (times[r][i]), the commands taken in turn within each round, in an
    order drawn anew for each round: the system starts successive
    processes on alternate cores, and a fixed order of two commands put
    bench on one core and run on the other every time (the two virtual
    cores of this machine differ by up to 25% at times)."""
    times = []
    order = list(range(len(commands)))
    draw = random.Random(1)
    for r in range(runs + 1):
        draw.shuffle(order)
        row = [0.0] * len(commands)
        for i in order:
            row[i] = wall_time(commands[i])
        if r > 0:
            times.append(row)
    return times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rodsim", default=os.path.join(ROOT, "build", "rodsim"))
    ap.add_argument("--before", help="a second rodsim to compare")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--cpus", help="taskset's list of cores")
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    sets = " ".join(f"--set {s}" for s in a.set)
    pin = f"taskset -c {a.cpus} " if a.cpus else ""
    bins = [("after", a.rodsim)] + ([("before", a.before)] if a.before else [])
    load0 = os.getloadavg()[0]
    head = "| scenario | bench wall | " + " | ".join(
        f"run {n} | run/bench {n} | median of the rounds' run/bench {n} | "
        f"file {n}" for n, _ in bins) + " |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    with tempfile.TemporaryDirectory() as scratch:
        for ini in sorted(glob.glob(os.path.join(ROOT, "data/scenarios",
                                                 "*.ini"))):
            name = os.path.basename(ini)[:-4]
            runs = 3 if name == "pendulum_post" else a.runs
            cmds = [f"{pin}{a.rodsim} bench {ini} {sets}"]
            for label, exe in bins:
                h5 = os.path.join(scratch, f"{label}.h5")
                cmds.append(f"{pin}{exe} run {ini} {sets} -o {h5} -q")
            rounds = round_times(cmds, runs)
            best = [min(row[i] for row in rounds) for i in range(len(cmds))]
            bench = best[0]
            cells = [name, f"{bench:.3f} s"]
            for k, (label, _) in enumerate(bins, start=1):
                size = os.path.getsize(os.path.join(scratch, f"{label}.h5"))
                paired = statistics.median(row[k] / row[0] for row in rounds)
                cells += [f"{best[k]:.3f} s", f"{best[k] / bench:.2f}",
                          f"{paired:.2f}", f"{size / 1e6:.2f} MB"]
            print("| " + " | ".join(cells) + " |")
            sys.stdout.flush()
    print(f"\nbest of {a.runs} (pendulum_post 3), and the median over the "
          "rounds of run's time over bench's in the same round; "
          f"load average (1 min) "
          f"{load0:.1f} before, {os.getloadavg()[0]:.1f} after; "
          f"{os.cpu_count()} cores" + (f", run on cores {a.cpus}"
                                       if a.cpus else ""))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The speed table of docs/numerics.md: rodsim bench, best of several runs.

usage: validation/speed.py [--rodsim build/rodsim] [--repeat 7]

Runs `rodsim bench` on each configuration below REPEAT times, keeps the run
with the highest real-time ratio (simulated time / wall time of the whole
run; the others were slowed by whatever else the machine did), and prints a
Markdown table with the machine, its load and the date. The solver's effort
(iterations and integrations per step) does not depend on the machine's
load; the ratio does, so read it with the load printed beside it. On a
busy machine, run it at real-time priority (as root: `chrt -f 1
/usr/bin/python3 validation/speed.py`) so that each run keeps a core.
"""
import argparse
import csv
import io
import os
import subprocess
import time

SCEN = "data/scenarios"

# (label, scenario, --set overrides, dt)
CONFIGS = [
    ("weight release (RK4, auto: 49 nodes, 2 ms, alpha -0.48)",
     "weight_release.ini", [], 2e-3),
    ("weight release on the paper's 100 nodes",
     "weight_release.ini", ["space.nodes=100"], 2e-3),
    ("Cosserat anchor (Euler, 40 nodes, 2 ms, alpha -0.2)",
     "cosserat_cantilever.ini", [], 2e-3),
    ("impulse at 2 ms (auto: 62 nodes)", "impulse.ini", [], 2e-3),
    ("impulse at 2 ms on the paper's 100 nodes", "impulse.ini",
     ["space.nodes=100"], 2e-3),
    ("weight release, 3D equations (`solver.planar=off`)",
     "weight_release.ini", ["solver.planar=off"], 2e-3),
    ("weight release, simple shooting only (`solver.strategy=simple`)",
     "weight_release.ini", ["solver.strategy=simple"], 2e-3),
    ("weight release, modified shooting only (`solver.strategy=modified`)",
     "weight_release.ini", ["solver.strategy=modified"], 2e-3),
    ("weight release at 0.1 ms (auto: 216 nodes)", "weight_release.ini", [],
     1e-4),
    ("impulse at 0.1 ms (auto: 273 nodes)", "impulse.ini", [], 1e-4),
]


def bench(rodsim, scenario, sets, dt):
    # the solver alone: without the run's error estimate (its companion
    # at twice the step, docs/numerics.md)
    cmd = [rodsim, "bench", os.path.join(SCEN, scenario), "--dt", repr(dt),
           "--set", "time.error_estimate=false"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, check=True, capture_output=True,
                         text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))[0]


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}"


def table(rodsim, repeat, configs=CONFIGS):
    """The speed table as Markdown lines."""
    load0 = os.getloadavg()[0]
    rows = []
    for label, scenario, sets, dt in configs:
        runs = [bench(rodsim, scenario, sets, dt) for _ in range(repeat)]
        rows.append((label, max(runs,
                                key=lambda r: float(r["realtime_ratio"]))))
    load1 = os.getloadavg()[0]
    md = ["| configuration | real-time ratio | integrations/step | "
          "iterations/step |", "|---|---|---|---|"]
    for label, r in rows:
        x = float(r["realtime_ratio"])
        ratio = f"{x:.0f}" if x >= 100 else f"{x:#.3g}"
        md.append(f"| {label} | {ratio}x | "
                  f"{float(r['integrations_per_step']):.2f} | "
                  f"{float(r['mean_iterations']):.2f} |")
    runs = f"{repeat} runs" if repeat != 1 else "1 run"
    md.append(f"\n`validation/speed.py`, best of {runs} each, "
              f"{time.strftime('%Y-%m-%d %H:%M')}, {machine()}, 1-minute "
              f"load average {load0:.1f} before and {load1:.1f} after.")
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rodsim", default="build/rodsim")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    print("\n".join(table(a.rodsim, a.repeat)))


if __name__ == "__main__":
    main()

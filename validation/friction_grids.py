"""Coulomb friction on the Kirchhoff rod on fine grids and in stiff steps
(docs/contact.md, "Friction on fine grids"): rod_on_table.ini at rest on a
table with friction, the same with its clamp turned about the table's
normal (the lying nodes slide), cantilever_table.ini striking the table
with friction, and the block on an incline (the tip propped on a table
5 mm below the clamp, pulled sideways by Py = 3 mN cut at t = 0: it sticks
for mu > Py / N and slides below), on 60, 120 and 190 nodes at dt = 2, 1,
0.5 and 0.25 ms. Each run: its exit status, the steps completed, the
deepest node and the largest gap of a pushing node against the contact
tolerance, the integrations per step and the largest friction force over
its cone; the incline: the tip's move.

usage: python3 validation/friction_grids.py [--exe build/rodsim]
       [--only table,turn,cant,incline] [--timeout S]
Prints markdown tables; writes only into a temporary directory it removes.
Takes about an hour (the stiff steps with friction cost 2000 to 5000
integrations each).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rodlib import load  # noqa: E402

SCEN = "data/scenarios"
NODES = (60, 120, 190)
DTS = (2e-3, 1e-3, 5e-4, 2.5e-4)
R_ROD = 0.71e-3  # m
PY = 3e-3  # N: the incline's string


def run(exe, scratch, scenario, sets, timeout, static=False):
    """The run's exit status, its last stderr line and its file (or None)."""
    out = os.path.join(scratch, "run.h5")
    if os.path.exists(out):
        os.remove(out)
    cmd = [exe, "static" if static else "run", scenario, "-o", out, "--quiet",
           "--set", "solver.backend=kirchhoff"]
    for s in sets:
        cmd += ["--set", s]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
        rc, err = p.returncode, (p.stderr.strip().splitlines() or [""])[-1]
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    return rc, err, (load(out) if os.path.exists(out) else None)


def measures(d, plane_z, mu):
    """Steps, deepest node, largest gap of a pushing node (m), integrations
    per step, the largest friction force over mu times its normal force."""
    F, P = d["/contact/force"], d["/rod/position"]
    act = F[:, :, 2] > 0
    gap = P[:, :, 2] - plane_z - R_ROD
    ft = np.hypot(F[:, :, 0], F[:, :, 1])
    cone = (ft[act] / (mu * F[:, :, 2][act])).max() if mu > 0 and act.any() \
        else 0.0
    steps = len(d["/time"]) - 1
    return (steps, max(0.0, -d["/contact/gap_min"].min()),
            gap[act].max() if act.any() else 0.0,
            d["/solver/integrations"][1:].sum() / max(steps, 1), cone)


def row(label, rc, err, d, want, plane_z, mu):
    if d is None:
        return f"| {label} | {rc} | 0 / {want} | | | | | {err} |"
    steps, deep, lift, ips, cone = measures(d, plane_z, mu)
    why = "" if rc == 0 else err.split(": ", 2)[-1][:60]
    return (f"| {label} | {rc} | {steps} / {want} | {deep:.2g} | {lift:.2g} "
            f"| {ips:.0f} | {cone:.4f} | {why} |")


HEAD = ("| case | exit | steps | deepest (m) | pushing node's gap (m) "
        "| integrations a step | friction / cone | |\n"
        "|---|---|---|---|---|---|---|---|")


def steps_for(dt):
    return 25 if dt >= 1e-3 else 40


def table(a, scratch, turn):
    print(HEAD)
    for mu in (0.3, 0.5):
        for n in NODES:
            for dt in DTS:
                k = 10 if turn else steps_for(dt)
                sets = [f"space.nodes={n}", f"time.dt={dt}",
                        f"time.duration={k * dt}", f"plane.friction={mu}"]
                if turn:
                    sets += ["motor.axis=0 0 1", "motor.angle=0.002",
                             f"motor.ramp={k * dt}"]
                rc, err, d = run(a.exe, scratch, f"{SCEN}/rod_on_table.ini",
                                 sets, a.timeout)
                print(row(f"mu {mu}, {n} nodes, {dt * 1e3:g} ms", rc, err, d,
                          k, 0.0, mu), flush=True)


def cant(a, scratch):
    print(HEAD)
    for mu in (0.3, 0.5):
        for n in NODES:
            for dt in DTS:
                k = round(0.15 / dt)
                rc, err, d = run(a.exe, scratch,
                                 f"{SCEN}/cantilever_table.ini",
                                 [f"space.nodes={n}", f"time.dt={dt}",
                                  "time.duration=0.15",
                                  f"plane.friction={mu}"], a.timeout)
                print(row(f"mu {mu}, {n} nodes, {dt * 1e3:g} ms", rc, err, d,
                          k, -0.05, mu), flush=True)


def incline(a, scratch):
    inc = ["rod.drag=0", "plane.point=0 0 -0.005", f"tip.preload=0 {PY} 0"]
    print("| nodes | dt (ms) | N (N) | tip's move in 20 steps (m), mu = 1.2, "
          "1.02, 0.98, 0.8 Py / N | integrations a step |\n"
          "|---|---|---|---|---|")
    for n in NODES:
        rc, err, d = run(a.exe, scratch, f"{SCEN}/cantilever_table.ini",
                         inc + [f"space.nodes={n}"], a.timeout, static=True)
        N = d["/contact/force"][0, :, 2].sum()
        for dt in DTS:
            moves, ips = [], []
            for ratio in (1.2, 1.02, 0.98, 0.8):
                rc, err, d = run(a.exe, scratch,
                                 f"{SCEN}/cantilever_table.ini",
                                 inc + [f"space.nodes={n}", f"time.dt={dt}",
                                        f"time.duration={20 * dt}",
                                        f"plane.friction={ratio * PY / N}"],
                                 a.timeout)
                P = d["/rod/position"]
                moves.append(f"{abs(P[-1, -1, 1] - P[0, -1, 1]):.2g}"
                             + ("" if rc == 0 else f" (exit {rc})"))
                ips.append(f"{d['/solver/integrations'][1:].mean():.0f}")
            print(f"| {n} | {dt * 1e3:g} | {N:.5g} | {', '.join(moves)} "
                  f"| {', '.join(ips)} |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--exe", default="build/rodsim")
    p.add_argument("--only", default="table,turn,cant,incline")
    p.add_argument("--timeout", type=float, default=900)
    a = p.parse_args()
    a.exe = os.path.abspath(a.exe)
    scratch = tempfile.mkdtemp(prefix="rodsim_friction_")
    try:
        for part in a.only.split(","):
            print(f"\n{part}\n")
            if part in ("table", "turn"):
                table(a, scratch, part == "turn")
            elif part == "cant":
                cant(a, scratch)
            elif part == "incline":
                incline(a, scratch)
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()

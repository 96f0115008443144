"""Fine time steps of the Kirchhoff rod through impacts (docs/contact.md,
"Fine steps"): cantilever_table.ini on the Kirchhoff rod without air drag,
restitution 0, 0.3 s, at dt = 125, 62.5 and 31.25 us (auto nodes). Each
run: its exit status and last message, the steps, the struck steps, the
largest change of the mechanical energy over a step where a force pushes
at its start or end (never positive), the deepest node below the table
against the contact tolerance, the energy at the end, and the tip's
largest distance to the next finer dt's at the coarser one's samples up
to t = 0.05, 0.1 and 0.3 s.

usage: python3 validation/fine_steps.py [--exe build/rodsim]
       [--dts 1.25e-4,6.25e-5,3.125e-5] [--drag] [--restitution E]
Prints a markdown table; writes only into a temporary directory it
removes. Takes about 3 minutes (31.25 us: 9600 steps on 385 nodes).
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

CANT = "data/scenarios/cantilever_table.ini"
TABLE_Z = -0.05 + 0.71e-3  # m: the rod's axis on the table
TOL = 1e-8 * 0.408  # m: the contact tolerance, solver.tolerance x length


def run(a, scratch, dt):
    out = os.path.join(scratch, f"fine_{dt}.h5")
    cmd = [a.exe, "run", CANT, "-o", out, "--quiet",
           "--set", "solver.backend=kirchhoff", "--set", "time.duration=0.3",
           "--set", f"time.dt={dt}", "--set", "output.every=1",
           "--set", f"plane.restitution={a.restitution}"]
    if not a.drag:
        cmd += ["--set", "rod.drag=0"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    last = (p.stderr.strip().splitlines() or [""])[-1]
    return p.returncode, last, load(out) if os.path.exists(out) else None


def measures(d):
    """Steps, struck steps, the largest energy change over a contact step
    (J), the deepest node below the table (m), the energy at the end
    (J)."""
    E = d["/energy/kinetic"] + d["/energy/elastic"] + d["/energy/gravity"]
    act = d["/contact/active"].astype(bool)
    pushed = act.any(axis=1)
    contact = pushed[1:] | pushed[:-1]
    dE = np.diff(E)
    struck = int((act[1:] & ~act[:-1]).any(axis=1).sum())
    deepest = -(d["/rod/position"][:, :, 2] - TABLE_Z).min()
    rise = dE[contact].max() if contact.any() else float("nan")
    return len(E) - 1, struck, rise, deepest, E[-1]


def tip_distance(c, f, until):
    """The largest distance (m) of the tip of run c to that of the finer
    run f at c's samples up to t = until."""
    tc, tf = c["/time"], f["/time"]
    j = np.searchsorted(tf, tc - 1e-12)
    ok = (j < len(tf)) & (tc <= until + 1e-12)
    ok[ok] &= np.abs(tf[j[ok]] - tc[ok]) < 1e-9
    d = c["/tip/position"][ok] - f["/tip/position"][j[ok]]
    return np.linalg.norm(d, axis=1).max()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--exe", default="build/rodsim")
    p.add_argument("--dts", default="1.25e-4,6.25e-5,3.125e-5")
    p.add_argument("--drag", action="store_true")
    p.add_argument("--restitution", type=float, default=0.0)
    a = p.parse_args()
    a.exe = os.path.abspath(a.exe)
    dts = [float(x) for x in a.dts.split(",")]
    scratch = tempfile.mkdtemp(prefix="rodsim_fine_")
    try:
        runs = [run(a, scratch, dt) for dt in dts]
        print("| dt (us) | nodes | exit | steps | struck | largest dE in a "
              "contact step (J) | deepest (m) | E(end) (J) | tip to next, "
              "0.05 / 0.1 / 0.3 s (m) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for i, (dt, (rc, last, d)) in enumerate(zip(dts, runs)):
            if d is None:
                print(f"| {dt * 1e6:g} | | {rc} ({last}) | | | | | | |")
                continue
            steps, struck, rise, deep, Eend = measures(d)
            nxt = runs[i + 1][2] if i + 1 < len(runs) else None
            tip = " / ".join(f"{tip_distance(d, nxt, T):.1e}"
                             for T in (0.05, 0.1, 0.3)) if nxt else ""
            status = f"{rc}" if rc == 0 else f"{rc} ({last})"
            print(f"| {dt * 1e6:g} | {d['/rod/s'].size} | {status} | {steps} "
                  f"| {struck} | {rise:.1e} | {deep:.1e} | {Eend:.3e} | "
                  f"{tip} |")
        print(f"\nThe contact tolerance: {TOL:.3g} m.")
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()

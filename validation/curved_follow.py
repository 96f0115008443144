"""A point contact on a curved body followed by a grid node in time
(docs/contact.md, "Point contacts on curved bodies"): pendulum_post.ini on
the Kirchhoff rod, its post a capsule, with space.follow_contact true and
false, on 49 nodes at dt = 2 ms and on 49, 98, 196 nodes at 0.5 ms. Each
run's tip against two references on 392 nodes at 0.25 ms (one on the fixed
grid, one following): the largest distance up to t = 0.49 s (through the
first impact, at 0.482 s) and over the whole 1.5 s, and the integrations a
step.

usage: python3 validation/curved_follow.py [--exe build/rodsim]
Prints a markdown table; writes only into a temporary directory it
removes. Takes about 2 minutes (the references: 6000 steps on 392 nodes).
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

POST = "data/scenarios/pendulum_post.ini"
RUNS = [(49, 2e-3), (49, 5e-4), (98, 5e-4), (196, 5e-4)]
REF = (392, 2.5e-4)
WINDOWS = (0.49, 1.5)


def run(a, scratch, nodes, dt, follow):
    out = os.path.join(scratch, f"post_{nodes}_{dt}_{follow}.h5")
    cmd = [a.exe, "run", POST, "-o", out, "--quiet",
           "--set", "solver.backend=kirchhoff",
           "--set", f"space.nodes={nodes}", "--set", f"time.dt={dt}",
           "--set", "output.every=4" if (nodes, dt) == REF else
           "output.every=1",
           "--set", f"space.follow_contact={'true' if follow else 'false'}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr}")
    return load(out)


def tip_distance(c, f, until):
    """The largest distance (m) of the tip of run c to that of run f at
    their common samples up to t = until."""
    tc, tf = c["/time"], f["/time"]
    j = np.clip(np.searchsorted(tf, tc - 1e-9), 0, len(tf) - 1)
    ok = (np.abs(tf[j] - tc) < 1e-9) & (tc <= until + 1e-9)
    d = c["/tip/position"][ok] - f["/tip/position"][j[ok]]
    return np.linalg.norm(d, axis=1).max()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--exe", default="build/rodsim")
    a = p.parse_args()
    a.exe = os.path.abspath(a.exe)
    scratch = tempfile.mkdtemp(prefix="rodsim_curved_")
    try:
        refs = [run(a, scratch, *REF, f) for f in (False, True)]
        print(f"References ({REF[0]} nodes, {REF[1] * 1e3:g} ms) apart: "
              + ", ".join(f"{tip_distance(refs[0], refs[1], T):.1e} m to "
                          f"{T:g} s" for T in (0.49, 0.52, 1.5)))
        print()
        print("| nodes, dt | grid | to the fixed reference, 0.49 / 1.5 s "
              "(m) | to the following reference (m) | integrations a "
              "step |")
        print("|---|---|---|---|---|")
        for nodes, dt in RUNS:
            for f in (False, True):
                d = run(a, scratch, nodes, dt, f)
                cols = [" / ".join(f"{tip_distance(d, r, T):.1e}"
                                   for T in WINDOWS) for r in refs]
                integ = d["/solver/integrations"][1:].mean()
                print(f"| {nodes}, {dt * 1e3:g} ms | "
                      f"{'following' if f else 'fixed'} | {cols[0]} | "
                      f"{cols[1]} | {integ:.1f} |")
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()

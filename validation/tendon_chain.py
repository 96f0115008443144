"""The RFEM chain with tendons against the Kirchhoff rod (docs/tendons.md,
"The RFEM chain"): the static tip and a run's tip, on 10 to 160 elements,
with the observed orders, as a table and a plot.

Cases, each the Kirchhoff rod (the chain neither stretches nor shears):
  arc      a straight tendon (12 N at 12.5 mm) on the weightless rod of
           test_tendon.c (0.5 m, 2 mm, 200 GPa): the arc T r / EI
  four     the four-tendon example (data/scenarios/tendon_statics.ini, 15 N
           on t1, gravity along the normal), bent in a plane
  helix    a helical tendon of one turn (15.06 mm, 10 N) on the weightless
           rod: bent and twisted out of any plane
  run      the four-tendon robot, t1 pulled by a tension file (0 -> 15 N
           over 40 ms, down to 5 N by 80 ms, held), 0.3 s at 1 ms: the
           largest tip distance over the run (reference: the Kirchhoff rod
           on 100 points, BDF-alpha at the same step)
The statics' reference is the Kirchhoff rod on 400 points (RK4), within
1e-10 m of its converged tip.

usage: tendon_chain.py [--build build] [--rodsim BUILD/rodsim]
                       [--out DIR] [--plot FILE] [--quick]
The validation report's tendon section (validation/tendons.py) runs it
as `tendon_chain.py --build B --out OUT [--quick]`, which writes
OUT/tendon_chain.md (the table) and OUT/tendon_chain.png; study(rodsim)
gives the rows, table(rows) their text and plot(rows, path) the figure.
"""
import argparse
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import rodlib  # noqa: E402

HERE = os.path.dirname(os.path.realpath(__file__))
DATA = os.path.join(HERE, "..", "data", "scenarios")

ROD = """[rod]
model = kirchhoff
length = 0.5
diameter = 2e-3
density = 8000
youngs_modulus = 200e9
shear_modulus = 80e9
[environment]
gravity = 0 0 0
[base]
direction = 0 0 1
[solver]
tolerance = 1e-13
"""

CASES = {
    "arc": ROD + "[tendon.t1]\noffset = 0.0125 0\ntension = 12\n",
    "helix": ROD + "[tendon.t1]\nhelix = 0.01506 1 0\ntension = 10\n",
}

TENSION = "t,T\n0,0\n0.04,15\n0.08,5\n"


def scenario(scratch, name):
    """The scenario file of a case in scratch."""
    path = os.path.join(scratch, name + ".ini")
    if name in CASES:
        text = CASES[name]
    else:
        with open(os.path.join(DATA, "tendon_statics.ini")) as f:
            text = f.read()
        text = text.replace("model = cosserat", "model = kirchhoff")
        if name == "run":
            text = text.replace("tension = 15", "tension_file = T.csv")
            text += "\n[time]\ndt = 1e-3\nduration = 0.3\n"
            with open(os.path.join(scratch, "T.csv"), "w") as f:
                f.write(TENSION)
    with open(path, "w") as f:
        f.write(text)
    return path


def order(e):
    """Observed orders between successive errors (elements doubling)."""
    return [math.log2(a / b) for a, b in zip(e[:-1], e[1:])]


def study(exe="build/rodsim", quick=False):
    """Rows: case, elements, error (m), and per case the reference."""
    rs = rodlib.Rodsim(exe, tempfile.mkdtemp(prefix="tendon_chain_"))
    elements = [10, 20, 40] if quick else [10, 20, 40, 80, 160]
    rows = {}
    for name in ["arc", "four", "helix", "run"]:
        path = scenario(rs.scratch, name)
        static = name != "run"
        ref_sets = (["space.nodes=400", "space.integrator=rk4"] if static
                    else ["space.nodes=100"])
        ref, _ = rs.run(path, ref_sets, static=static, name=name + "_k")
        errs, iters, lens = [], [], []
        for n in (elements[:4] if name == "run" else elements):
            d, _ = rs.run(path, ["solver.backend=rfem",
                                 f"rfem.segments={n}"], static=static,
                          name=f"{name}_{n}")
            tip = d["/tip/position"]
            dist = np.sqrt(((tip - ref["/tip/position"]) ** 2).sum(-1))
            errs.append(float(np.max(dist)))
            iters.append(float(np.mean(d["/solver/iterations"][1:]))
                         if not static else float("nan"))
            lens.append(float(np.max(np.abs(d["/tendon/t1/length"] -
                                            ref["/tendon/t1/length"]))))
        rows[name] = {"elements": elements[:len(errs)], "error": errs,
                      "length_error": lens, "iterations": iters,
                      "tip": ref["/tip/position"].reshape(-1, 3)[-1]}
    return rows


def table(rows):
    """The rows as Markdown lines."""
    out = ["| case | elements | tip error (m) | order | length error (m) |",
           "|---|---|---|---|---|"]
    for name, r in rows.items():
        p = [float("nan")] + order(r["error"])
        for n, e, o, le in zip(r["elements"], r["error"], p,
                               r["length_error"]):
            out.append(f"| {name} | {n} | {e:.3g} | "
                       f"{'' if math.isnan(o) else f'{o:.2f}'} | {le:.3g} |")
    return out


def plot(rows, path):
    """Errors against elements, log-log, with slopes 1 and 2."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for name, r in rows.items():
        ax.loglog(r["elements"], r["error"], "o-", label=name)
    n = np.array([10, 160])
    e0 = rows["four"]["error"][0]
    ax.loglog(n, e0 * (n / 10.0) ** -2, "k:", label="slope 2")
    e1 = rows["helix"]["error"][0]
    ax.loglog(n, e1 * (n / 10.0) ** -1, "k--", label="slope 1")
    ax.set_xlabel("elements")
    ax.set_ylabel("tip distance from the Kirchhoff rod (m)")
    ax.set_title("Tendons: the RFEM chain against the rod")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build",
                    help="the build directory (its rodsim)")
    ap.add_argument("--rodsim", default=None,
                    help="the rodsim program (default: BUILD/rodsim)")
    ap.add_argument("--out", default=None,
                    help="write OUT/tendon_chain.md and OUT/tendon_chain.png")
    ap.add_argument("--plot", default=None)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    rows = study(a.rodsim or os.path.join(a.build, "rodsim"), a.quick)
    lines = table(rows)
    r = rows["run"]
    lines += ["", "run: mean Newton iterations per step "
              + ", ".join(f"{n}: {i:.2f}" for n, i in
                          zip(r["elements"], r["iterations"]))]
    print("\n".join(lines))
    if a.plot:
        plot(rows, a.plot)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        plot(rows, os.path.join(a.out, "tendon_chain.png"))
        with open(os.path.join(a.out, "tendon_chain.md"), "w") as f:
            f.write("# The RFEM chain against the rod\n\n"
                    "The chain's tip against the Kirchhoff rod's "
                    "(docs/tendons.md, The RFEM chain):\n\n"
                    + "\n".join(lines) + "\n\n"
                    "![tendon_chain.png](tendon_chain.png)\n")


if __name__ == "__main__":
    main()

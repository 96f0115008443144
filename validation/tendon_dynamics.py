#!/usr/bin/python3
"""The motor-driven tendon robot of Till, Aloi & Rucker 2019's public
dynamics example against the published program: the tip over the whole
25 s, and the run time of both on the same settings, side by side.

data/scenarios/tendon_dynamics.ini is the example (Cosserat rod, one
displacement-controlled tendon, BDF2 at 50 ms, Euler on 200 points). The
published program is not part of rodsim: build it from its sources
(ContinuumRobotExamples, TendonRobotDynamics, g++ -O2 -DNDEBUG) with its
output streams at 17 digits, run it, and give its directory of outputs
(--ref-out, holding centerline.dat: 3 rows per sample of the backbone's
points, or tip.csv: t,x,y,z) and the program itself (--ref-bin) for the
timing. Optional --ref-grid N=DIR (repeatable): the same program with N
points and/or its Levenberg-Marquardt run to a smaller sum of squares,
whose outputs let the comparison separate the two programs' space
discretisations (both first order in s on Euler's rule, with different
constants: rodsim integrates the n-m form, the program the u-v form) and
the program's stopping rule (a sum of squares of 1e-12 in N, N m and m,
which leaves its tension off by up to 2e-4 N) from the model.

Prints the tip's largest distance from the published output (units of
L), rodsim's converged solution (RK4 on 200 points) against the program's
extrapolated to zero h (Richardson on its grids), and the timings (user
CPU seconds, best of --repeat interleaved runs, the load average, and
rodsim's speed ratio against each --ref-bin: e.g. the program's own
-O2 build and one at -O3 -march=native), and
draws validation/out/tendon_dynamics.png.

usage: tendon_dynamics.py --ref-out DIR [--ref-bin [LABEL=]BIN ...]
                          [--ref-grid N=DIR] [--build build]
                          [--rodsim BUILD/rodsim] [--out validation/out]
                          [--repeat 3] [--quick]

As a study of the validation report's tendon section (validation/
tendons.py runs `tendon_dynamics.py --build B --out OUT [--quick]`) it
writes OUT/tendon_dynamics.md with what it printed; without --ref-out
(or RODSIM_TENDON_DYNAMICS_OUT naming the outputs) that file says what
the comparison needs.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rodlib  # noqa: E402

SCENARIO = "data/scenarios/tendon_dynamics.ini"
L = 0.7144


def ref_tip(d):
    """The program's tip per sample (t_i = i dt, i = 0 .. 499)."""
    if os.path.exists(os.path.join(d, "tip.csv")):
        return np.loadtxt(os.path.join(d, "tip.csv"), delimiter=",",
                          skiprows=1)[:, 1:4]
    c = np.loadtxt(os.path.join(d, "centerline.dat"))
    return c[:, -1].reshape(-1, 3)


def rodsim_tip(rs, name, sets, scenario=SCENARIO):
    run, _ = rs.run(scenario, sets=sets, name=name)
    return run["/time"], run["/tip/position"], run


def cpu_run(cmd, cwd):
    """User + system CPU seconds of one run of cmd (and the wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime +
            after.ru_stime - before.ru_stime), wall


def far(a, b):
    d = np.linalg.norm(a - b, axis=1)
    return d.max() / L, int(d.argmax())


def compare(rs, scenario, ref, ref_grid):
    """rodsim on the scenario against the published output ref on the same
    grid, converged in s, and against the program's --ref-grid outputs;
    printed. Returns the times, rodsim's Euler (200) and RK4 tips and the
    program extrapolated to h = 0 (None without its 400 and 800)."""
    n = len(ref)
    t, e200, _ = rodsim_tip(rs, "euler200", [], scenario)
    print("published program (Euler, 200 points) against rodsim on the "
          "same settings:")
    d, i = far(e200[:n], ref)
    print("  tip %.3e L at most (t = %.2f s): the two Euler discretisations"
          % (d, t[i]))
    grids = {200: e200}
    for m in (400, 800):
        grids[m] = rodsim_tip(rs, "euler%d" % m, ["space.nodes=%d" % m],
                              scenario)[1]
    _, rk4, _ = rodsim_tip(rs, "rk4", ["space.integrator=rk4"], scenario)
    rich = (8 * grids[800] - 6 * grids[400] + grids[200]) / 3
    d, i = far(rk4[:n], rich[:n])
    print("  rodsim RK4 on 200 points against its own Euler grids "
          "extrapolated (200, 400, 800): %.2e L (t = %.2f s)" % (d, t[i]))
    refs = {}
    for g in ref_grid:
        key, path = g.split("=", 1)
        refs[key] = ref_tip(path)[:n]
        mine = grids.get(int(key))
        if mine is None:
            mine = rodsim_tip(rs, "euler" + key, ["space.nodes=" + key],
                              scenario)[1]
        d, i = far(mine[:n], refs[key])
        print("  the program on %s points (--ref-grid) against rodsim Euler "
              "on as many: %.3e L (t = %.2f s)" % (key, d, t[i]))
    refs.setdefault("200", ref)
    ref_rich = None
    if all(k in refs for k in ("200", "400", "800")):
        ref_rich = (8 * refs["800"] - 6 * refs["400"] + refs["200"]) / 3
        d, i = far(rk4[:n], ref_rich)
        print("  rodsim converged (RK4, 200 points) against the program "
              "extrapolated to h = 0 (Richardson on 200, 400, 800): %.3e L "
              "(t = %.2f s)" % (d, t[i]))
        d, _ = far(2 * refs["800"] - refs["400"], ref_rich)
        print("  the program's first extrapolation against its second: "
              "%.3e L" % d)
    return t, e200, rk4, ref_rich


def timing(rodsim, scenario, ref_bins, repeat):
    """Both programs on the published settings, interleaved: the best CPU
    seconds (and wall) of each over repeat runs, keyed by "rodsim" and by
    each build's label (ref_bins: [LABEL=]BIN, a string or a list; "program"
    without a label); printed with rodsim's speed ratio against each."""
    work = tempfile.mkdtemp(prefix="tendon_time_")
    out = os.path.join(work, "run.h5")
    rod_cmd = [os.path.abspath(rodsim), "run", os.path.abspath(scenario),
               "-o", out, "--quiet"]
    progs = []
    for b in [ref_bins] if isinstance(ref_bins, str) else ref_bins:
        label, path = b.split("=", 1) if "=" in b else ("program", b)
        progs.append((label, [os.path.abspath(path)]))
    progs.append(("rodsim", rod_cmd))
    best = {name: (1e9, 0) for name, _ in progs}
    load0 = os.getloadavg()[0]
    for _ in range(repeat):
        for name, cmd in progs:
            cpu, wall = cpu_run(cmd, work)
            if cpu < best[name][0]:
                best[name] = (cpu, wall)
    print("timing (25 s simulated, user + system CPU, best of %d interleaved "
          "runs, load average %.1f to %.1f on %d cores): rodsim %.3f s"
          % (repeat, load0, os.getloadavg()[0], os.cpu_count(),
             best["rodsim"][0]))
    for name, _ in progs[:-1]:
        print("  published program (%s) %.2f s: rodsim %.1fx faster"
              % (name, best[name][0], best[name][0] / best["rodsim"][0]))
    return best


def plot_tip(ax_tip, ax_diff, t, e200, rk4, ref, ref_rich, title, best):
    """The tip's x against time (both programs) into ax_tip, their
    differences into ax_diff."""
    n = len(ref)
    tr = np.arange(n) * 0.05
    ax_tip.plot(tr, ref[:, 0], "k-", lw=2.5, alpha=0.4,
                label="published program (Euler, 200)")
    ax_tip.plot(t, e200[:, 0], "C0--", label="rodsim (Euler, 200)")
    ax_tip.plot(t, rk4[:, 0], "C1:", label="rodsim (RK4, 200)")
    ax_tip.set_ylabel("tip x (m)")
    first = next((k for k in best if k != "rodsim"), None) if best else None
    ax_tip.set_title(title + ("\nCPU: program (%s) %.2f s, rodsim %.3f s "
                              "(%.1fx)" % (first, best[first][0],
                                           best["rodsim"][0],
                                           best[first][0] / best["rodsim"][0])
                              if first else ""), fontsize=10)
    ax_diff.semilogy(tr, np.linalg.norm(e200[:n] - ref, axis=1) / L, "C0",
                     label="rodsim - program, both Euler on 200 points")
    if ref_rich is not None:
        ax_diff.semilogy(tr, np.linalg.norm(rk4[:n] - ref_rich, axis=1) / L,
                         "C1", label="converged in s: rodsim RK4 - program "
                         "extrapolated")
    ax_diff.axhline(1e-4, color="r", lw=0.8, label="1e-4 L")
    ax_diff.set_ylabel("|tip difference| / L")
    ax_diff.set_xlabel("t (s)")
    ax_diff.legend(fontsize=8)
    for x in (ax_tip, ax_diff):
        x.grid(alpha=0.3)


class BuildDir(argparse.Action):
    """--build DIR: the build directory, whose rodsim runs (--rodsim, given
    after it, names another)."""

    def __call__(self, parser, ns, value, option=None):
        ns.build = value
        ns.rodsim = os.path.join(value, "rodsim")


def arguments(doc, ref_required=True):
    """The options of a comparison with a published program: those of the
    validation report's studies (--build, --out, --quick) and the
    program's outputs and builds."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--ref-out", required=ref_required,
                    default=os.environ.get("RODSIM_TENDON_DYNAMICS_OUT"),
                    help="the published program's outputs (centerline.dat "
                    "or tip.csv)")
    ap.add_argument("--ref-bin", action="append", default=[],
                    help="[LABEL=]BIN, repeatable: the program's builds")
    ap.add_argument("--ref-grid", action="append", default=[])
    ap.add_argument("--build", default="build", action=BuildDir,
                    help="the build directory (its rodsim)")
    ap.add_argument("--rodsim", default="build/rodsim")
    ap.add_argument("--out", default="validation/out")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="one timing run of each program")
    return ap


class Tee:
    """stdout, also kept (the study's text for OUT/NAME.md)."""

    def __init__(self, out):
        self.out, self.kept = out, []

    def write(self, s):
        self.kept.append(s)
        return self.out.write(s)

    def flush(self):
        self.out.flush()

    def text(self):
        return "".join(self.kept)


def write_md(out, text):
    with open(os.path.join(out, "tendon_dynamics.md"), "w") as f:
        f.write("# The motor-driven robot against the published program\n\n"
                + text + "\n")


def main():
    a = arguments(__doc__, ref_required=False).parse_args()
    os.makedirs(a.out, exist_ok=True)
    if not a.ref_out:
        write_md(a.out, "Not compared: `validation/tendon_dynamics.py` "
                 "needs the published dynamics program's outputs (`--ref-out "
                 "DIR`, or `RODSIM_TENDON_DYNAMICS_OUT`) and, for the timing, "
                 "the program (`--ref-bin BIN`).")
        print("tendon_dynamics: no --ref-out: not compared")
        return
    if a.quick:
        a.repeat = 1
    tee = Tee(sys.stdout)
    sys.stdout = tee
    rs = rodlib.Rodsim(a.rodsim)
    ref = ref_tip(a.ref_out)
    t, e200, rk4, ref_rich = compare(rs, SCENARIO, ref, a.ref_grid)
    best = timing(a.rodsim, SCENARIO, a.ref_bin, a.repeat) \
        if a.ref_bin else None

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
    plot_tip(ax[0], ax[2], t, e200, rk4, ref, ref_rich,
             "Motor-driven tendon robot (Till, Aloi & Rucker 2019)", best)
    ax[0].legend(fontsize=8)
    tr = np.arange(len(ref)) * 0.05
    ax[1].plot(tr, ref[:, 2], "k-", lw=2.5, alpha=0.4,
               label="published program (Euler, 200)")
    ax[1].plot(t, e200[:, 2], "C0--", label="rodsim (Euler, 200)")
    ax[1].plot(t, rk4[:, 2], "C1:", label="rodsim (RK4, 200)")
    ax[1].set_ylabel("tip z (m)")
    ax[1].grid(alpha=0.3)
    fig.tight_layout()
    png = os.path.join(a.out, "tendon_dynamics.png")
    fig.savefig(png, dpi=110)
    sys.stdout = tee.out
    write_md(a.out, "```text\n" + tee.text() + "```\n\n"
             "![tendon_dynamics.png](tendon_dynamics.png)")
    print("tendon_dynamics:", png)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The tendon section of the validation report (docs/tendons.md,
docs/validation.md): each check of the tendons with its measured figure.

- a straight tendon's arc, curvature T r / EI, on the Kirchhoff and the
  Cosserat rod (shortened by T / EA), a tendon on the neutral axis, two
  opposite tendons: rodsim's tip against the closed form;
- a helical tendon of one turn against validation/tendon_rw.py, an
  independent solution of Rucker & Webster's equations;
- the four-tendon statics example against the published program's output
  (data/tendon_statics_centerline.csv), and rodsim's speed against that
  program's, built here from its source (--published DIR, a checkout of
  Till, Aloi & Rucker's ContinuumRobotExamples) with its own flags and with
  rodsim's, timed in one run, interleaved, best of several: rodsim's whole
  computation (the simulation created, solved, read and freed) from C (a
  driver built against the build's librod with cc) and from Python, and
  its static solve alone, each ratio printed;
- the closed loop of examples/tendon_circle.c and .py: the tip on a circle,
  its error against the bound of the loop, the real-time ratio;
- the studies of their own, each a script of validation/ run when it
  exists (STUDIES below): `python3 validation/NAME.py --build B --out OUT
  [--quick]` writes OUT/NAME.md (and its figures beside it), which this
  section includes.

usage: tendons.py [--build build] [--out validation/out] [--quick]
                  [--published DIR] [--only PART,...]

Writes OUT/tendons.md and OUT/tendons_*.png; validation/report.py's
`tendons` section is this. Needs python3-numpy, -scipy, -matplotlib,
-h5py (Debian) and, for the speed, g++ and cc.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, "data", "scenarios", "tendon_statics.ini")
REFERENCE = os.path.join(ROOT, "data", "tendon_statics_centerline.csv")
# studies of their own, included when their script exists
STUDIES = ["tendon_dynamics", "tendon_chain"]
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "examples"))
rodsim = None  # the module of the build chosen (load())


def load(build):
    global rodsim
    sys.path.insert(0, os.path.join(os.path.abspath(build), "python"))
    import rodsim as module
    rodsim = module


# ------------------------------------------------------------ closed forms

ROD = """[rod]
model = {model}
length = 0.5
diameter = 2e-3
density = 8000
youngs_modulus = 200e9
shear_modulus = 80e9
shear_coefficient = 1
[environment]
gravity = 0 0 0
[base]
direction = 0 0 1
[solver]
tolerance = 1e-13
"""


def rod_tip(model, tendons, nodes=None):
    """The static tip (m) of the weightless test rod (0.5 m, 2 mm steel)
    with tendons [(offset x, y or None, helix or None, tension)]."""
    ini = ROD.format(model=model)
    for i, (offset, helix, tension) in enumerate(tendons):
        ini += f"[tendon.t{i}]\ntension = {tension!r}\n"
        ini += (f"offset = {offset[0]!r} {offset[1]!r}\n" if offset else
                f"helix = {helix[0]!r} {helix[1]!r} {helix[2]!r}\n")
    keys = {"space.nodes": nodes} if nodes else {}
    sim = rodsim.Sim(None, keys, ini=ini, name="tendon")
    sim.static()
    return sim.state()["position"][-1], sim.points


def arc(model, offset, tension):
    """The closed form: curvature T r / EI about the axis e3 x r, the arc
    L (1 - T / EA) long on the Cosserat rod (the backbone carries -T d3,
    no shear)."""
    L, d, E = 0.5, 2e-3, 200e9
    EI, EA = E * math.pi * d**4 / 64, E * math.pi * d * d / 4
    r = math.hypot(*offset)
    stretch = 1 - tension / EA if model == "cosserat" else 1.0
    if r == 0 or tension == 0:
        return np.array([0, 0, L * stretch])
    k = tension * r / EI
    side = np.array([offset[0], offset[1], 0]) / r
    return (side * (1 - math.cos(k * L)) / k
            + np.array([0, 0, math.sin(k * L) / k])) * stretch


def part_closed_forms(out, quick):
    md = ["### A straight tendon's arc, the neutral axis, opposite tendons\n",
          "The weightless rod of the tendon tests (0.5 m, 2 mm steel, E 200 "
          "GPa, G 80 GPa, G A shear stiffness), shooting tolerance 1e-13. "
          "A tendon at r = (12.5, 0) mm with 12 N bends it into the arc of "
          "curvature T r / EI = 0.955 1/m (Cosserat: the arc shortened by T "
          "/ EA, unsheared); a tendon on the axis and two opposite ones at "
          "12 N each leave it straight (Cosserat: shortened by their "
          "tensions over EA). Tip error over L:\n",
          "| case | model | auto grid (nodes) | 101 nodes | 401 nodes |",
          "|---|---|---|---|---|"]
    L = 0.5
    cases = [("arc", [((0.0125, 0.0), None, 12.0)]),
             ("arc, r = (6, -11) mm", [((0.006, -0.011), None, 12.0)]),
             ("neutral axis", [((0.0, 0.0), None, 12.0)]),
             ("opposite pair", [((0.0125, 0.0), None, 12.0),
                                ((-0.0125, 0.0), None, 12.0)])]
    worst = 0.0
    for name, tendons in cases:
        for model in ("kirchhoff", "cosserat"):
            expect = np.zeros(3)
            if name.startswith("arc"):
                expect = arc(model, tendons[0][0], tendons[0][2])
            else:
                expect = arc(model, (0, 0), sum(t[2] for t in tendons))
            row = [name, model]
            for nodes in (None, 101, 401):
                tip, n = rod_tip(model, tendons, nodes)
                e = np.linalg.norm(tip - expect) / L
                worst = max(worst, e)
                row.append(f"{e:.1e}" + (f" ({n})" if nodes is None else ""))
            md.append("| " + " | ".join(row) + " |")
    md.append(f"\nLargest: {worst:.1e} L (required: 1e-8 L for the arcs, "
              "1e-12 L straight).\n")
    return "\n".join(md)


def part_helix(out, quick):
    import tendon_rw
    md = ["### A helical tendon against an independent solution\n",
          "One turn of radius 15.06 mm, 10 N, on the same rod: a shape out "
          "of the plane. `validation/tendon_rw.py` solves Rucker & "
          "Webster's u-v form (the strains' rates from (K + A) [v_s; u_s] = "
          "rhs) with SciPy's DOP853 at rtol 1e-13 (--quick: classic RK4 on "
          "400 points) and shoots it by "
          "Levenberg-Marquardt; rodsim integrates the n-m form with the "
          "tendons in its constitutive law. Tip distance over L:\n",
          "| model | reference tip (m) | auto grid (nodes) | 101 nodes | "
          "401 nodes |", "|---|---|---|---|---|"]
    shapes = {}
    for model in ("kirchhoff", "cosserat"):
        case = {"L": 0.5, "E": 200e9, "G": 80e9, "radius": 1e-3, "rho": 0,
                "gravity": [0, 0, 0], "model": model,
                "tendons": [{"helix": [0.01506, 1, 0], "tension": 10.0}]}
        if quick:  # classic RK4 on 400 points: seconds, not minutes
            case["rk4"] = 400
        ref = np.array(tendon_rw.tip(case))
        row = [model, " ".join(f"{c:.9f}" for c in ref)]
        for nodes in (None, 101, 401):
            tip, n = rod_tip(model, [(None, (0.01506, 1, 0), 10.0)], nodes)
            row.append(f"{np.linalg.norm(tip - ref) / 0.5:.1e}"
                       + (f" ({n})" if nodes is None else ""))
        md.append("| " + " | ".join(row) + " |")
        shapes[model] = ref
    md.append("\nRequired: 1e-6 L.\n")
    return "\n".join(md)


# --------------------------------------------------- the published program

def reference_centerline():
    return np.loadtxt(REFERENCE, delimiter=",", comments="#", skiprows=8)


def part_published(out, quick):
    import tendon_rw
    ref = reference_centerline()
    sim = rodsim.Sim(SCENARIO)
    sim.static()
    st = sim.state()
    p, s = st["position"], st["s"]
    L = 0.5
    md = ["### The four-tendon statics example against the published "
          "program\n",
          "`data/scenarios/tendon_statics.ini` (Cosserat rod, RK4 on 100 "
          "points, 15 N on t1, gravity along x) against the published "
          "program's backbone (`data/tendon_statics_centerline.csv`, its "
          "100 points written at 17 digits), and against "
          "`validation/tendon_rw.py` on the program's grid (RK4 on 100 "
          "points) shot to 1e-15:\n"]
    same_grid = np.allclose(s, ref[:, 0], rtol=0, atol=1e-15)
    d = np.linalg.norm(p - ref[:, 1:], axis=1)
    case = {"L": L, "E": 200e9, "G": 80e9, "radius": 1e-3, "rho": 8000,
            "gravity": [9.81, 0, 0], "model": "cosserat", "rk4": 100,
            "tendons": [{"offset": [0.01506, 0], "tension": 15.0},
                        {"offset": [0, 0.01506], "tension": 0.0},
                        {"offset": [-0.01506, 0], "tension": 0.0},
                        {"offset": [0, -0.01506], "tension": 0.0}]}
    rw = np.array(tendon_rw.tip(case))
    md += ["| | tip x (m) | tip z (m) | from the published tip |",
           "|---|---|---|---|",
           f"| the published program | {ref[-1, 1]:.17g} | {ref[-1, 3]:.17g} "
           "| |",
           f"| rodsim, 100 points | {p[-1, 0]:.17g} | {p[-1, 2]:.17g} | "
           f"{np.linalg.norm(p[-1] - ref[-1, 1:]) / L:.2e} L |",
           f"| tendon_rw.py, RK4 on 100 points | {rw[0]:.17g} | {rw[2]:.17g} "
           f"| {np.linalg.norm(rw - ref[-1, 1:]) / L:.2e} L |",
           "", f"Over the whole backbone (the same {len(s)} points"
           f"{'' if same_grid else ', NOT the same s'}): largest distance "
           f"{d.max() / L:.2e} L, at s = {s[int(np.argmax(d))]:.3f} m "
           "(required 1e-4 L). rodsim and the independent solution agree to "
           f"{np.linalg.norm(p[-1] - rw) / L:.1e} L: the published tip's "
           "offset is its Levenberg-Marquardt stopping at a sum of squared "
           "residuals of 1e-12 (a tip moment of up to 1e-6 N m), "
           "docs/tendons.md.\n"]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(ref[:, 1], ref[:, 3], "k--", label="published program")
    ax[0].plot(p[:, 0], p[:, 2], lw=1, label="rodsim")
    ax[0].set_aspect("equal")
    ax[0].set_xlabel("x (m)")
    ax[0].set_ylabel("z (m)")
    ax[0].legend(fontsize=8)
    ax[1].semilogy(s[1:], d[1:] / L)
    ax[1].set_xlabel("s (m)")
    ax[1].set_ylabel("|rodsim - published| / L")
    for a in ax:
        a.grid(alpha=0.3)
    fig.suptitle("The four-tendon robot's statics against the published "
                 "program", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tendons_statics.png"), dpi=110)
    plt.close(fig)
    md.append("![tendons_statics.png](tendons_statics.png)\n")
    return "\n".join(md)


DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include <ctime>
int published_main(int, char **);
static double cpu() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 10;
  double best = 1e9;
  for (int i = 0; i < n; i++) {
    const double t0 = cpu();
    published_main(0, nullptr);
    const double s = cpu() - t0;
    best = s < best ? s : best;
  }
  printf("%.9f\n", best);
  return 0;
}
"""


def build_published(src, tmp, flags):
    """The published statics program, its main renamed and called by a
    timing driver (CPU time of the solve and its three small output files,
    best of n)."""
    lib = os.path.join(src, "Library")
    main = os.path.join(src, "01_Statics", "05_Tendon_Robot", "Cpp",
                        "main.cpp")
    exe = os.path.join(tmp, "published" + flags.replace(" ", ""))
    drv = os.path.join(tmp, "driver.cpp")
    with open(drv, "w") as f:
        f.write(DRIVER)
    obj = exe + ".o"
    subprocess.run(["g++"] + flags.split() + [
        "-DNDEBUG", "-std=c++14", "-I", lib, "-I", os.path.join(lib, "eigen"),
        "-Dmain=published_main", "-c", main, "-o", obj], check=True)
    subprocess.run(["g++"] + flags.split() + [drv, obj, "-o", exe],
                   check=True)
    return exe


# rodsim's whole computation from C, as the published program's main()
# makes its answer from its parameters: the simulation created from the
# scenario (loaded before, as the program's parameters are compiled in),
# its static state solved, the backbone read and the simulation freed;
# CPU time, best of n; and the same from the scenario file's text
# (rod_sim_create_file parses it each time), and the static solve alone.
RODSIM_DRIVER = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rod/scenario.h"
#include "rod/sim.h"
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double *backbone(rod_sim *sim) {
  static double pos[3 * 100000];
  if (rod_sim_points(sim) > 100000 || rod_sim_get_positions(sim, pos))
    exit(1);
  return pos;
}
int main(int argc, char **argv) {
  const int n = argc > 2 ? atoi(argv[2]) : 10;
  rod_scenario *sc = rod_scenario_new();
  rod_error err;
  if (!sc || rod_scenario_load(sc, argv[1], &err) != ROD_OK)
    return 2;
  double whole = 1e9, solve = 1e9, file = 1e9;
  for (int i = 0; i < n; i++) {
    rod_sim *sim;
    const double t0 = cpu();
    if (rod_sim_create(sc, &sim, &err) != ROD_OK)
      return 1;
    const double t1 = cpu();
    if (rod_sim_static(sim) != ROD_OK)
      return 1;
    const double t2 = cpu();
    backbone(sim);
    rod_sim_free(sim);
    const double t3 = cpu();
    if (rod_sim_create_file(argv[1], &sim, &err) != ROD_OK ||
        rod_sim_static(sim) != ROD_OK)
      return 1;
    backbone(sim);
    rod_sim_free(sim);
    const double t4 = cpu();
    whole = t3 - t0 < whole ? t3 - t0 : whole;
    solve = t2 - t1 < solve ? t2 - t1 : solve;
    file = t4 - t3 < file ? t4 - t3 : file;
  }
  printf("%.9f %.9f %.9f\n", whole, solve, file);
  rod_scenario_free(sc);
  return 0;
}
"""


def build_rodsim_driver(build, tmp):
    """The C driver above, built with cc against the build's librod."""
    build = os.path.abspath(build)
    src = os.path.join(tmp, "rodsim_driver.c")
    exe = os.path.join(tmp, "rodsim_driver")
    with open(src, "w") as f:
        f.write(RODSIM_DRIVER)
    subprocess.run(["cc", "-O2", "-std=c11", src, "-I",
                    os.path.join(ROOT, "include"), "-I",
                    os.path.join(build, "include"), "-L", build, "-lrod",
                    "-Wl,-rpath," + build, "-o", exe], check=True)
    return exe


def rodsim_flags(build):
    try:
        info = subprocess.run(["meson", "introspect", "--buildoptions",
                               build], capture_output=True, text=True)
        import json
        opts = {o["name"]: o["value"] for o in json.loads(info.stdout)}
        opt = {"release": "-O3", "debugoptimized": "-O2", "plain": "",
               "debug": "-O0 -g"}.get(opts.get("buildtype"), "?")
        return f"{opt} (meson buildtype={opts.get('buildtype')})"
    except Exception:  # noqa: BLE001 (no meson: say so)
        return "unknown"


def compiler(name):
    try:
        return subprocess.run([name, "--version"], capture_output=True,
                              text=True).stdout.splitlines()[0]
    except OSError:
        return f"{name}: not found"


def time_rodsim(n):
    """CPU times (s) of the whole computation in Python (a new simulation
    of the scenario, its static solve, its state read (sim.state()), the
    simulation closed), and of the solve alone, best of n each."""
    sc = rodsim.Scenario(SCENARIO)
    best, solve = math.inf, math.inf
    for _ in range(n):
        t0 = time.process_time()
        sim = rodsim.Sim(sc)
        t1 = time.process_time()
        sim.static()
        t2 = time.process_time()
        sim.state()
        sim.close()
        t3 = time.process_time()
        best = min(best, t3 - t0)
        solve = min(solve, t2 - t1)
    return best, solve


FLAGS = ("-O2", "-O3", "-O3 -march=native")


def part_speed(out, quick, build, published):
    md = ["### Speed against the published statics program\n"]
    if not published or not shutil.which("g++"):
        md.append("Not measured: `--published DIR` names a checkout of "
                  "Till, Aloi & Rucker's ContinuumRobotExamples (its "
                  "`Library` and `01_Statics`), and g++ builds it.\n")
        return "\n".join(md)
    rounds, n = (2, 5) if quick else (5, 20)
    keys = list(FLAGS) + ["c", "c_solve", "c_file", "py", "py_solve"]
    with tempfile.TemporaryDirectory() as tmp:
        exes = {f: build_published(published, tmp, f) for f in FLAGS}
        driver = build_rodsim_driver(build, tmp)
        best = {k: math.inf for k in keys}
        load0 = os.getloadavg()[0]
        for _ in range(rounds):  # interleaved: the load affects all alike
            for f, exe in exes.items():
                r = subprocess.run([exe, str(n)], cwd=tmp, check=True,
                                   capture_output=True, text=True)
                best[f] = min(best[f], float(r.stdout))
            r = subprocess.run([driver, SCENARIO, str(n)], cwd=tmp,
                               check=True, capture_output=True, text=True)
            for k, v in zip(("c", "c_solve", "c_file"), r.stdout.split()):
                best[k] = min(best[k], float(v))
            whole, solve = time_rodsim(n)
            best["py"] = min(best["py"], whole)
            best["py_solve"] = min(best["py_solve"], solve)
        load1 = os.getloadavg()[0]
    ms = {k: 1e3 * v for k, v in best.items()}
    md += [f"The same settings (Cosserat rod, RK4 on 100 points, the same "
           "loads); CPU time of one whole computation, best of "
           f"{rounds} x {n}, the programs interleaved; load average "
           f"{load0:.1f} to {load1:.1f} on {os.cpu_count()} cores. The "
           "published program is built from its source as its own build "
           "does (g++ -O2 -DNDEBUG -std=c++14, Eigen), with rodsim's "
           "optimisation level and for this CPU, its `main` called by a "
           "timing driver: its parameters, solve and three small text "
           "files. rodsim's whole computation: the simulation created "
           "from the scenario (loaded before), its static state solved, "
           "the backbone read and the simulation freed, from C (a driver "
           "on the public API) and from Python (`Sim`, `static`, `state`, "
           "`close`); beside it the static solve alone.\n",
           "| program | compiler and flags | CPU time | rodsim faster by: "
           "whole from C; from Python; solve alone |",
           "|---|---|---|---|"]
    for f in FLAGS:
        md.append(f"| published statics | {compiler('g++')}, {f} -DNDEBUG | "
                  f"{ms[f]:.2f} ms | {best[f] / best['c']:.1f}; "
                  f"{best[f] / best['py']:.1f}; "
                  f"{best[f] / best['c_solve']:.1f} |")
        print(f"tendons: speed: the published statics ({f}) {ms[f]:.2f} ms; "
              f"rodsim's whole computation {ms['c']:.3f} ms from C "
              f"({best[f] / best['c']:.1f}x faster), {ms['py']:.3f} ms from "
              f"Python ({best[f] / best['py']:.1f}x), the solve alone "
              f"{ms['c_solve']:.3f} ms ({best[f] / best['c_solve']:.1f}x); "
              f"load {load0:.1f} to {load1:.1f}", flush=True)
    flags = rodsim_flags(build)
    md += [f"| rodsim, the whole computation from C | {compiler('cc')}, "
           f"{flags} | {ms['c']:.3f} ms | |",
           f"| the same, the scenario parsed from its file each time "
           f"(`rod_sim_create_file`) | | {ms['c_file']:.3f} ms | |",
           f"| the same from Python | | {ms['py']:.3f} ms | |",
           f"| the static solve alone (C; Python) | | {ms['c_solve']:.3f}; "
           f"{ms['py_solve']:.3f} ms | |", ""]
    return "\n".join(md)


# ------------------------------------------------------------ closed loop

def part_circle(out, quick, build):
    import tendon_circle as tc
    md = ["### Closed-loop control: the tip on a circle\n",
          "`examples/tendon_circle.c` and `examples/tendon_circle.py` "
          "(docs/tendons.md, Closed-loop control): the four-tendon robot in "
          "a dynamic run (damping 5e-4 N m^2 s, drag 1e-4 kg/m^2, steps of "
          "5 ms), its tip steered along a circle about its rest position "
          "after a lead-in turn, the tensions from the model's inverse "
          "statics, the first mode's lag fed forward and the integral of "
          "the error; the error is the tip's distance from the target in "
          "the circle's plane, RMS and largest on the turns after the "
          "lead-in, against the bound derived from the loop (the linear "
          "modal loop's error + the model's miss + the lag's "
          "nonlinearity):\n",
          "| radius (m) | period (s) | controller | RMS (m) | largest (m) | "
          "bound (m) | linear loop (m) | model's miss (m) |",
          "|---|---|---|---|---|---|---|---|"]
    turns = 1 if quick else 2
    cases = [(0.05, 2.0, True), (0.05, 2.0, False)]
    if not quick:
        cases += [(0.01, 2.0, True), (0.025, 2.0, True), (0.08, 2.0, True),
                  (0.05, 1.0, True), (0.05, 4.0, True)]
    shown = None
    for radius, period, lag in cases:
        res = tc.run(tc.SCENARIO, turns, radius, period, lag)
        limit, (linear, miss, _) = tc.bound(res["rod"], res["miss"], radius,
                                            period, lag)
        md.append(f"| {radius} | {period} | "
                  f"{'lag fed forward' if lag else 'statics only'} | "
                  f"{res['rms']:.3g} | {res['max']:.3g} | {limit:.3g} | "
                  f"{linear:.3g} | {miss:.3g} |")
        if shown is None:
            shown = res
            tc.plot(res["log"], res["names"],
                    os.path.join(out, "tendons_circle.png"),
                    f"tip on a circle of {radius} m, {period} s a turn: rms "
                    f"{1e3 * res['rms']:.3f} mm, max {1e3 * res['max']:.3f} "
                    "mm")
    md.append("\n![tendons_circle.png](tendons_circle.png)\n")
    # the real-time ratio: the C example and the Python one, interleaved
    exe = os.path.join(build, "tests", "tendon_circle")
    rounds = 2 if quick else 4
    best = {"C": (math.inf, math.inf), "Python": (math.inf, math.inf)}
    load0 = os.getloadavg()[0]
    for _ in range(rounds):
        if os.path.exists(exe):
            r = subprocess.run([exe, tc.SCENARIO], capture_output=True,
                               text=True, check=True).stdout
            wall, cpu = re.search(r"in ([0-9.]+) s, .*CPU ([0-9.]+) s",
                                  r).groups()
            best["C"] = min(best["C"], (float(cpu), float(wall)))
        res = tc.run(tc.SCENARIO, 2.0)
        best["Python"] = min(best["Python"], (res["cpu"], res["wall"]))
    load1 = os.getloadavg()[0]
    sim_t = 6.0
    md += [f"Speed: 6 s of the robot (three turns), best of {rounds} runs, "
           f"the two examples interleaved, load average {load0:.1f} to "
           f"{load1:.1f} on {os.cpu_count()} cores:\n",
           "| example | CPU time (s) | real-time ratio on one core | wall "
           "time (s) | real-time ratio |", "|---|---|---|---|---|"]
    for k, (cpu, wall) in best.items():
        if cpu < math.inf:
            md.append(f"| {k} | {cpu:.3f} | {sim_t / cpu:.1f} | {wall:.3f} "
                      f"| {sim_t / wall:.1f} |")
    md.append("")
    return "\n".join(md)


# ------------------------------------------------------ studies of their own

def part_studies(out, quick, build):
    md = []
    for name in STUDIES:
        script = os.path.join(HERE, name + ".py")
        if not os.path.exists(script):
            continue
        args = [sys.executable, script, "--build", build, "--out", out]
        r = subprocess.run(args + (["--quick"] if quick else []),
                           capture_output=True, text=True)
        path = os.path.join(out, name + ".md")
        if r.returncode != 0 or not os.path.exists(path):
            md.append(f"### {name}\n\n`validation/{name}.py` failed "
                      f"(exit {r.returncode}): "
                      f"{(r.stderr.strip().splitlines() or [''])[-1]}\n")
            continue
        with open(path) as f:
            text = f.read().strip()
        # its headings one level down, inside this section
        md.append(re.sub(r"^(#+)", r"\1##", text, flags=re.M) + "\n")
    return "\n".join(md)


PARTS = ["closed_forms", "helix", "published", "speed", "circle", "studies"]


def study(build, out, quick, published=None, only=()):
    load(build)
    os.makedirs(out, exist_ok=True)
    md = ["## Tendons\n",
          "Tendon-driven continuum robots (docs/tendons.md): the checks of "
          "the tendons' model against closed forms, an independent "
          "solution and the published programs of Till, Aloi & Rucker "
          "(2019), and the closed loop of the examples.\n"]
    run = {"closed_forms": lambda: part_closed_forms(out, quick),
           "helix": lambda: part_helix(out, quick),
           "published": lambda: part_published(out, quick),
           "speed": lambda: part_speed(out, quick, build, published),
           "circle": lambda: part_circle(out, quick, build),
           "studies": lambda: part_studies(out, quick, build)}
    for name in PARTS:
        if only and name not in only:
            continue
        t0 = time.time()
        md.append(run[name]())
        print(f"tendons: {name} done in {time.time() - t0:.1f} s",
              flush=True)
    text = "\n".join(md)
    with open(os.path.join(out, "tendons.md"), "w") as f:
        f.write(text + "\n")
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="validation/out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--published", default=os.environ.get("RODSIM_PUBLISHED"),
                    help="a checkout of ContinuumRobotExamples (its Library "
                    "and 01_Statics folders): time its statics program")
    ap.add_argument("--only", default="", help="parts: " + ",".join(PARTS))
    a = ap.parse_args()
    study(a.build, a.out, a.quick, a.published,
          [p for p in a.only.split(",") if p])
    print(f"tendons: {os.path.join(a.out, 'tendons.md')}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The robustness study: rods a user may bring, far from the paper's two,
each solved by rodsim and checked against an independent reference. Every
case must match within its stated tolerance, or rodsim must say so: exit
non-zero, or a warning naming the key to change. A case that does neither
is a silent wrong answer, and the study exits 1 when it finds one.

Statics (`rodsim static`): the weight w L^3 / EI from 0.1 to 1000, a tip
force P L^2 / EI from 0 and 0.1 to 100 (across the rod, along gravity or
against it), the slenderness L / d from 5 to 1000, Kirchhoff and Cosserat
rods, both backends, both integrators in arclength, the clamp pointing up,
down, sideways and 45 degrees up and down. The reference
(validation/planar_equilibria.c, no rodsim code) finds every planar
equilibrium of Reissner's rod (Kirchhoff's when inextensible and
unshearable) by a scan of the clamp moment and bisection on RK4 with
twice the steps checked, and its stability by the Jacobi equation's
zeros. rodsim's tip must lie within the tolerance of a stable one.

Dynamics (`rodsim run`): a tip preload released at t = 0, dt from 1e-5 to
0.1 s, 2 to 400 steps per period of the first mode, alpha from -0.5 to 0,
L / d from 20 to 1000 (50 for Cosserat rods, whose shear then shifts mode
1 by less than 2e-4), the rod pointing up (below its critical weight),
down, sideways and obliquely. The reference is the linear rod by
Galerkin's method on 6 Euler-Bernoulli modes with the axial force of the
rod's weight, u(t) = sum of its modes' cosines, over two periods.

Every case runs by `rodsim sweep` (docs/scale.md): the static cases in one
sweep (--static), the runs in another, each a row of a cases CSV over a
base scenario, on --threads threads (default: the online cores); the
outcome is read from the sweep's index (status, message, warnings) and
each case's file.

Usage: robustness.py [--quick] [--seed N] [--out DIR] [--replot]
                     [--threads N]
Writes DIR/robustness.csv, DIR/robustness.md and DIR/robustness.png
(default validation/out). --quick: the fast subset of the test suite;
--replot: the figure again from DIR/robustness.csv.
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

BUILD = os.environ.get("RODSIM_BUILD", "build")
RODSIM = os.environ.get("RODSIM", os.path.join(BUILD, "rodsim"))
REF = os.environ.get("RODSIM_REF",
                     os.path.join(BUILD, "validation", "planar_equilibria"))
G = 9.81
DIRECTIONS = {"up": 90.0, "down": -90.0, "side": 0.0, "up45": 45.0,
              "down45": -45.0}

# ---- tolerances (fractions of L for statics, of the amplitude for runs) --
# RK4 in arclength: auto's grid keeps kappa h <= 0.25 (static error ~1e-8 L)
# and the shooting stops at a scaled residual of 1e-8; 1e-6 L leaves two
# orders for the conditioning of the strongest cases.
TOL_RK4 = 1e-6
# Euler in arclength is first order: error ~ kappa h L / 2 per unit of the
# tip's turn; the stated accuracy of a first-order grid on auto's nodes.
TOL_EULER = 1e-2
# The chain of rigid elements (rfem.segments, 10 by default) is second
# order: 1e-2 L is what 10 elements reach on a moderately bent rod.
TOL_RFEM = 1e-2


def sections(L, r, E, rho=1000.0):
    d = L / r
    A = math.pi * d * d / 4
    I = math.pi * d ** 4 / 64
    return d, A, I


def run(cmd, timeout=300):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired:
        return -1, "", "timeout after %d s" % timeout, time.time() - t0


def write_ini(path, sec):
    with open(path, "w") as f:
        for name, keys in sec.items():
            f.write("[%s]\n" % name)
            for k, v in keys.items():
                f.write("%s = %s\n" % (k, v))


def vec(v):
    return " ".join("%.17g" % x for x in v)


# ---- statics ---------------------------------------------------------------

def static_case(c):
    """Scenario sections and reference arguments of a static case."""
    L, rho = 0.3, 1000.0
    r = c["slender"]
    d = L / r
    A = math.pi * d * d / 4
    I = math.pi * d ** 4 / 64
    w = rho * A * G
    E = w * L ** 3 / (c["weight"] * I)
    Gm = E / 2.6  # nu = 0.3
    EI = E * I
    th = math.radians(DIRECTIONS[c["direction"]])
    t0 = (math.cos(th), math.sin(th))
    n0 = (-math.sin(th), math.cos(th))
    P = c["force"] * EI / L ** 2
    fdir = {"across": n0, "gravity": (0.0, -1.0), "against": (0.0, 1.0)}
    F = tuple(P * x for x in fdir[c["force_dir"]])
    pre = tuple(c["preload"] * P * x for x in n0)
    sec = {
        "rod": {"model": c["model"], "length": L, "diameter": "%.17g" % d,
                "density": rho, "youngs_modulus": "%.17g" % E,
                "shear_modulus": "%.17g" % Gm},
        "environment": {"gravity": "0 0 %.17g" % -G},
        "base": {"direction": vec((t0[0], 0, t0[1]))},
        "tip": {"force": vec((F[0], 0, F[1])),
                "preload": vec((pre[0], 0, pre[1]))},
        "time": {"dt": 2e-3, "duration": 0.01},
        "space": {"integrator": c["integrator"]},
        "solver": {"backend": c["backend"]},
    }
    # every case sets it (a row of the sweep's cases): the Kirchhoff rod
    # does not read it
    sec["rfem"] = {"segments": c.get("segments", 10)}
    if c["model"] == "cosserat":
        nu = 0.3
        kappa = 6 * (1 + nu) / (7 + 6 * nu)
        EA, kGA = E * A, kappa * Gm * A
    else:
        EA = kGA = 0.0
    ref_args = [L, EI, EA, kGA, th, 0.0, -w, F[0] + pre[0], F[1] + pre[1]]
    return sec, ref_args, L


def reference(args):
    code, out, err, _ = run([REF] + ["%.17g" % a for a in args], timeout=600)
    if code != 0:
        raise RuntimeError("reference failed: " + err)
    roots = []
    for line in out.splitlines():
        m0, x, z, ang, idx, change, res = line.split()
        roots.append({"tip": (float(x), float(z)), "index": int(idx),
                      "change": float(change), "residual": float(res)})
    return roots


def tolerance(c):
    if c["backend"] == "rfem":
        return TOL_RFEM
    return TOL_EULER if c["integrator"] == "euler" else TOL_RK4


def said(err):
    """rodsim's messages, one string: warnings and failures name a key."""
    return " | ".join(l.strip() for l in err.splitlines() if l.strip())


def judge_static(c, ref_args, L, case):
    """The outcome of a static case from its sweep record (case: exit,
    said, wall, file)."""
    code, err = case["exit"], case["said"]
    row = dict(c)
    row.update(kind="static", exit=code, wall=round(case["wall"], 3),
               stable_states=-1, tol=tolerance(c), message=err,
               ref_change=float("nan"))
    if code != 0:  # a refusal needs no reference
        row.update(error=float("nan"), outcome="refused" if err.strip()
                   else "SILENT FAILURE")
        return row
    roots = reference(ref_args)
    stable = [q for q in roots if q["index"] == 0]
    row["stable_states"] = len(stable)
    row["ref_change"] = max([q["change"] for q in stable] + [0.0]) / L
    with h5py.File(case["file"], "r") as f:
        tip = f["tip/position"][0]
        row["nodes"] = len(f["rod/s"])
    got = np.array([tip[0], tip[2]])
    if not np.all(np.isfinite(got)):
        row.update(error=float("nan"), outcome="SILENT WRONG")
        return row
    errs = [np.linalg.norm(got - np.array(q["tip"])) / L for q in stable]
    e = min(errs) if errs else float("inf")
    row["error"] = e
    all_errs = [np.linalg.norm(got - np.array(q["tip"])) / L for q in roots]
    if e <= row["tol"]:
        row["outcome"] = "match"
    elif case["warned"]:
        row["outcome"] = "warned"
    elif all_errs and min(all_errs) <= row["tol"]:
        row["outcome"] = "SILENT UNSTABLE"
    else:
        row["outcome"] = "SILENT WRONG"
    return row


def lhs(n, dims, rng):
    """Latin hypercube: n points in [0, 1)^dims, one per stratum per axis."""
    u = np.empty((n, dims))
    for j in range(dims):
        u[:, j] = (rng.permutation(n) + rng.random(n)) / n
    return u


def static_cases(quick, rng):
    cases = []
    base = dict(model="kirchhoff", backend="kirchhoff", integrator="rk4",
                direction="side", force_dir="across", preload=0.0,
                weight=10.0, force=1.0, slender=100.0)
    if quick:
        picks = [dict(weight=46.6, slender=60.0, force=0.0),  # soft rod
                 dict(direction="up", force_dir="gravity", weight=0.1,
                      force=4.2, preload=1e-3),  # column past buckling
                 dict(direction="up", weight=1000, force=0.1),
                 dict(direction="down", force_dir="against", weight=0.1,
                      force=10.0, preload=1e-3),
                 dict(model="cosserat", slender=5.0, weight=100.0),
                 dict(direction="down45", weight=1000.0, force=100.0),
                 dict(integrator="euler", weight=1.0),
                 dict(integrator="euler", weight=10.0),  # warned
                 dict(backend="rfem", weight=1.0, force=1.0),
                 dict(backend="rfem", weight=300.0)]  # warned
        return [dict(base, **p) for p in picks]
    # per-axis sweeps from the base case
    for W in (0.1, 1, 10, 100, 1000):
        for d in DIRECTIONS:
            cases.append(dict(base, weight=W, direction=d, force=0.0))
    for P in (0.1, 10, 100):
        for fd in ("across", "gravity", "against"):
            for d in ("side", "up", "down"):
                cases.append(dict(base, weight=0.1, force=P, force_dir=fd,
                                  direction=d, preload=1e-3))
    for r in (5, 20, 100, 1000):
        for m in ("kirchhoff", "cosserat"):
            cases.append(dict(base, slender=r, model=m, weight=100.0))
    # corners: every extreme of weight, force and slenderness, up, down and
    # sideways, Kirchhoff and Cosserat rods in turn
    i = 0
    for d in ("up", "down", "side"):
        for W in (0.1, 1000):
            for P in (0.1, 100):
                for r in (5, 1000):
                    i += 1
                    cases.append(dict(base, direction=d, weight=W, force=P,
                                      slender=r, force_dir="gravity",
                                      preload=1e-3,
                                      model=("kirchhoff", "cosserat")[i % 2]))
    # a Latin hypercube over the continuous axes, the categories drawn
    n = 60
    u = lhs(n, 3, rng)
    for i in range(n):
        c = dict(base)
        c["weight"] = 10 ** (-1 + 4 * u[i, 0])
        c["force"] = 0.0 if i % 4 == 0 else 10 ** (-1 + 3 * u[i, 1])
        c["slender"] = 10 ** (math.log10(5) + (3 - math.log10(5)) * u[i, 2])
        c["direction"] = list(DIRECTIONS)[rng.integers(5)]
        c["force_dir"] = ("across", "gravity", "against")[rng.integers(3)]
        c["preload"] = (0.0, 1e-3)[rng.integers(2)]
        k = rng.integers(6)
        c["model"] = "cosserat" if k in (1, 3) else "kirchhoff"
        c["integrator"] = "euler" if k in (2, 3) else "rk4"
        c["backend"] = "rfem" if k == 4 else "kirchhoff"
        cases.append(c)
    # both integrators and backends at every weight, sideways and up
    for W in (0.1, 10, 300):
        for d in ("side", "up"):
            cases.append(dict(base, weight=W, direction=d, integrator="euler"))
            cases.append(dict(base, weight=W, direction=d, backend="rfem"))
            cases.append(dict(base, weight=W, direction=d, backend="rfem",
                              segments=40))
    return cases


# ---- dynamics --------------------------------------------------------------

def beta_l(k):
    """k-th root (0-based) of cos x cosh x = -1."""
    x = (2 * k + 1) * math.pi / 2 if k else 1.875
    for _ in range(50):
        f = math.cos(x) * math.cosh(x) + 1
        df = -math.sin(x) * math.cosh(x) + math.cos(x) * math.sinh(x)
        x -= f / df
    return x


def eb_modes(L, n, s):
    """Clamped-free Euler-Bernoulli modes, their first and second
    derivatives on s."""
    phi, d1, d2 = [], [], []
    for k in range(n):
        bl = beta_l(k)
        b = bl / L
        sg = (math.cosh(bl) + math.cos(bl)) / (math.sinh(bl) + math.sin(bl))
        x = b * s
        phi.append(np.cosh(x) - np.cos(x) - sg * (np.sinh(x) - np.sin(x)))
        d1.append(b * (np.sinh(x) + np.sin(x) - sg * (np.cosh(x) - np.cos(x))))
        d2.append(b * b * (np.cosh(x) + np.cos(x)
                           - sg * (np.sinh(x) + np.sin(x))))
    return np.array(phi), np.array(d1), np.array(d2)


def galerkin(L, EI, rhoA, tension, P, n=6):
    """Linear rod released from a tip force P across it: modal angular
    frequencies and tip amplitudes (u(t) = sum c_k cos(w_k t)). tension(s):
    the axial force of the weight."""
    x, wq = np.polynomial.legendre.leggauss(40)
    panels = 20
    h = L / panels
    s = ((np.arange(panels)[:, None] + 0.5) * h + 0.5 * h * x[None, :]).ravel()
    wts = np.tile(wq * 0.5 * h, panels)
    phi, d1, d2 = eb_modes(L, n, s)
    M = rhoA * (phi * wts) @ phi.T
    K = EI * (d2 * wts) @ d2.T + (d1 * wts * tension(s)) @ d1.T
    tip, _, _ = eb_modes(L, n, np.array([L]))
    tip = tip[:, 0]
    q0 = np.linalg.solve(K, P * tip)
    lam, V = np.linalg.eig(np.linalg.solve(M, K))
    lam, V = lam.real, V.real
    order = np.argsort(lam)
    lam, V = lam[order], V[:, order]
    a = np.linalg.solve(V, q0)
    return np.sqrt(lam), (tip @ V) * a


def dynamic_case(c):
    L, rho, E = 0.3, 7800.0, 200e9
    r = c["slender"]
    d = L / r
    A = math.pi * d * d / 4
    I = math.pi * d ** 4 / 64
    # E from the first mode's frequency: steps per period at dt
    w1 = 2 * math.pi / (c["steps"] * c["dt"])
    E = rho * A / I * (w1 * L * L / beta_l(0) ** 2) ** 2
    EI, rhoA = E * I, rho * A
    g = c["weight"] * EI / (rhoA * L ** 3)
    th = math.radians(DIRECTIONS[c["direction"]])
    t0 = (math.cos(th), math.sin(th))
    n0 = (-math.sin(th), math.cos(th))
    P = c["amplitude"] * EI / L ** 2
    along = -g * t0[1]  # gravity along the rod, per unit mass
    w, amp = galerkin(L, EI, rhoA, lambda s: rhoA * along * (L - s), P)
    sec = {
        "rod": {"model": c["model"], "length": L, "diameter": "%.17g" % d,
                "density": rho, "youngs_modulus": "%.17g" % E,
                "shear_modulus": "%.17g" % (E / 2.6)},
        "environment": {"gravity": "0 0 %.17g" % -g},
        "base": {"direction": vec((t0[0], 0, t0[1]))},
        "tip": {"preload": vec((P * n0[0], 0, P * n0[1]))},
        "time": {"dt": "%.17g" % c["dt"], "alpha": c["alpha"],
                 "duration": "%.17g" % (2 * 2 * math.pi / w[0])},
        "space": {"integrator": c["integrator"]},
        "solver": {"backend": c["backend"]},
        "output": {"every": 1},
    }
    static_ref = [L, EI, 0.0, 0.0, th, 0.0, -rhoA * g, 0.0, 0.0]
    if c["model"] == "cosserat":
        nu = 0.3
        kappa = 6 * (1 + nu) / (7 + 6 * nu)
        static_ref[2:4] = [E * A, kappa * E / 2.6 * A]
    return sec, w, amp, n0, static_ref, L


def judge_dynamic(c, w, amp, n0, static_ref, case):
    """The outcome of a run from its sweep record and file."""
    code, err = case["exit"], case["said"]
    A = amp.sum()
    higher = np.abs(amp[1:]).sum() / abs(A)
    # mode 1 within the time.dt warning's 5 %, the higher modes' share
    # twice (damped away or out of phase), 1 % for grid, model, nonlinearity
    tol = 0.05 + 2 * higher + 0.01
    row = dict(c)
    row.update(kind="run", exit=code, wall=round(case["wall"], 3), tol=tol,
               message=err, stable_states=1, ref_change=0.0)
    if code != 0 and not os.path.exists(case["file"]):
        row.update(error=float("nan"),
                   outcome="refused" if err.strip() else "SILENT FAILURE")
        return row
    rest = [q for q in reference(static_ref) if q["index"] == 0]
    rest = np.array(rest[0]["tip"])
    with h5py.File(case["file"], "r") as f:
        n = int(f["samples"][()])
        t = f["time"][:n]
        tip = f["tip/position"][:n]
    u = (tip[:, 0] - rest[0]) * n0[0] + (tip[:, 2] - rest[1]) * n0[1]
    truth = (amp[None, :] * np.cos(np.outer(t, w))).sum(axis=1)
    e = float(np.max(np.abs(u - truth)) / abs(A)) if n else float("inf")
    if not np.all(np.isfinite(u)):
        e = float("inf")
    row["error"] = e
    if code != 0:
        row["outcome"] = "refused" if err.strip() else "SILENT FAILURE"
    elif e <= tol:
        row["outcome"] = "match"
    elif case["warned"]:
        row["outcome"] = "warned"
    else:
        row["outcome"] = "SILENT WRONG"
    return row


# ---- the sweeps --------------------------------------------------------------

EXIT = {2: 0, 3: 1, 4: 2}  # the index's complete, failed, refused as exits


def flat(sec):
    """{"section.key": text} of a scenario's sections."""
    return {"%s.%s" % (name, k): str(v) for name, keys in sec.items()
            for k, v in keys.items()}


def sweep(kind, secs, work, threads):
    """Run the scenarios secs (sections) by one `rodsim sweep` in
    work/kind: the keys every case sets alike in its base scenario, the
    others a row of a cases CSV each. Each case's exit (as `rodsim run`
    would exit), what rodsim said (its message and warnings), whether it
    warned, its wall time and file."""
    rows = [flat(s) for s in secs]
    keys = sorted(set().union(*rows))
    for r in rows:
        if set(r) != set(keys):
            raise RuntimeError("%s: the cases set different keys" % kind)
    same = [k for k in keys if len({r[k] for r in rows}) == 1]
    varied = [k for k in keys if k not in same]
    base = {}
    for k in same:
        section, _, name = k.rpartition(".")
        base.setdefault(section, {})[name] = rows[0][k]
    ini = os.path.join(work, kind + ".ini")
    write_ini(ini, base)
    table = os.path.join(work, kind + ".csv")
    with open(table, "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(varied)
        for r in rows:
            wr.writerow([r[k] for k in varied])
    out = os.path.join(work, kind)
    cmd = [RODSIM, "sweep", ini, "-o", out, "--cases", table, "--quiet"]
    if threads:
        cmd += ["--threads", str(threads)]
    if kind == "static":
        cmd.append("--static")
    code, _, err, _ = run(cmd, timeout=24 * 3600)
    if code not in (0, 1):
        raise RuntimeError("rodsim sweep: exit %d: %s" % (code, err))
    with h5py.File(os.path.join(out, "index.h5"), "r") as f:
        status = f["status"][:]
        message = [m.decode() for m in f["message"][:]]
        warning = [w.decode() for w in f["warning"][:]]
        wall = f["wall_time"][:]
        files = [x.decode() for x in f["file"][:]]
    cases = []
    for i in range(len(rows)):
        # a note on the static state (a fold passed) is no warning
        warns = [w for w in warning[i].split("; ")
                 if w and not w.startswith("static state:")]
        cases.append({"exit": EXIT.get(int(status[i]), -1),
                      "said": " | ".join(x for x in (message[i], warning[i])
                                         if x),
                      "warned": bool(warns), "wall": float(wall[i]),
                      "file": os.path.join(out, files[i])})
    return cases


def dynamic_cases(quick, rng):
    base = dict(model="kirchhoff", backend="kirchhoff", integrator="rk4",
                direction="side", weight=0.01, amplitude=0.05, slender=100.0,
                dt=1e-3, steps=50.0, alpha=-0.48)
    if quick:
        picks = [dict(), dict(dt=0.1, steps=2.0),  # too coarse: warned
                 dict(direction="up", weight=5.0, alpha=0.0),
                 dict(model="cosserat", integrator="euler", dt=1e-5,
                      steps=200.0, direction="down", weight=1.0),
                 dict(backend="rfem", steps=100.0),
                 dict(backend="rfem", dt=1.5e-5, steps=2.35)]  # warned
        return [dict(base, **p) for p in picks]
    cases = []
    for dt in (1e-5, 1e-4, 1e-3, 1e-2, 0.1):
        for st in (2.0, 5.0, 20.0, 100.0, 400.0):
            cases.append(dict(base, dt=dt, steps=st))
    for a in (-0.5, -0.25, 0.0):
        for st in (5.0, 20.0, 100.0):
            cases.append(dict(base, alpha=a, steps=st))
    for d in DIRECTIONS:
        W = {"up": 5.0, "down": 5.0}.get(d, 0.01)
        cases.append(dict(base, direction=d, weight=W))
    n = 40
    u = lhs(n, 4, rng)
    for i in range(n):
        c = dict(base)
        c["dt"] = 10 ** (-5 + 4 * u[i, 0])
        c["steps"] = 10 ** (math.log10(2) + math.log10(200) * u[i, 1])
        c["alpha"] = -0.5 * u[i, 2]
        k = rng.integers(6)
        c["model"] = "cosserat" if k in (1, 3) else "kirchhoff"
        lo = math.log10(50 if c["model"] == "cosserat" else 20)
        c["slender"] = 10 ** (lo + (3 - lo) * u[i, 3])
        c["integrator"] = "euler" if k in (2, 3) else "rk4"
        c["backend"] = "rfem" if k == 4 else "kirchhoff"
        c["direction"] = list(DIRECTIONS)[rng.integers(5)]
        c["weight"] = (rng.random() * 7.0 if c["direction"] in ("up", "down")
                       else 0.01)
        cases.append(c)
    return cases


# ---- report ----------------------------------------------------------------

FIELDS = ["kind", "model", "backend", "integrator", "direction", "weight",
          "force", "force_dir", "preload", "slender", "nodes", "segments",
          "dt", "steps", "alpha",
          "exit", "outcome", "error", "tol", "stable_states", "ref_change",
          "wall", "message"]


def summary(rows):
    lines = []
    for kind in ("static", "run"):
        rs = [r for r in rows if r["kind"] == kind]
        if not rs:
            continue
        lines.append("\n%s: %d cases\n" % (kind, len(rs)))
        lines.append("| group | cases | match | warned | refused | silent "
                     "wrong | largest error / tol of a match |")
        lines.append("|---|---|---|---|---|---|---|")
        keys = (["model", "backend", "integrator", "direction"]
                if kind == "static" else
                ["model", "backend", "integrator", "direction"])
        groups = [("all", rs)]
        for k in keys:
            for v in sorted(set(r[k] for r in rs)):
                groups.append(("%s = %s" % (k, v),
                               [r for r in rs if r[k] == v]))
        for name, g in groups:
            cnt = {o: sum(1 for r in g if r["outcome"] == o)
                   for o in ("match", "warned", "refused")}
            silent = sum(1 for r in g if r["outcome"].startswith("SILENT"))
            m = [r["error"] / r["tol"] for r in g if r["outcome"] == "match"]
            lines.append("| %s | %d | %d | %d | %d | %d | %s |" % (
                name, len(g), cnt["match"], cnt["warned"], cnt["refused"],
                silent, "%.2g" % max(m) if m else "-"))
    return "\n".join(lines)


def plot(csv_path, png):
    """Each case's error over its tolerance, by outcome: statics against
    w L^3 / EI, runs against steps per period of the first mode."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = list(csv.DictReader(open(csv_path)))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    style = {"match": ("o", "tab:green"), "warned": ("^", "tab:orange"),
             "refused": ("x", "tab:red")}
    for ax, kind, xkey, xlabel in (
            (axes[0], "static", "weight", "w L^3 / EI"),
            (axes[1], "run", "steps", "steps per period of mode 1")):
        for out, (mk, col) in style.items():
            rs = [r for r in rows if r["kind"] == kind and r["outcome"] == out]
            x = [float(r[xkey]) for r in rs]
            y = [float(r["error"]) / float(r["tol"])
                 if r["error"] not in ("", "nan") else 1e4 for r in rs]
            y = [min(max(v, 1e-6), 1e4) for v in y]
            ax.scatter(x, y, marker=mk, color=col, s=18,
                       label="%s (%d)" % (out, len(rs)))
        bad = [r for r in rows if r["kind"] == kind
               and r["outcome"].startswith("SILENT")]
        ax.set_title("%s: %d cases, %d silent wrong" % (
            "rodsim static" if kind == "static" else "rodsim run",
            sum(1 for r in rows if r["kind"] == kind), len(bad)))
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("error / tolerance (refused: top)")
        ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--out", default=os.path.join("validation", "out"))
    ap.add_argument("--only", default="static,run")
    ap.add_argument("--replot", action="store_true")
    ap.add_argument("--threads", type=int, default=0,
                    help="cases at once (default: the online cores)")
    args = ap.parse_args()
    if args.replot:
        plot(os.path.join(args.out, "robustness.csv"),
             os.path.join(args.out, "robustness.png"))
        return 0
    rng = np.random.default_rng(args.seed)
    cases = []
    if "static" in args.only:
        cases += [("static", c) for c in static_cases(args.quick, rng)]
    if "run" in args.only:
        cases += [("run", c) for c in dynamic_cases(args.quick, rng)]
    work = tempfile.mkdtemp(prefix="rodsim_robust_")
    rows = []
    t0 = time.time()
    try:
        statics = [c for kind, c in cases if kind == "static"]
        runs = [c for kind, c in cases if kind == "run"]
        made = [static_case(c) for c in statics]
        judged = [judge_static(c, m[1], m[2], r) for c, m, r in zip(
            statics, made, sweep("static", [m[0] for m in made], work,
                                 args.threads) if made else [])]
        made = [dynamic_case(c) for c in runs]
        judged += [judge_dynamic(c, *m[1:5], r) for c, m, r in zip(
            runs, made, sweep("run", [m[0] for m in made], work,
                              args.threads) if made else [])]
        for i, row in enumerate(judged):
            rows.append(row)
            if row["outcome"] not in ("match",) or not args.quick:
                print("%4d %-7s %-9s %-4s %-5s %-6s %-14s err %.3g tol %.3g "
                      "%s %s" % (i, row["kind"], row["model"],
                                 row["backend"][:4], row["integrator"],
                                 row["direction"], row["outcome"],
                                 row["error"], row["tol"],
                                 "%.1fs" % row["wall"], row["message"][:160]),
                      flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    silent = [r for r in rows if r["outcome"].startswith("SILENT")]
    text = summary(rows)
    print(text)
    print("\n%d cases in %.0f s, %d silent wrong answers" % (
        len(rows), time.time() - t0, len(silent)))
    if not args.quick:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "robustness.csv"), "w",
                  newline="") as f:
            wr = csv.DictWriter(f, FIELDS, extrasaction="ignore")
            wr.writeheader()
            for r in rows:
                wr.writerow(r)
        with open(os.path.join(args.out, "robustness.md"), "w") as f:
            f.write(text + "\n")
        plot(os.path.join(args.out, "robustness.csv"),
             os.path.join(args.out, "robustness.png"))
    return 1 if silent else 0


if __name__ == "__main__":
    sys.exit(main())

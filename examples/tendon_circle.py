#!/usr/bin/python3
"""Closed-loop control of a tendon-driven continuum robot from Python
(docs/tendons.md, "Closed-loop control"; the same controller as
examples/tendon_circle.c).

The tip of the four-tendon robot of data/scenarios/tendon_statics.ini
(Till, Aloi & Rucker 2019) follows a circle of 5 cm radius, 2 s a turn,
about its rest position, in a dynamic run: the rod with the bending
damping and air drag of their dynamics example, steps of 5 ms. Each step
the tensions come from the model:

- the model: the tip's static position f(T) (x, y: the circle's plane)
  from a second simulation of the robot that only solves its static state,
  every 50 ms at the tensions then, and its Jacobian J = df/dT, by forward
  differences every 0.5 s and by Broyden's secant update in between;
  between renewals the linear model f(T_j) + J (T - T_j);
- inverse statics: the next step's tensions solve model(T) = q by the
  minimum-norm step T += J^+ (q - model(T)), with q the target at the
  step's end, plus the rod's first-mode lag (a / w1^2 + 2 zeta v / w1),
  plus the integral of the tip's error times K = zeta w1 (gain margin 2
  on the first mode);
- pull only: the two tendons of an antagonistic pair differ by what the
  step asks and the slacker one is at 0 N.

The tracking error on the circle (after a lead-in of one turn whose radius
grows from 0) is held to a bound derived from the loop (bound()): the
error of the loop on the rod's linear modes (the cantilever's modes under
a tip moment, as a straight tendon loads it) for the circle's frequency,
plus the largest miss of the linear model at its renewals, plus the
nonlinearity of the rod's dynamic lag at the bending angle the circle
needs. The script exits with status 1 above it.

usage: tendon_circle.py [SCENARIO] [-o OUT.h5] [--turns N] [--radius R]
           [--period P] [--statics-only] [--plot PNG]
       tendon_circle.py --plot PNG --run RUN.h5 [--radius R] [--period P]
           (plot a run's file, e.g. examples/tendon_circle.c's -o)
"""
import argparse
import math
import os
import re
import sys
import time

# OpenBLAS's server threads spin beside the solver's small matrices
# (docs/numerics.md): one thread, set before NumPy loads it
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import rodsim  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "data", "scenarios", "tendon_statics.ini")
DT, EVERY = 5e-3, 0.05       # s: the step, the model's renewal
DAMPING, DRAG = 5e-4, 1e-4   # N m^2 s, kg/m^2: the public dynamics example's


def target(t, centre, radius, period):
    """Position, velocity and acceleration of the target at t (s) in the
    circle's plane; the radius grows over the first turn by 10 x^3 - 15 x^4
    + 6 x^5."""
    w, x = 2 * math.pi / period, min(t / period, 1.0)
    inside = x < 1.0
    r = radius * x**3 * (10 - 15 * x + 6 * x * x)
    r1 = inside * radius * 30 * x * x * (1 - x)**2 / period
    r2 = inside * radius * 60 * x * (1 - x) * (1 - 2 * x) / period**2
    u = np.array([math.cos(w * t), math.sin(w * t)])
    n = np.array([-u[1], u[0]])
    return (centre + r * u, r1 * u + r * w * n,
            r2 * u + 2 * r1 * w * n - r * w * w * u)


class Model:
    """The robot's static tip and its linear model f + J (T' - T): a
    simulation that takes no step and has no sink, so it solves its static
    state again at each call."""

    def __init__(self, scenario, names):
        self.sim, self.names = rodsim.Sim(scenario), names
        self.T = np.zeros(len(names))
        self.f, self.J = np.zeros(2), np.zeros((2, len(names)))
        self.solves, self.miss = 0, 0.0

    def tip(self, T):
        for name, tension in zip(self.names, T):
            self.sim.set_tendon(name, tension)
        self.sim.static()
        self.solves += 1
        return self.sim.state()["position"][-1]

    def predict(self, T):
        return self.f + self.J @ (T - self.T)

    def renew(self, T, jacobian):
        """f at T; J by forward differences of 0.01 N when jacobian, else
        Broyden's secant update along T - T_j."""
        f = self.tip(T)[:2]
        miss, dT = f - self.predict(T), T - self.T
        if self.solves > 1:
            self.miss = max(self.miss, float(np.hypot(*miss)))
        if not jacobian and dT @ dT > 0:
            self.J += np.outer(miss, dT) / (dT @ dT)
        self.f, self.T = f, T.copy()
        if jacobian:
            h = 0.01
            for i in range(len(T)):
                Th = T.copy()
                Th[i] += h
                self.J[:, i] = (self.tip(Th)[:2] - self.f) / h


def antagonists(J):
    """Each tendon's antagonist: the one whose Jacobian column is most
    opposite (cosine below -0.9), or -1."""
    u = J / np.linalg.norm(J, axis=0)
    c = u.T @ u
    np.fill_diagonal(c, 1.0)
    return [int(np.argmin(row)) if row.min() < -0.9 else -1 for row in c]


def pull_only(T, pair):
    """A pair's slacker tendon to 0 N, the other less by as much."""
    for i, o in enumerate(pair):
        m = min(T[i], 0.0) if o < 0 else min(T[i], T[o])
        T[i] -= m
        if o >= 0:
            T[o] -= m


def rod_constants(sc):
    """L (m), EI (N m^2), rhoA (kg/m), B (N m^2 s) of the scenario's rod."""
    d, di = sc["rod.diameter"], sc["rod.inner_diameter"]
    EI = sc.text("rod.bending_stiffness")
    EI = (float(EI) if EI else
          sc["rod.youngs_modulus"] * math.pi / 64 * (d**4 - di**4))
    rhoA = sc["rod.density"] * math.pi / 4 * (d * d - di * di)
    return sc["rod.length"], EI, rhoA, sc["rod.bending_damping"]


def first_mode(L, EI, rhoA, B):
    """The cantilever's first mode (rad/s) and its Kelvin-Voigt damping
    ratio B w1 / 2 EI."""
    w1 = 1.8751040687**2 * math.sqrt(EI / rhoA) / L**2
    return w1, B * w1 / (2 * EI)


def dynamic(scenario, duration):
    """The robot in a dynamic run: the scenario with the public dynamics
    example's damping and drag, steps of DT."""
    return rodsim.Scenario(scenario, {
        "time.dt": DT, "time.duration": duration,
        "time.error_estimate": "false", "rod.bending_damping": DAMPING,
        "rod.drag": DRAG, "space.nodes": "auto"})


def run(scenario=SCENARIO, turns=2.0, radius=0.05, period=2.0, lag=True,
        output=None):
    """The controlled run: a dict of its log (t, target, tip, tensions),
    the errors (m), the model's miss and the timings."""
    sc = dynamic(scenario, period * (1 + turns))
    names = re.findall(r"^\[tendon\.([^]]+)\]", sc.ini(), re.M)
    w1, zeta = first_mode(*rod_constants(sc))
    K = zeta * w1
    sim, model = rodsim.Sim(sc, output=output), Model(sc, names)
    for name in names:
        sim.set_tendon(name, 0.0)
    sim.static()
    tip = sim.state()["position"][-1]
    centre = tip[:2].copy()
    T, z = np.zeros(len(names)), np.zeros(2)
    steps, renew = round(period * (1 + turns) / DT), round(EVERY / DT)
    log, model_wall = [], 0.0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for k in range(steps):
        t = k * DT
        p, _, _ = target(t, centre, radius, period)
        e = p - tip[:2]
        log.append([t, *p, *tip, *T])
        if k % renew == 0:
            w0 = time.perf_counter()
            model.renew(T, jacobian=k % (10 * renew) == 0)
            if k == 0:
                pair = antagonists(model.J)
            model_wall += time.perf_counter() - w0
        p, v, a = target(t + DT, centre, radius, period)
        z += K * DT * e
        q = p + z + (a / w1**2 + 2 * zeta * v / w1 if lag else 0)
        J = model.J
        T += J.T @ np.linalg.solve(J @ J.T, q - model.predict(T))
        pull_only(T, pair)
        for name, tension in zip(names, T):
            sim.set_tendon(name, tension)
        sim.step()
        tip = sim.state()["position"][-1]
    log.append([steps * DT, *target(steps * DT, centre, radius, period)[0],
                *tip, *T])
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    sim.close()
    log = np.array(log)
    err = np.hypot(log[:, 1] - log[:, 3], log[:, 2] - log[:, 4])
    circle = log[:, 0] > period * (1 - 1e-9)
    return {"log": log, "names": names, "centre": centre, "K": K, "w1": w1,
            "zeta": zeta, "rod": rod_constants(sc), "scenario": sc,
            "rms": math.sqrt(np.mean(err[circle]**2)),
            "max": float(err[circle].max()), "lead": float(err[~circle].max()),
            "miss": model.miss, "solves": model.solves,
            "wall": wall, "cpu": cpu, "model_wall": model_wall,
            "simulated": period * (1 + turns)}


def cantilever_modes(L, EI, rhoA, count=8):
    """(w_n, beta_n): the clamped-free beam's frequencies (rad/s) and each
    mode's share of the static tip deflection under a tip moment (a
    straight tendon's load), sum 1 over all modes."""
    out = []
    for n in range(count):
        x = 1.875104 if n == 0 else (n + 0.5) * math.pi
        for _ in range(50):  # Newton on cos x cosh x + 1 = 0
            x -= ((math.cos(x) * math.cosh(x) + 1) /
                  (math.cosh(x) * -math.sin(x) + math.cos(x) * math.sinh(x)))
        b = x / L
        sig = (math.sinh(x) - math.sin(x)) / (math.cosh(x) + math.cos(x))
        s = np.linspace(0, L, 4001)
        phi = (np.cosh(b * s) - np.cos(b * s)
               - sig * (np.sinh(b * s) - np.sin(b * s)))
        norm = float(np.sum((phi[1:]**2 + phi[:-1]**2) / 2) * (s[1] - s[0]))
        slope = b * (math.sinh(x) + math.sin(x)
                     - sig * (math.cosh(x) - math.cos(x)))
        w = x * x * math.sqrt(EI / rhoA) / L**2
        out.append((w, phi[-1] * slope / (rhoA * norm * w * w)
                    / (L * L / (2 * EI))))
    return out


def bound(rod, miss, radius, period, lag=True):
    """The tracking error the loop allows on the circle (m) and its parts:
    the linear modal loop's steady error (the rod's modes with their
    Kelvin-Voigt damping, the feedback a step late), the model's largest
    miss at a renewal (a disturbance of the quasi-static tip), and the
    rod's dynamic lag times theta^2 (its linear model's error at the
    bending angle theta = 2 radius / L the circle needs). rod: L, EI,
    rhoA, B (rod_constants)."""
    L, EI, rhoA, B = rod
    w1, zeta = first_mode(*rod)
    K, s = zeta * w1, 2j * math.pi / period
    modes = cantilever_modes(L, EI, rhoA)
    G = 1 - sum(b for _, b in modes) + sum(
        b / (1 + (s / wn)**2 + B * s / EI) for wn, b in modes)
    F1 = (s / w1)**2 + 2 * zeta * s / w1 if lag else 0
    linear = radius * abs((1 - (1 + F1) * G) /
                          (1 + K * G * np.exp(-s * DT) / s))
    nonlinear = (2 * radius / L)**2 * radius * abs(1 - G)
    return linear + miss + nonlinear, (linear, miss, nonlinear)


def plot(log, names, png, title):
    """The tip against the target in the circle's plane, the error and the
    tensions in time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t, err = log[:, 0], np.hypot(log[:, 1] - log[:, 3], log[:, 2] - log[:, 4])
    fig, ax = plt.subplots(1, 3, figsize=(13, 4.2))
    ax[0].plot(1e3 * log[:, 1], 1e3 * log[:, 2], "k--", lw=1, label="target")
    ax[0].plot(1e3 * log[:, 3], 1e3 * log[:, 4], lw=1, label="tip")
    ax[0].set_aspect("equal")
    ax[0].set_xlabel("x (mm)")
    ax[0].set_ylabel("y (mm)")
    ax[0].legend(fontsize=8)
    ax[1].semilogy(t[1:], 1e3 * err[1:])
    ax[1].set_xlabel("t (s)")
    ax[1].set_ylabel("tracking error (mm)")
    for i, name in enumerate(names):
        ax[2].plot(t, log[:, 6 + i], lw=1, label=name)
    ax[2].set_xlabel("t (s)")
    ax[2].set_ylabel("tension (N)")
    ax[2].legend(fontsize=8)
    for a in ax:
        a.grid(alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def log_of_file(path, radius, period):
    """The log of a run's file (t, target, tip, tensions), the target
    about the tip at t = 0."""
    f = rodsim.load(path)
    t, tip = f["time"], f["tip/position"]
    names = sorted(k.split("/")[1] for k in f if k.startswith("tendon/")
                   and k.endswith("/tension"))
    centre = tip[0, :2].copy()
    tgt = np.array([target(x, centre, radius, period)[0] for x in t])
    tens = np.array([f[f"tendon/{n}/tension"] for n in names]).T
    return np.column_stack([t, tgt, tip, tens]), names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("scenario", nargs="?", default=SCENARIO)
    ap.add_argument("-o", dest="output", help="write the run's HDF5 file")
    ap.add_argument("--turns", type=float, default=2.0)
    ap.add_argument("--radius", type=float, default=0.05)
    ap.add_argument("--period", type=float, default=2.0)
    ap.add_argument("--statics-only", action="store_true",
                    help="no feedforward of the rod's first-mode lag")
    ap.add_argument("--plot", help="plot tip, target, error, tensions")
    ap.add_argument("--run", help="plot this run's file instead of running")
    a = ap.parse_args()
    if a.run:
        log, names = log_of_file(a.run, a.radius, a.period)
        plot(log, names, a.plot or os.path.splitext(a.run)[0] + ".png",
             f"{a.run}: the tip on a circle of {a.radius} m, {a.period} s "
             "a turn")
        return 0
    res = run(a.scenario, a.turns, a.radius, a.period, not a.statics_only,
              a.output)
    limit, (linear, miss, nonlinear) = bound(
        res["rod"], res["miss"], a.radius, a.period, not a.statics_only)
    c = res["centre"]
    print(f"tendon_circle.py: {a.scenario}, {len(res['names'])} tendons, "
          f"dt {DT} s, " + ("statics only" if a.statics_only
                            else "first-mode lag fed forward"))
    print(f"circle: radius {a.radius} m about ({c[0]:.6f}, {c[1]:.6f}) m, "
          f"{a.period} s a turn, {a.turns:g} turns after a lead-in of one")
    print(f"loop: K = {res['K']:.4g} 1/s, first mode {res['w1']:.4g} rad/s, "
          f"damping ratio {res['zeta']:.4g}")
    print(f"tracking error (the tip in the circle's plane): rms "
          f"{res['rms']:.4g} m, max {res['max']:.4g} m on the circle; max "
          f"{res['lead']:.4g} m in the lead-in")
    print(f"bound {limit:.4g} m: the linear loop {linear:.4g} + the model's "
          f"miss {miss:.4g} + the lag's nonlinearity {nonlinear:.4g}")
    print(f"model: {res['solves']} static solves, the linear model off by at "
          f"most {miss:.3g} m at a renewal")
    print(f"real time: {res['simulated']:g} s simulated in {res['wall']:.3f} "
          f"s, real-time ratio {res['simulated'] / res['wall']:.2f} (CPU "
          f"{res['cpu']:.3f} s; {100 * res['model_wall'] / res['wall']:.0f} % "
          "of the time in the model)")
    if a.plot:
        plot(res["log"], res["names"], a.plot,
             f"tip on a circle of {a.radius} m, {a.period} s a turn: rms "
             f"{1e3 * res['rms']:.3f} mm, max {1e3 * res['max']:.3f} mm")
    return 0 if res["max"] <= limit else 1


if __name__ == "__main__":
    sys.exit(main())

"""An independent solution of the tendon robot's statics (Rucker & Webster
2011), for the tendon section of the validation report and the tendon
tests: the Cosserat or Kirchhoff rod in the u-v form of the paper (states
p, R, v, u; Kirchhoff: p, R, n, u), whose strains' rates solve the
tendons' coupled system (K + A) [v_s; u_s] = rhs at every point, integrated
by SciPy's DOP853 at tight tolerance (or by classic RK4 on a fixed grid, to
reproduce a program that uses it) and shot from the clamp with Newton's
method on a finite-difference Jacobian. rodsim integrates a different
(n-m) form of the same equations: this checks the model, its tendon
loads, their termination at the tip and the routing's derivatives.

Each tendon: routing r(s) in the cross-section (offset, or helix radius,
turns over the rod, phase) and tension tau (N), from the clamp to the
tip. Units SI; the rod along +z from the origin, clamped.

usage: tendon_rw.py CASE.json      prints the tip "x y z" at 17 digits
CASE.json: {"L", "E", "G", "radius", "rho", "gravity": [3], "model":
"cosserat" | "kirchhoff", "tendons": [{"offset": [x, y]} | {"helix":
[radius, turns, phase]}, "tension": T], "rk4": N (optional: classic RK4
with N points instead of DOP853)}
"""
import json
import math
import sys

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import least_squares


def hat(x):
    return np.array([[0, -x[2], x[1]], [x[2], 0, -x[0]], [-x[1], x[0], 0]])


class Tendon:
    """Routing r(s), r'(s), r''(s) (m, material frame) and tension (N)."""

    def __init__(self, spec, L):
        self.tau = float(spec["tension"])
        if "offset" in spec:
            x, y = spec["offset"]
            self.kind, self.r0 = "offset", np.array([x, y, 0.0])
        else:
            rad, turns, phase = spec["helix"]
            self.kind = "helix"
            self.rad, self.k, self.phase = rad, 2 * math.pi * turns / L, phase

    def route(self, s):
        if self.kind == "offset":
            z = np.zeros(3)
            return self.r0, z, z
        a = self.k * s + self.phase
        c, sn, k = math.cos(a), math.sin(a), self.k
        r = self.rad * np.array([c, sn, 0.0])
        rs = self.rad * k * np.array([-sn, c, 0.0])
        rss = -self.rad * k * k * np.array([c, sn, 0.0])
        return r, rs, rss


class Rod:
    def __init__(self, case):
        self.L = case["L"]
        E, G, rad = case["E"], case["G"], case["radius"]
        A = math.pi * rad**2
        I = math.pi * rad**4 / 4
        self.Kse = np.diag([G * A, G * A, E * A])
        self.Kbt = np.diag([E * I, E * I, G * 2 * I])
        self.rhoAg = case.get("rho", 0.0) * A * np.array(case.get("gravity", [0, 0, 0]))
        self.cosserat = case.get("model", "cosserat") == "cosserat"
        self.tendons = [Tendon(t, self.L) for t in case["tendons"]]

    def tendon_terms(self, s, v, u):
        """a, b, A, G, H of Rucker & Webster 2011 (the tendons' share of the
        system for v_s, u_s), with the routing's derivatives:
        A_i = tau_i (|p|^2 I - p p^T) / |p|^3 (= -tau_i hat(p)^2 / |p|^3),
        G_i = -A_i hat(r_i), H_i = hat(r_i) G_i, a_i = A_i (u x p + u x r'
        + r''), b_i = r_i x a_i, p = u x r_i + v + r_i'."""
        a, b = np.zeros(3), np.zeros(3)
        As, Gs, Hs = np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3))
        for t in self.tendons:
            if t.tau == 0:
                continue
            r, rs, rss = t.route(s)
            pb = np.cross(u, r) + v + rs
            n2 = pb @ pb
            Ai = t.tau / n2**1.5 * (n2 * np.eye(3) - np.outer(pb, pb))
            hr = hat(r)
            Gi = -Ai @ hr
            ai = Ai @ (np.cross(u, pb) + np.cross(u, rs) + rss)
            a += ai
            b += np.cross(r, ai)
            As += Ai
            Gs += Gi
            Hs += hr @ Gi
        return a, b, As, Gs, Hs

    def ode(self, s, y):
        R = y[3:12].reshape(3, 3)
        u = y[15:18]
        f = np.empty(18)
        if self.cosserat:
            v = y[12:15]
            a, b, As, Gs, Hs = self.tendon_terms(s, v, u)
            nb = self.Kse @ (v - [0, 0, 1])
            mb = self.Kbt @ u
            K = np.block([[self.Kse + As, Gs], [Gs.T, self.Kbt + Hs]])
            rhs = np.concatenate([-np.cross(u, nb) - R.T @ self.rhoAg - a,
                                  -np.cross(u, mb) - np.cross(v, nb) - b])
            f[12:18] = np.linalg.solve(K, rhs)
        else:  # states p, R, n (material), u; v = e3
            v = np.array([0.0, 0.0, 1.0])
            nb = y[12:15]
            a, b, As, Gs, Hs = self.tendon_terms(s, v, u)
            us = np.linalg.solve(self.Kbt + Hs, -np.cross(u, self.Kbt @ u)
                                 - np.cross(v, nb) - b)
            f[12:15] = -np.cross(u, nb) - Gs @ us - a - R.T @ self.rhoAg
            f[15:18] = us
        f[0:3] = R @ v
        f[3:12] = (R @ hat(u)).ravel()
        return f

    def y0(self, x):
        y = np.zeros(18)
        y[3:12] = np.eye(3).ravel()
        if self.cosserat:
            y[12:15] = np.linalg.solve(self.Kse, x[0:3]) + [0, 0, 1]
        else:
            y[12:15] = x[0:3]
        y[15:18] = x[3:6]
        return y

    def integrate(self, x, rk4=None):
        y0 = self.y0(x)
        if rk4:  # classic RK4 on rk4 equally spaced points
            ds = self.L / (rk4 - 1)
            y, s = y0.copy(), 0.0
            for _ in range(rk4 - 1):
                k1 = self.ode(s, y)
                k2 = self.ode(s + ds / 2, y + ds / 2 * k1)
                k3 = self.ode(s + ds / 2, y + ds / 2 * k2)
                k4 = self.ode(s + ds, y + ds * k3)
                y = y + ds / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
                s += ds
            return y
        sol = solve_ivp(self.ode, (0, self.L), y0, method="DOP853",
                        rtol=1e-13, atol=1e-15)
        return sol.y[:, -1]

    def residual(self, x, rk4=None):
        """Tip equilibrium: the backbone's n, m at L against the tendons'
        terminations (each pulls along its tangent, -tau t)."""
        y = self.integrate(x, rk4)
        u = y[15:18]
        if self.cosserat:
            v = y[12:15]
            nb = self.Kse @ (v - [0, 0, 1])
        else:
            v = np.array([0.0, 0.0, 1.0])
            nb = y[12:15]
        mb = self.Kbt @ u
        F, M = -nb, -mb
        for t in self.tendons:
            r, rs, _ = t.route(self.L)
            pb = np.cross(u, r) + v + rs
            Fb = -t.tau * pb / np.linalg.norm(pb)
            F = F + Fb
            M = M + np.cross(r, Fb)
        return np.concatenate([F, M])

    def solve(self, rk4=None):
        """Levenberg-Marquardt (MINPACK through SciPy) on the unknowns
        scaled by the bending stiffness (n(0) L^2/EI, u(0) L) and the
        residual likewise, to a residual at rounding."""
        EI, L = self.Kbt[0, 0], self.L
        xs = np.array([EI / L**2] * 3 + [1 / L] * 3)
        rs = 1 / np.array([EI / L**2] * 3 + [EI / L] * 3)
        sol = least_squares(lambda z: self.residual(z * xs, rk4) * rs,
                            np.zeros(6), method="lm", xtol=1e-15,
                            ftol=1e-15, gtol=1e-15, diff_step=1e-6)
        x = sol.x * xs
        return x, self.integrate(x, rk4)


def tip(case):
    rod = Rod(case)
    _, y = rod.solve(case.get("rk4"))
    return y[0:3]


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("usage: ")[1].split("\n")[0], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        case = json.load(f)
    p = tip(case)
    print(" ".join(f"{c:.17g}" for c in p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

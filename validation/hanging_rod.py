"""An independent solution of a soft rod hanging under its own weight, for
the soft-rod statics tests (tests/test_statics.c, soft_rods) and
docs/numerics.md (Statics, soft rods): a rod of length L clamped
horizontally, its weight w per length, at W = w L^3 / EI up to 5000 and
beyond, where the static solutions grow by exp(2/3 sqrt W) along the rod
and simple shooting cannot resolve them.

The planar rod in the angle form, by collocation (SciPy's solve_bvp, a
fourth-order method on an adaptive mesh, at a residual tolerance of 1e-10)
continued in W from 1: a different formulation and a different method from
rodsim's (the n-m form, RK4 shooting on segments). In units of L, with phi
the angle of the tangent d3 = (sin phi, 0, cos phi) from +z (the clamp's
phi = pi/2, +x; hanging, phi = pi), the internal force is known, n(s) =
-W (1 - s) z (the weight beyond s), and

    phi'' = -W (1 - s) p'_x,   phi(0) = pi/2,   phi'(1) = 0,
    p' = v3 d3 + v1 d1,        d1 = (cos phi, 0, -sin phi),

with the Kirchhoff rod's v3 = 1, v1 = 0, and the Cosserat rod's
v3 = 1 + n.d3 / EA = 1 - W e (1 - s) cos phi, v1 = n.d1 / (kappa G A) =
W g (1 - s) sin phi, e = EI / (EA L^2), g = EI / (kappa G A L^2).

usage: hanging_rod.py W [e g]   prints W, the tip x and z (units of L) at
13 digits, the mesh's points and its largest residual
"""
import sys

import numpy as np
from scipy.integrate import solve_bvp


def solve(W, e=0.0, g=0.0, tol=1e-10):
    """The tip (x, z) / L of the rod at W (and e, g), and solve_bvp's
    result."""

    def rhs(Wk):
        def f(s, y):
            phi, kap = y[0], y[1]
            q = Wk * (1 - s)
            v3 = 1 - e * q * np.cos(phi)
            v1 = g * q * np.sin(phi)
            px = v3 * np.sin(phi) + v1 * np.cos(phi)
            pz = v3 * np.cos(phi) - v1 * np.sin(phi)
            return np.vstack([kap, -q * px, px, pz])

        return f

    def bc(a, b):
        return np.array([a[0] - np.pi / 2, b[1], a[2], a[3]])

    s = np.linspace(0, 1, 2001)
    y = np.zeros((4, s.size))
    y[0] = np.pi / 2
    y[2] = s
    r = None
    for Wk in np.geomspace(1, W, 30):
        r = solve_bvp(rhs(Wk), bc, s, y, tol=tol, max_nodes=400000)
        if not r.success:
            raise RuntimeError("W = %g: %s" % (Wk, r.message))
        s, y = r.x, r.y
    return (r.y[2, -1], r.y[3, -1]), r


def main():
    W = float(sys.argv[1])
    e = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    g = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    (x, z), r = solve(W, e, g)
    print("%g %.13f %.13f %d %.2g" % (W, x, z, r.x.size,
                                      r.rms_residuals.max()))


if __name__ == "__main__":
    main()

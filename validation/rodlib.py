"""Helpers shared by the validation studies: running rodsim, reading its
HDF5 files, Euler-Bernoulli modes, modal projection, Prony frequency
estimates, and the elastica reference.

Pure numpy/h5py (Debian python3-numpy, python3-h5py); no rodsim code is
reimplemented here except the independent references.
"""
import cmath
import csv
import io
import math
import os
import subprocess
import tempfile

import h5py
import numpy as np

BETA_L = (1.875104068711961, 4.694091132974175, 7.854757438237613)


class Rodsim:
    """Runs the rodsim binary into a scratch directory."""

    def __init__(self, exe="build/rodsim", scratch=None):
        self.exe = os.path.abspath(exe)
        self.scratch = scratch or tempfile.mkdtemp(prefix="rodsim_val_")

    def run(self, scenario, sets=(), static=False, name="run"):
        out = os.path.join(self.scratch, name + ".h5")
        cmd = [self.exe, "static" if static else "run", scenario, "-o", out,
               "--quiet"]
        for s in sets:
            cmd += ["--set", s]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {p.stderr.strip()}")
        return load(out), p.stdout

    def bench(self, scenario, dts, sets=()):
        cmd = [self.exe, "bench", scenario, "--dt", dts]
        for s in sets:
            cmd += ["--set", s]
        p = subprocess.run(cmd, capture_output=True, text=True)
        return list(csv.DictReader(io.StringIO(p.stdout)))

    def tool(self, args):
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip()}")
        return p.stdout


def load(path):
    """The datasets of a rodsim file as a dict of numpy arrays."""
    d = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                d["/" + name] = obj[...]
        f.visititems(visit)
        for k, v in f.attrs.items():
            d["@" + k] = v.decode() if isinstance(v, bytes) else v
    return d


def section_properties(d=1.42e-3, E=200e9, rho=7800, EI=None):
    A = math.pi * d * d / 4
    I = math.pi * d ** 4 / 64
    return rho * A, (EI if EI is not None else E * I)


def eb_omega(n, L, EI, rhoA):
    """Euler-Bernoulli cantilever angular frequency of mode n (0-based)."""
    b = BETA_L[n] / L
    return b * b * math.sqrt(EI / rhoA)


def mode_shape(s, L, n):
    bl = BETA_L[n]
    b = bl / L
    sigma = (math.cosh(bl) + math.cos(bl)) / (math.sinh(bl) + math.sin(bl))
    return (np.cosh(b * s) - np.cos(b * s)
            - sigma * (np.sinh(b * s) - np.sin(b * s)))


def simpson_weights(s):
    """Quadrature weights on a (possibly non-uniform) grid: Simpson on pairs
    of intervals, a trapezoid for a last odd interval."""
    w = np.zeros_like(s)
    j = 0
    while j + 2 < len(s):
        h0, h1 = s[j + 1] - s[j], s[j + 2] - s[j + 1]
        H = h0 + h1
        w[j] += H / 6 * (2 - h1 / h0)
        w[j + 1] += H ** 3 / (6 * h0 * h1)
        w[j + 2] += H / 6 * (2 - h0 / h1)
        j += 2
    if j + 1 < len(s):
        h = s[j + 1] - s[j]
        w[j] += h / 2
        w[j + 1] += h / 2
    return w


def modal(run, n, axis=2):
    """Projection of the displacement along `axis` on mode n, per sample."""
    s = run["/rod/s"]
    L = s[-1]
    w = simpson_weights(s)
    phi = mode_shape(s, L, n)
    z = run["/rod/position"][:, :, axis]
    return (z * (w * phi)).sum(axis=1) / (w * phi * phi).sum()


def prony(q, theta_guess, i0=5):
    """Per-sample phase theta and decay rho of one damped sinusoid in q
    (uniform samples), from q(i+m) = a q(i) + b q(i-m) by least squares;
    the stride m keeps m theta near 0.5."""
    m = max(1, int(0.5 / theta_guess))
    x1 = q[i0 + m:-m]
    x2 = q[i0:-2 * m]
    y = q[i0 + 2 * m:]
    A = np.stack([x1, x2], axis=1)
    (a, b), *_ = np.linalg.lstsq(A, y, rcond=None)
    rm = math.sqrt(-b)
    return math.acos(a / (2 * rm)) / m, rm ** (1.0 / m)


def bdf_root(alpha, dt, w):
    """Principal root of BDF-alpha applied to y' = i w y."""
    den = dt * (1 + alpha)
    c0, c1, c2 = (1.5 + alpha) / den, -2 / dt, (0.5 + alpha) / den
    d1 = alpha / (1 + alpha)
    A, B, C = c0 - 1j * w, c1 + 1j * d1 * w, c2
    d = cmath.sqrt(B * B - 4 * A * C)
    z1, z2 = (-B + d) / (2 * A), (-B - d) / (2 * A)
    return z1 if abs(z1) > abs(z2) else z2


def _gauss(f, a, b, panels=400):
    x, w = np.polynomial.legendre.leggauss(5)
    h = (b - a) / panels
    c = a + (np.arange(panels) + 0.5) * h
    pts = (c[:, None] + 0.5 * h * x[None, :]).ravel()
    return 0.5 * h * np.sum(np.tile(w, panels) * f(pts))


def elastica(k):
    """Cantilever under a dead tip load P perpendicular to the clamp,
    k = P L^2 / EI: (tip angle, tip coordinate along the clamp / L, tip
    deflection along the load / L). With sin(theta) = a - u^2 the elliptic
    integrals become smooth."""
    lo, hi = 1e-12, 1 - 1e-15
    for _ in range(200):
        a = 0.5 * (lo + hi)
        I = _gauss(lambda u: 2 / np.sqrt(1 - (a - u * u) ** 2), 0, math.sqrt(a))
        if I > math.sqrt(2 * k):
            hi = a
        else:
            lo = a
    a = 0.5 * (lo + hi)
    defl = _gauss(lambda u: 2 * (a - u * u) / np.sqrt(1 - (a - u * u) ** 2),
                  0, math.sqrt(a)) / math.sqrt(2 * k)
    return math.asin(a), math.sqrt(2 * a / k), defl


def planar_cantilever(EI, P, w, L, n=2000):
    """Planar cantilever in the angle form, EI theta'' = -(P + w (L - s))
    cos(theta), theta(0) = 0, theta'(L) = 0, by bisection on theta'(0) with
    RK4 on n steps. Returns (deflection along the load, tip along the
    clamp)."""
    h = L / n

    def shoot(k0):
        th, k, x, y = 0.0, k0, 0.0, 0.0
        for i in range(n):
            s = i * h

            def f(st, ss):
                t, kk, _, _ = st
                return np.array([kk, -(P + w * (L - ss)) * math.cos(t) / EI,
                                 math.cos(t), math.sin(t)])
            st = np.array([th, k, x, y])
            k1 = f(st, s)
            k2 = f(st + h / 2 * k1, s + h / 2)
            k3 = f(st + h / 2 * k2, s + h / 2)
            k4 = f(st + h * k3, s + h)
            st = st + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            th, k, x, y = st
        return k, y, x

    lo, hi = 0.0, (P * L + w * L * L) / EI * 2 + 1
    for _ in range(50):
        k0 = 0.5 * (lo + hi)
        kend, y, x = shoot(k0)
        if kend > 0:
            hi = k0
        else:
            lo = k0
    return y, x

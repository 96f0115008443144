#!/usr/bin/python3
"""Plot a calibration: measured tip against the fitted scenario's simulation.

usage: plot_calibration.py FITTED.ini --data TIP.csv [--h5 RUN.h5]
                           [--rodsim build/rodsim] [-o FITTED.png]

FITTED.ini is the output of `rodsim calibrate`. Without --h5 the fitted
scenario is run with `rodsim run` (to the data's last time, every step
written) into a temporary file. The simulated tip is interpolated to the
data's times by cubic Hermite interpolation with the simulated tip velocity
(/rod/velocity), so the residuals show the fit, not the interpolation. Top:
the measured and simulated coordinates; bottom: simulated minus measured.

Needs Debian's python3-numpy, python3-h5py and python3-matplotlib.
"""
import argparse
import configparser
import os
import subprocess
import tempfile

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def read_tip_csv(path):
    """Columns of a tip CSV (docs/files.md) as a dict of arrays."""
    with open(path) as f:
        lines = [s.strip() for s in f]
    rows = [s for s in lines if s and not s.startswith("#")]
    names = [n.strip() for n in rows[0].split(",")]
    values = np.array([[float(v) for v in r.split(",")] for r in rows[1:]])
    return {n: values[:, k] for k, n in enumerate(names)}


def read_fit(path):
    """The [fit] section of a fitted scenario, or None."""
    ini = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    ini.read(path)
    if not ini.has_section("fit"):
        return None
    fit = dict(ini["fit"])
    keys = fit["keys"].split(",")
    errors = fit["std_error"].split()
    values = [ini["rod"][k] for k in keys]
    return keys, values, errors, fit


def simulate(rodsim, fitted, t_end, scratch):
    out = os.path.join(scratch, "fitted.h5")
    subprocess.run([rodsim, "run", fitted, "-o", out, "--quiet",
                    "--set", f"time.duration={t_end:.17g}",
                    "--set", "output.every=1"], check=True)
    return out


def hermite(t, p, v, tq):
    """Cubic Hermite interpolation of positions p with velocities v."""
    tq = np.clip(tq, t[0], t[-1])
    k = np.clip(np.searchsorted(t, tq, side="right") - 1, 0, len(t) - 2)
    h = t[k + 1] - t[k]
    s = (tq - t[k]) / h
    h00 = 2 * s**3 - 3 * s**2 + 1
    h10 = s**3 - 2 * s**2 + s
    h01 = -2 * s**3 + 3 * s**2
    h11 = s**3 - s**2
    return h00 * p[k] + h10 * h * v[k] + h01 * p[k + 1] + h11 * h * v[k + 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fitted")
    ap.add_argument("--data", required=True)
    ap.add_argument("--h5", help="a run of the fitted scenario")
    ap.add_argument("--rodsim", default="build/rodsim")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    out = a.output or os.path.splitext(a.fitted)[0] + ".png"
    data = read_tip_csv(a.data)
    td = data["t"]
    with tempfile.TemporaryDirectory(prefix="rodsim_calib_") as scratch:
        h5 = a.h5 or simulate(a.rodsim, a.fitted, max(td[-1], 0.0), scratch)
        with h5py.File(h5, "r") as f:
            t = f["/time"][...]
            tip = f["/tip/position"][...]
            vel = f["/rod/velocity"][:, -1, :]
    coords = [c for c in "xyz" if c in data]
    fig, ax = plt.subplots(2, 1, figsize=(9, 7), sharex=True,
                           gridspec_kw={"height_ratios": [2, 1]})
    for c in coords:
        i = "xyz".index(c)
        sim = hermite(t, tip[:, i], vel[:, i], td)
        res = sim - data[c]
        rms = np.sqrt(np.mean(res**2))
        line, = ax[0].plot(t, tip[:, i], lw=1, label=f"{c} simulated")
        ax[0].plot(td, data[c], ".", ms=1.5, color=line.get_color(),
                   alpha=0.5, label=f"{c} measured")
        ax[1].plot(td, res * 1e3, lw=0.6, color=line.get_color(),
                   label=f"{c}: rms {rms * 1e3:.3g} mm")
    fit = read_fit(a.fitted)
    title = os.path.basename(a.fitted)
    if fit:
        keys, values, errors, section = fit
        title += "\n" + ", ".join(f"{k} = {float(v):.6g} ± {float(e):.2g}"
                                  for k, v, e in zip(keys, values, errors))
    ax[0].set_title(title, fontsize=9)
    ax[0].set_ylabel("tip position (m)")
    ax[0].legend(loc="best", fontsize=8, markerscale=4)
    ax[0].grid(alpha=0.3)
    ax[1].set_ylabel("simulated - measured (mm)")
    ax[1].set_xlabel("time since release (s)")
    ax[1].legend(loc="best", fontsize=8)
    ax[1].grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()

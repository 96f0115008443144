#!/usr/bin/python3
"""Plot a calibration: the measured tip against the fitted and the start rod.

usage: plot_calibration.py FITTED.ini --data TIP.csv [--h5 RUN.h5]
                           [--set N] [--rodsim RODSIM] [-o FITTED.png]

RODSIM: $RODSIM, else build/rodsim under the working directory or of this
checkout, else rodsim on PATH.

FITTED.ini is the output of `rodsim calibrate`. The fitted scenario is run
with `rodsim run` (to the data's last time, every step written) into a
temporary directory, and so is the rod the fit started from (the [fit]
section's `start` values), unless --h5 gives a run of the fitted scenario
(then the start is not drawn). The simulated tip is interpolated to the
data's times by cubic Hermite interpolation with the simulated tip velocity
(/rod/velocity), so the residuals show the fit, not the interpolation.

Of a joint fit (several data sets), --set N plots data set N (default 1)
against its own scenario, the [fit] section's data_N line, run with the
fitted values.

Left: each measured coordinate (points) over the fitted simulation (thin
line) and the start's (dashed), and, when the fit ran an ensemble
(`rodsim calibrate --ensemble`), the band its draws predict (shaded: the
5 % to 95 % quantiles of the tip over the draws, the [fit] section's
band_N lines); and the residuals, simulated minus measured. Right: the first period enlarged, and the fitted values with
their standard errors, units and the start.

Bad input (a missing or malformed file, a wrong option) is one line and
exit status 2, as for the module's plotting tools (rodsim.plot).
Needs Debian's python3-numpy, python3-h5py and python3-matplotlib.
"""
import configparser
import os
import subprocess
import sys
import tempfile

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

FIT_COLOR = "black"
START_COLOR = "tab:orange"
DATA_COLOR = "tab:blue"
BAND_COLOR = "tab:gray"


def tools():
    """What the module's plotting tools share (python/rodsim/_runfile.py:
    one line on bad input), loaded from this checkout when first needed."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from rodtools import tool
    return tool("_runfile")


def read_tip_csv(path):
    """Columns of a tip CSV (docs/files.md) as a dict of arrays."""
    with open(path) as f:
        lines = [s.strip() for s in f]
    rows = [s for s in lines if s and not s.startswith("#")]
    try:
        names = [n.strip() for n in rows[0].split(",")]
        values = np.array([[float(v) for v in r.split(",")]
                           for r in rows[1:]])
        return {n: values[:, k] for k, n in enumerate(names)}
    except (IndexError, ValueError) as e:
        raise tools().BadInput(f"{path}: not a tip CSV (t,x,z rows: "
                               f"{e})") from None


def read_band(fit, n):
    """Data set n's ensemble band of the [fit] section: t (s) and, per
    coordinate, mean, q05, q95 (m) as arrays; None without one."""
    rows = sorted(k for k in fit if k.startswith(f"band_{n}."))
    if not rows:
        return None
    values = np.array([[float(v) for v in fit[k].split()] for k in rows])
    band = {"t": values[:, 0], "draws": fit.get(f"ensemble_{n}", "")}
    for i, c in enumerate("xyz"):
        band[c] = values[:, 1 + 3 * i:4 + 3 * i]
    return band


def read_fit(path, n=1):
    """The [fit] section of a fitted scenario as a dict, or None; n: the
    data set whose band and scenario to take."""
    ini = configparser.ConfigParser(inline_comment_prefixes=(";", "#"),
                                    interpolation=None)
    ini.optionxform = str
    with open(path) as f:  # the ; comment of a data_N line is its scenario
        text = f.read()
    ini.read_string(text)
    if not ini.has_section("fit"):
        return None
    fit = dict(ini["fit"])
    keys = fit["keys"].split(",")
    scenario = None
    for line in text.splitlines():
        if line.startswith(f"data_{n} ="):
            scenario = line.split(";", 1)[1].strip() if ";" in line else None
    return {
        "band": read_band(fit, n), "scenario": scenario,
        "keys": keys,
        "values": [float(ini["rod"][k]) for k in keys],
        "errors": [float(e) for e in fit["std_error"].split()],
        "start": ([float(v) for v in fit["start"].split()]
                  if "start" in fit else None),
        "rms": float(fit.get("rms_residual", "nan")),
        "iterations": fit.get("iterations", "?"),
        "simulations": fit.get("simulations", "?"),
    }


def units(rodsim):
    """Unit of every [rod] key, from the program's own key table."""
    p = subprocess.run([rodsim, "keys", "rod", "--markdown"],
                       capture_output=True, text=True)
    out = {}
    for line in p.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            out[cells[0].strip("`")] = cells[2]
    return out


def simulate(rodsim, scenario, t_end, out, sets=()):
    cmd = [rodsim, "run", scenario, "-o", out, "--quiet",
           "--set", f"time.duration={t_end:.17g}", "--set", "output.every=1"]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"plot_calibration: {' '.join(cmd)}: {p.stderr.strip()}")
    with h5py.File(out, "r") as f:
        return (f["/time"][...], f["/tip/position"][...],
                f["/rod/velocity"][:, -1, :])


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


def first_period(t, z):
    """The time of the second upward crossing of z's mean after t = 0 (one
    period), or a tenth of the record."""
    sel = t > 0
    zz = z[sel] - np.mean(z[sel])
    up = np.nonzero((zz[:-1] < 0) & (zz[1:] >= 0))[0]
    if len(up) >= 2:
        return t[sel][up[1]] * 1.05
    return t[-1] / 10


def fit_table(fit, unit_of):
    """Lines of the right-hand table."""
    rows = []
    for k, v, e, s in zip(fit["keys"], fit["values"], fit["errors"],
                          fit["start"] or [None] * len(fit["keys"])):
        u = unit_of.get(k, "")
        rows.append(f"{k} ({u})" if u else k)
        rows.append(f"   fit    {v:.6g} ± {e:.2g}")
        if s is not None:
            rows.append(f"   start  {s:.6g}  ({(v / s - 1) * 100:+.1f} %)")
    rows.append("")
    rows.append(f"rms residual {fit['rms'] * 1e3:.3g} mm")
    rows.append(f"{fit['iterations']} iterations, "
                f"{fit['simulations']} simulations")
    if fit.get("band") is not None:
        draws = fit["band"]["draws"].split(";")[0].strip()
        rows.append(f"ensemble: {draws}")
    return "\n".join(rows)


def default_rodsim():
    """$RODSIM, else build/rodsim under the working directory (where the
    README's commands run it from), else that of the checkout holding this
    script, else rodsim on PATH. Each is checked at the path it returns:
    ".." of a folder reached through a symbolic link is the link's target's
    parent to the system, not the folder the link is in."""
    script = os.path.dirname(os.path.abspath(__file__))
    places = [os.environ.get("RODSIM"),
              os.path.abspath(os.path.join("build", "rodsim")),
              os.path.join(os.path.dirname(os.path.realpath(script)),
                           "build", "rodsim")]
    for place in places:
        if place and os.access(place, os.X_OK):
            return place
    return "rodsim"


def main(argv=None):
    ap = tools().Parser(prog="plot_calibration",
                        description=__doc__.splitlines()[0])
    ap.add_argument("fitted")
    ap.add_argument("--data", required=True)
    ap.add_argument("--h5", help="a run of the fitted scenario")
    ap.add_argument("--set", type=int, default=1,
                    help="the data set of a joint fit to plot")
    ap.add_argument("--rodsim", default=default_rodsim())
    ap.add_argument("-o", "--output")
    a = ap.parse_args(argv)
    for path in (a.fitted, a.data) + ((a.h5,) if a.h5 else ()):
        if not os.path.isfile(path):
            raise tools().BadInput(f"{path}: no such file")
    out = tools().output_name(a.output, a.fitted,
                              (".png", ".pdf", ".svg"))
    data = read_tip_csv(a.data)
    td = data["t"]
    t_end = max(td[-1], 0.0)
    fit = read_fit(a.fitted, a.set)
    unit_of = units(a.rodsim)
    # set N > 1 of a joint fit: its own scenario with the fitted values
    scenario, fitted_sets = a.fitted, []
    if a.set > 1:
        if not fit or not fit["scenario"]:
            raise tools().BadInput(f"{a.fitted}: --set {a.set}: no data_"
                                   f"{a.set} line in its [fit] section")
        scenario = fit["scenario"]
        fitted_sets = [f"rod.{k}={v:.17g}" for k, v in zip(fit["keys"],
                                                           fit["values"])]
    with tempfile.TemporaryDirectory(prefix="rodsim_calib_") as scratch:
        if a.h5:
            with h5py.File(a.h5, "r") as f:
                fitted = (f["/time"][...], f["/tip/position"][...],
                          f["/rod/velocity"][:, -1, :])
        else:
            fitted = simulate(a.rodsim, scenario, t_end,
                              os.path.join(scratch, "fitted.h5"),
                              fitted_sets)
        start = None
        if fit and fit["start"] and not a.h5:
            sets = [f"rod.{k}={v:.17g}" for k, v in zip(fit["keys"],
                                                        fit["start"])]
            start = simulate(a.rodsim, scenario, t_end,
                             os.path.join(scratch, "start.h5"), sets)
    band = fit["band"] if fit else None
    coords = [c for c in "zxy" if c in data]
    n = len(coords)
    rows = n + 1 + (band is not None)
    fig = plt.figure(figsize=(13, 3.0 * rows + 0.6))
    gs = fig.add_gridspec(rows, 2, width_ratios=[3, 1.25], hspace=0.45,
                          wspace=0.22)
    axes = [fig.add_subplot(gs[k, 0]) for k in range(rows)]
    for ax in axes[1:]:
        ax.sharex(axes[0])
    res_ax = axes[n]
    zoom = fig.add_subplot(gs[0, 1])
    text_ax = fig.add_subplot(gs[1:, 1])
    text_ax.axis("off")
    t_zoom = first_period(td, data[coords[0]])
    # the overview shows at most ~500 of the samples (the enlarged first
    # period and the residuals show them all)
    stride = max(1, len(td) // 500)
    res_colors = ("tab:green", "tab:purple", "tab:brown")
    for k, c in enumerate(coords):
        i = "xyz".index(c)
        ax = axes[k]
        sim = hermite(fitted[0], fitted[1][:, i], fitted[2][:, i], td)
        rms = np.sqrt(np.mean((sim - data[c]) ** 2))
        srms = None
        if start is not None:
            s0 = hermite(start[0], start[1][:, i], start[2][:, i], td)
            srms = np.sqrt(np.mean((s0 - data[c]) ** 2))
        for target in [ax] + ([zoom] if k == 0 else []):
            big = target is zoom
            sel = td <= t_zoom if big else slice(None, None, stride)
            every = "" if big or stride == 1 else f", 1 in {stride} shown"
            target.plot(td[sel], data[c][sel] * 1e3, "o", ms=3 if big else 2.5,
                        mfc="none", mew=0.6, color=DATA_COLOR,
                        label=f"measured{every}", zorder=1)
            if start is not None:
                ts = start[0] <= t_zoom if big else slice(None)
                target.plot(start[0][ts], start[1][ts, i] * 1e3, "--",
                            lw=0.9, color=START_COLOR,
                            label=f"start (rms {srms * 1e3:.3g} mm)", zorder=2)
            if band is not None:
                tb = band["t"] <= (t_zoom if big else t_end)
                target.fill_between(
                    band["t"][tb], band[c][tb, 1] * 1e3,
                    band[c][tb, 2] * 1e3, color=BAND_COLOR, alpha=0.35,
                    lw=0, zorder=0,
                    label="ensemble 5-95 % ("
                          f"{band['draws'].split(',')[0]})")
            tf = fitted[0] <= t_zoom if big else slice(None)
            target.plot(fitted[0][tf], fitted[1][tf, i] * 1e3, "-", lw=0.8,
                        color=FIT_COLOR,
                        label=f"fitted (rms {rms * 1e3:.3g} mm)", zorder=3)
        ax.set_ylabel(f"tip {c} (mm)")
        ax.grid(alpha=0.3)
        ax.tick_params(labelbottom=False)
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8,
                  ncol=3, frameon=False, borderaxespad=0.2)
        res_ax.plot(td, (sim - data[c]) * 1e3, ".", ms=1.5,
                    color=res_colors[k], label=f"{c}: rms {rms * 1e3:.3g} mm")
    res_ax.axhline(0, color="0.5", lw=0.6)
    res_ax.set_ylabel("fitted - measured (mm)")
    res_ax.grid(alpha=0.3)
    res_ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=8,
                  ncol=3, frameon=False, borderaxespad=0.2, markerscale=5)
    if band is not None:
        # the predicted spread about the ensemble's mean, on its own scale
        res_ax.tick_params(labelbottom=False)
        band_ax = axes[n + 1]
        tb = band["t"] <= t_end
        for k, c in enumerate(coords):
            lo = (band[c][tb, 1] - band[c][tb, 0]) * 1e3
            hi = (band[c][tb, 2] - band[c][tb, 0]) * 1e3
            band_ax.fill_between(band["t"][tb], lo, hi, color=res_colors[k],
                                 alpha=0.35, lw=0,
                                 label=f"{c}: 5-95 %, widest "
                                       f"{np.max(hi - lo) * 1e3:.3g} um")
        band_ax.axhline(0, color="0.5", lw=0.6)
        band_ax.set_ylabel("ensemble - its mean (mm)")
        band_ax.grid(alpha=0.3)
        band_ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0),
                       fontsize=8, ncol=3, frameon=False, borderaxespad=0.2,
                       title=f"the tip over {band['draws'].split(',')[0]} "
                             "from the fit's covariance",
                       title_fontsize=8)
    axes[-1].set_xlabel("time since release (s)")
    zoom.set_title(f"tip {coords[0]}, first period", fontsize=10)
    zoom.set_xlabel("time since release (s)")
    zoom.set_ylabel(f"tip {coords[0]} (mm)")
    zoom.grid(alpha=0.3)
    if fit:
        text_ax.text(0.02, 0.98, fit_table(fit, unit_of), va="top",
                     ha="left", family="monospace", fontsize=9,
                     transform=text_ax.transAxes)
    fig.suptitle(f"Calibration of {os.path.basename(a.fitted)} against "
                 f"{os.path.basename(a.data)} ({len(td)} samples)",
                 fontsize=12)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    print(f"plot_calibration: {out}")


if __name__ == "__main__":
    sys.exit(tools().tool_main("plot_calibration", main, None))

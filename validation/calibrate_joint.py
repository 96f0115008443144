#!/usr/bin/python3
"""Calibration on two experiments (docs/validation.md): the weight release
and the impulse of Till & Rucker (2017), each alone and both at once.

data/weight_release_tip.csv and data/impulse_tip.csv are the two
experiments measured on one hidden rod (their '#' lines say how: EI
0.0335 N m^2, density 8600 kg/m^3, drag 0.0030 kg/m^2, 0.1 mm of noise).
Each of the three fits starts from the shipped scenarios' values (the
paper's, 11-19 % off) and runs --ensemble N draws from its covariance.
For each: the fitted values with their standard errors, how far they lie
from the hidden rod (in % and in standard errors), each set's noise
estimate and rms residual, the simulations and wall time, the band the
ensemble predicts, and the other experiment predicted with the values
fitted to one (the rms of its data against that run: calibrated on the
release and checked on the impulse, as the paper did).

Usage: calibrate_joint.py [--rodsim build/rodsim] [--out DIR]
       [--ensemble N] [--threads N]
Writes DIR/calibrate_joint.md and the plots of the joint fit,
DIR/calibrate_joint_release.png and DIR/calibrate_joint_impulse.png
(default validation/out). About 3 minutes on 2 busy cores.
"""
import argparse
import configparser
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import plot_calibration as pc  # noqa: E402

KEYS = ("bending_stiffness", "density", "drag")
TRUTH = {"bending_stiffness": 0.0335, "density": 8600.0, "drag": 0.0030}
UNITS = {"bending_stiffness": "N m²", "density": "kg/m³", "drag": "kg/m²"}
SETS = {"release": ("weight_release.ini", "weight_release_tip.csv"),
        "impulse": ("impulse.ini", "impulse_tip.csv")}


def scenario(name):
    return os.path.join(ROOT, "data", "scenarios", SETS[name][0])


def data(name):
    return os.path.join(ROOT, "data", SETS[name][1])


def calibrate(a, names, out, tmp):
    """rodsim calibrate on the sets names, --ensemble a.ensemble; the
    [fit] section and rod values of the fitted file, wall time, stderr."""
    cmd = [a.rodsim, "calibrate"]
    if len(names) == 1:
        cmd += [scenario(names[0]), "--data", data(names[0])]
    else:
        for n in names:
            cmd += ["--experiment", scenario(n), "--data", data(n)]
    cmd += ["-o", out, "--ensemble", str(a.ensemble), "--threads",
            str(a.threads), "--ensemble-dir",
            os.path.join(tmp, "_".join(names))]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("calibrate_joint.py: %s: exit %d: %s" %
                 (" ".join(cmd), p.returncode, p.stderr.strip()))
    ini = configparser.ConfigParser(inline_comment_prefixes=(";",),
                                    interpolation=None)
    ini.optionxform = str
    ini.read(out)
    fit = dict(ini["fit"])
    values = {k: float(ini["rod"][k]) for k in KEYS}
    errors = dict(zip(KEYS, map(float, fit["std_error"].split())))
    return {"fit": fit, "values": values, "errors": errors, "wall": wall,
            "stderr": p.stderr, "file": out}


def band_widths(fit, n):
    """The widest 5-95 % band of x and z (m) of set n's ensemble."""
    b = pc.read_band(fit, n)
    return [float(np.max(b[c][:, 2] - b[c][:, 1])) for c in "xz"]


def predicted_rms(a, name, values, tmp):
    """The rms (m) of experiment name's data against its scenario run with
    the fitted values (x and z, at the data's times, Hermite with the tip's
    velocity as plot_calibration.py interpolates)."""
    d = pc.read_tip_csv(data(name))
    sets = ["rod.%s=%.17g" % (k, v) for k, v in values.items()]
    t, p, v = pc.simulate(a.rodsim, scenario(name), max(d["t"][-1], 0.0),
                          os.path.join(tmp, "check.h5"), sets)
    r = []
    for i, c in ((0, "x"), (2, "z")):
        r.append(pc.hermite(t, p[:, i], v[:, i], d["t"]) - d[c])
    return float(np.sqrt(np.mean(np.concatenate(r) ** 2)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rodsim", default=os.environ.get("RODSIM",
                                                      "build/rodsim"))
    p.add_argument("--out", default="validation/out")
    p.add_argument("--ensemble", type=int, default=100)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    a.rodsim = os.path.abspath(a.rodsim)
    if not os.access(a.rodsim, os.X_OK):
        sys.exit("calibrate_joint.py: %s: no rodsim there (--rodsim)" %
                 a.rodsim)
    os.makedirs(a.out, exist_ok=True)
    runs = {}
    md = ["# Calibration on two experiments", "",
          "%s, %d cores, load %.1f, %s; %d draws an ensemble" %
          (os.uname().nodename, os.cpu_count(), os.getloadavg()[0],
           time.strftime("%Y-%m-%d %H:%M"), a.ensemble), ""]
    with tempfile.TemporaryDirectory(prefix="calibrate_joint") as tmp:
        for label, names in (("release alone", ["release"]),
                             ("impulse alone", ["impulse"]),
                             ("both at once", ["release", "impulse"])):
            out = os.path.join(tmp, "_".join(names) + ".ini")
            r = calibrate(a, names, out, tmp)
            r["names"] = names
            r["check"] = {n: predicted_rms(a, n, r["values"], tmp)
                          for n in SETS}
            r["bands"] = [band_widths(r["fit"], k + 1)
                          for k in range(len(names))]
            runs[label] = r
            sys.stderr.write("calibrate_joint.py: %s done (%.1f s)\n" %
                             (label, r["wall"]))
        joint = runs["both at once"]
        for k, name in enumerate(("release", "impulse")):
            png = os.path.join(a.out, "calibrate_joint_%s.png" % name)
            pc.main([joint["file"], "--data", data(name), "--set",
                     str(k + 1), "--rodsim", a.rodsim, "-o", png])
    md += ["| fit | " + " | ".join("%s (%s)" % (k, UNITS[k]) for k in KEYS) +
           " | rms residual | simulations | wall (s) |",
           "|---|" + "---|" * (len(KEYS) + 3)]
    for label, r in runs.items():
        cells = ["%.7g ± %.3g" % (r["values"][k], r["errors"][k])
                 for k in KEYS]
        md.append("| %s | %s | %s mm | %s | %.1f |" %
                  (label, " | ".join(cells),
                   "%.4g" % (float(r["fit"]["rms_residual"]) * 1e3),
                   r["fit"]["simulations"], r["wall"]))
    md.append("| hidden rod | " + " | ".join("%g" % TRUTH[k] for k in KEYS) +
              " | 0.1 mm noise | | |")
    md += ["", "Off the hidden rod, % and standard errors:", "",
           "| fit | " + " | ".join(KEYS) + " |", "|---|" + "---|" * 3]
    for label, r in runs.items():
        md.append("| %s | %s |" % (label, " | ".join(
            "%+.4f %% (%+.2f se)" % (
                100 * (r["values"][k] / TRUTH[k] - 1),
                (r["values"][k] - TRUTH[k]) / r["errors"][k])
            for k in KEYS)))
    md += ["", "Each experiment's data against its scenario run with each "
           "fit's values (rms of x and z, mm), and the ensemble's widest "
           "5-95 % band (x, z in um):", "",
           "| fit | release data | impulse data | band: release | "
           "band: impulse |", "|---|---|---|---|---|"]
    for label, r in runs.items():
        bands = dict(zip(r["names"], r["bands"]))
        md.append("| %s | %.4f | %.4f | %s | %s |" % (
            label, r["check"]["release"] * 1e3, r["check"]["impulse"] * 1e3,
            "%.2f, %.2f" % tuple(1e6 * w for w in bands["release"])
            if "release" in bands else "",
            "%.2f, %.2f" % tuple(1e6 * w for w in bands["impulse"])
            if "impulse" in bands else ""))
    md += ["", "The joint fit's own lines:", "", "```"]
    md += [ln for ln in joint["stderr"].splitlines()]
    md += ["```", ""]
    path = os.path.join(a.out, "calibrate_joint.md")
    with open(path, "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))
    print("calibrate_joint.py: %s" % path)


if __name__ == "__main__":
    main()

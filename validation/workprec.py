#!/usr/bin/python3
"""Work-precision study: the largest tip error over a run against a
converged reference, versus the run's cost, for every time scheme, grid,
step and tolerance, on the weight release with drag (2 s) and the impulse
(0.5 s), both backends (in the manner of the SciML benchmarks' diagrams).

The reference of each scenario is computed here, on the Kirchhoff rod:
esdirk4 at dt = 0.125 ms on 200 nodes. Its error is stated from changes
of it: another table (sdirk4, same dt and grid), half the step (62.5 us),
1.5 times the nodes (300), a 1000 times tighter shooting tolerance, and an
independent method: the paper's BDF-alpha at 15.6 us (with a record per
RK4 stage, on a grid with k h <= 0.3); the largest tip difference among
them is the reference's error bound.

Cost: the process's CPU time of the whole run (static solve included), and
its wall time; the real-time ratio is simulated time over CPU time, which
on an idle machine is the wall time (this 2-core machine is shared, so its
wall times are noisy; `rodsim bench` best-of-N confirms the headline
numbers).

usage: workprec.py [--build build] [--out validation/out] [--quick]
                   [--replot OUT/workprec.csv]

Writes OUT/workprec.csv and OUT/workprec.png. Needs python3-numpy and
python3-matplotlib (Debian).
"""
import argparse
import csv
import os
import subprocess
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

SCENARIOS = {
    "weight release": ("data/scenarios/weight_release.ini", 2.0),
    "impulse": ("data/scenarios/impulse.ini", 0.5),
}

REFERENCE = {"time.scheme": "esdirk4", "time.dt": "1.25e-4",
             "space.nodes": "200"}
CHECKS = [
    ("sdirk4", {"time.scheme": "sdirk4"}),
    ("dt/2", {"time.dt": "6.25e-5", "output.every": "2"}),
    ("1.5 N", {"space.nodes": "300"}),
    ("solver.tolerance 1e-11", {"solver.tolerance": "1e-11"}),
    # BDF-alpha's phase error of the modes a release rings (w^3 dt^2 t)
    # asks for steps 8 times smaller than the reference's
    ("independent: bdf-alpha 15.6 us", {"time.scheme": "bdf-alpha",
                                        "time.dt": "1.5625e-5",
                           "output.every": "8", "space.history": "stage",
                           "space.nodes": "500"}),
]


def configurations(quick):
    """(label, family, settings) of every run of the study."""
    runs = []

    def add(family, label, **kv):
        runs.append((label, family, {k.replace("__", "."): str(v)
                                     for k, v in kv.items()}))

    dts = [2e-3, 1e-3, 5e-4] if quick else [2e-3, 1e-3, 5e-4, 2.5e-4]
    for n in ([100] if quick else [50, 100]):
        for dt in dts:
            add(f"bdf-alpha N={n}", f"dt {dt * 1e3:g} ms",
                time__scheme="bdf-alpha", time__dt=dt, space__nodes=n)
    for scheme, steps in (("esdirk3", [2e-3, 1e-3, 5e-4]),
                          ("esdirk4", [3e-3, 2e-3, 1e-3, 7e-4, 5e-4, 3.5e-4]),
                          ("sdirk4", [1e-3, 5e-4])):
        for n in ([40] if quick else [30, 40]):
            if scheme != "esdirk4" and n == 30:
                continue
            for dt in (steps[:2] if quick else steps):
                add(f"{scheme} N={n}", f"dt {dt * 1e3:g} ms",
                    time__scheme=scheme, time__dt=dt, space__nodes=n)
    # the shooting's tolerance as loose as these errors allow: a residual
    # r moves the rod by about r L / 2 (0.2 um at 1e-6)
    for n, steps in ((20, [5e-3, 4e-3, 3e-3, 2e-3]),
                     (30, [3e-3, 2e-3, 1e-3, 7e-4, 5e-4])):
        for dt in (steps[1:3] if quick else steps):
            add(f"esdirk4 N={n} solver 1e-6", f"dt {dt * 1e3:g} ms",
                time__scheme="esdirk4", time__dt=dt, space__nodes=n,
                solver__tolerance=1e-6)
    # the impulse's 0.1 mm: steps that follow its modes 5 and 6 on a grid
    # whose k h stays below 1 (44 nodes at 0.45 ms: k h = 0.85), the
    # shooting at 1e-5 (2.6 um, no change of the error)
    for dt in ([4.5e-4] if quick else [4.5e-4, 5e-4]):
        add("esdirk4 N=44 solver 1e-5", f"dt {dt * 1e3:g} ms",
            time__scheme="esdirk4", time__dt=dt, space__nodes=44,
            solver__tolerance=1e-5)
    # esdirk5: the same errors with steps about 1.8 times longer, on grids
    # whose k h stays below 1 at its c0 = 5.43 / dt (44 nodes from about
    # 0.6 ms)
    for n, steps in ((30, [2e-3, 1.4e-3, 1.2e-3, 1e-3]),
                     (44, [1.2e-3, 1e-3, 8e-4, 7e-4])):
        for dt in (steps[1:3] if quick else steps):
            add(f"esdirk5 N={n} solver 1e-5", f"dt {dt * 1e3:g} ms",
                time__scheme="esdirk5", time__dt=dt, space__nodes=n,
                solver__tolerance=1e-5)
    # under time.tolerance alone: the grid space.nodes = auto takes from it
    for scheme, tols in (("esdirk4", [2e-5, 1e-5, 5e-6]),
                         ("esdirk5", [1e-4, 5e-5, 2e-5, 1e-5, 5e-6])):
        for tol in (tols[1:3] if quick else tols):
            add(f"{scheme} tolerance auto", f"tol {tol:g} m",
                time__scheme=scheme, time__tolerance=tol)
    for scheme, n in (("esdirk3", 40), ("esdirk4", 40), ("esdirk4", 30)):
        for tol in ([1e-5, 1e-6] if quick else [1e-4, 1e-5, 1e-6]):
            add(f"{scheme} tolerance N={n}", f"tol {tol:g} m",
                time__scheme=scheme, time__tolerance=tol, space__nodes=n,
                output__interval=1e-3)
    for seg in ([10, 20] if quick else [10, 20, 40]):
        for dt in ([1e-3] if quick else [2e-3, 5e-4]):
            add(f"rfem genalpha {seg} segments", f"dt {dt * 1e3:g} ms",
                solver__backend="rfem", rfem__segments=seg, time__dt=dt)
    for seg in ([20] if quick else [20, 40]):
        for tol in ([1e-4] if quick else [1e-4, 1e-5]):
            add(f"rfem genalpha tolerance {seg} segments", f"tol {tol:g} m",
                solver__backend="rfem", rfem__segments=seg, time__dt=2e-3,
                time__tolerance=tol, output__interval=1e-3)
    return runs


def run(build, scenario, settings, duration, tip):
    """One run; the scheme's cost alone unless settings turn the run's
    error estimate on (time.error_estimate)."""
    args = [os.path.join(build, "validation", "workprec"), scenario,
            "--tip", tip, "--set", f"time.duration={duration}"]
    for k, v in {"time.error_estimate": "false", **settings}.items():
        args += ["--set", f"{k}={v}"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip()}")
    f = p.stdout.strip().split(",")
    return {"steps": int(f[0]), "rejected": int(f[1]), "wall": float(f[2]),
            "integrations": float(f[4]), "status": int(f[5]),
            "cpu": float(f[6]), "over": int(f[7]),
            "message": p.stderr.strip()}


def load_tip(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def cubic_at(ref, t):
    """Reference tip (x, y, z) at times t by 4-point Lagrange
    interpolation (its samples are 0.125 ms apart: interpolation error
    below 1e-9 m at these frequencies)."""
    idx = np.clip(np.searchsorted(ref[:, 0], t) - 2, 0, len(ref) - 4)
    out = np.zeros((len(t), 3))
    for l in range(4):
        w = np.ones(len(t))
        for k in range(4):
            if k != l:
                w *= (t - ref[idx + k, 0]) / (ref[idx + l, 0] - ref[idx + k, 0])
        out += w[:, None] * ref[idx + l, 1:4]
    return out


def max_error(ref, tip):
    t = tip[:, 0]
    return float(np.max(np.linalg.norm(tip[:, 1:4] - cubic_at(ref, t),
                                       axis=1)))


LOW_MODES_HZ = 60.0


def low_mode_error(ref, tip):
    """Largest error over the run of the tip's motion below LOW_MODES_HZ
    (modes 1 and 2 of both rods): the error series, on the run's samples
    (uniform at a fixed step; else nan), with the higher frequencies
    removed by FFT. The order of the scheme on the modes its step
    resolves."""
    t = tip[:, 0]
    h = np.diff(t)
    if len(t) < 8 or np.ptp(h) > 1e-6 * h.mean():
        return float("nan")
    e = tip[:, 1:4] - cubic_at(ref, t)
    f = np.fft.rfftfreq(len(t), h.mean())
    E = np.fft.rfft(e, axis=0)
    E[f > LOW_MODES_HZ] = 0
    return float(np.max(np.linalg.norm(np.fft.irfft(E, len(t), axis=0),
                                       axis=1)))


def study(build, out, quick):
    rows, checks = [], []
    tmp = tempfile.mkdtemp(prefix="workprec_")
    try:
        for name, (scenario, duration) in SCENARIOS.items():
            ref_path = os.path.join(tmp, "ref.csv")
            r = run(build, scenario, REFERENCE, duration, ref_path)
            if r["status"] != 0:
                raise RuntimeError(f"reference of {name}: {r['message']}")
            ref = load_tip(ref_path)
            ref_err = 0.0
            for label, change in CHECKS:
                path = os.path.join(tmp, "check.csv")
                c = run(build, scenario, {**REFERENCE, **change}, duration,
                        path)
                e = max_error(ref, load_tip(path)) if c["status"] == 0 \
                    else float("nan")
                print(f"{name}: reference against {label}: {e * 1e3:.4g} mm"
                      f" (cpu {c['cpu']:.3g} s)")
                checks.append((name, label, e))
                if not label.startswith("independent"):
                    ref_err = max(ref_err, e)
            for label, family, settings in configurations(quick):
                path = os.path.join(tmp, "run.csv")
                r = run(build, scenario, settings, duration, path)
                tip = load_tip(path) if r["status"] == 0 else None
                err = max_error(ref, tip) if tip is not None \
                    else float("nan")
                low = low_mode_error(ref, tip) if tip is not None \
                    else float("nan")
                row = {"scenario": name, "family": family, "run": label,
                       "dt_s": float(settings.get("time.dt", 2e-3)),
                       "tolerance_m": float(settings.get("time.tolerance",
                                                         "nan")),
                       "steps": r["steps"], "rejected": r["rejected"],
                       "over_tolerance": r["over"],
                       "integrations_per_step": r["integrations"],
                       "cpu_s": r["cpu"], "wall_s": r["wall"],
                       "realtime_cpu": duration / r["cpu"],
                       "max_tip_error_m": err,
                       "low_mode_error_m": low,
                       "reference_error_m": ref_err}
                rows.append(row)
                print(f"{name:15s} {family:28s} {label:14s} "
                      f"err {err * 1e3:8.4f} mm  cpu {r['cpu']:7.3f} s  "
                      f"x{duration / r['cpu']:6.2f}  steps {r['steps']}"
                      + (f"  FAILED {r['message']}" if r["status"] else ""))
    finally:
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        os.rmdir(tmp)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "workprec.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    plot(rows, os.path.join(out, "workprec.png"))
    summary(rows, checks, os.path.join(out, "workprec.md"))


def observed_orders(rows, name, fam, key="max_tip_error_m"):
    """Slopes of log(error) against log(dt) between successive steps of a
    fixed-step family (the order the error `key` shows)."""
    pts = sorted((r["dt_s"], r[key]) for r in rows
                 if r["scenario"] == name and r["family"] == fam
                 and np.isfinite(r[key]) and r[key] > 0)
    return [(b[0], a[0], np.log(b[1] / a[1]) / np.log(b[0] / a[0]))
            for a, b in zip(pts, pts[1:])]


def summary(rows, checks, path):
    """The study's tables: the reference's checks, every run, the order
    each fixed-step family shows, and the fastest run within each
    accuracy of ACCURACY."""
    with open(path, "w") as f:
        f.write("# Work-precision study\n\nlargest tip error over the run "
                "against the reference; real-time ratio = simulated time / "
                "CPU time\n")
        for name in SCENARIOS:
            f.write(f"\n## {name}\n\n| reference against | tip "
                    "difference (mm) |\n|---|---|\n")
            for n, label, e in checks:
                if n == name:
                    f.write(f"| {label} | {e * 1e3:.4g} |\n")
            f.write("\n| family | run | error (mm) | below "
                    f"{LOW_MODES_HZ:g} Hz (mm) | real time x | steps |"
                    " rejected | integrations/step |\n|---|---|---|---|---|"
                    "---|---|---|\n")
            mine = [r for r in rows if r["scenario"] == name]
            for r in mine:
                f.write(f"| {r['family']} | {r['run']} | "
                        f"{r['max_tip_error_m'] * 1e3:.4g} | "
                        f"{r['low_mode_error_m'] * 1e3:.3g} | "
                        f"{r['realtime_cpu']:.3g} | {r['steps']} | "
                        f"{r['rejected']} | "
                        f"{r['integrations_per_step']:.1f} |\n")
            f.write("\n| family | order observed, largest error (dt from "
                    f"-> to) | order below {LOW_MODES_HZ:g} Hz |\n"
                    "|---|---|---|\n")
            fams = []
            for r in mine:
                if r["family"] not in fams and "tolerance" not in \
                        r["family"]:
                    fams.append(r["family"])
            for fam in fams:
                o = observed_orders(rows, name, fam)
                lo = observed_orders(rows, name, fam, "low_mode_error_m")
                if o:
                    f.write(f"| {fam} | " + ", ".join(
                        f"{p:.2f} ({a * 1e3:g} -> {b * 1e3:g} ms)"
                        for a, b, p in o) + " | " + ", ".join(
                        f"{p:.2f}" for a, b, p in lo) + " |\n")
            f.write("\n| largest tip error at most | the fastest run "
                    "within it |\n|---|---|\n")
            for err in ACCURACY:
                ok = [r for r in mine if r["max_tip_error_m"] <= err]
                best = max(ok, key=lambda r: r["realtime_cpu"]) if ok \
                    else None
                f.write(f"| {err * 1e3:g} mm | " + (
                    f"{best['family']}, {best['run']}: "
                    f"{best['max_tip_error_m'] * 1e3:.3g} mm at "
                    f"{best['realtime_cpu']:.3g}x" if best else "none")
                    + " |\n")


# Accuracies of the summary's last table: the fastest run within each.
ACCURACY = [1e-3, 1e-4]


def family_style(fam):
    """Line, marker and colour of a family: colour by method, line by
    how the step is chosen."""
    line = "--" if "tolerance" in fam else ":" if fam.startswith("rfem") \
        else "-." if "solver" in fam else "-"
    marker = "s" if "tolerance" in fam else "^" if "solver" in fam else "o"
    palette = {"bdf-alpha N=50": "#9ecae1", "bdf-alpha N=100": "#2171b5",
               "esdirk3": "#31a354", "sdirk4": "#8c6d31",
               "esdirk4 N=20": "#e6550d", "esdirk4 N=30": "#a50f15",
               "esdirk4 N=40": "#fb6a4a", "esdirk4 N=44": "#67000d",
               "esdirk4 auto": "#fc9272", "esdirk5 N=30": "#54278f",
               "esdirk5 N=44": "#9e9ac8", "esdirk5 auto": "#756bb1",
               "rfem genalpha 10": "#d9d9d9",
               "rfem genalpha 20": "#969696", "rfem genalpha 40": "#525252"}
    base = fam.replace(" tolerance", "").split(" solver")[0]
    key = next((k for k in palette if base.startswith(k)), None)
    return line, marker, palette.get(key, "k")


def plot(rows, path):
    fig, axes = plt.subplots(1, 2, figsize=(14, 5.6))
    handles = {}
    for ax, name in zip(axes, SCENARIOS):
        duration = SCENARIOS[name][1]
        fams = []
        for r in rows:
            if r["scenario"] == name and r["family"] not in fams:
                fams.append(r["family"])
        for fam in fams:
            pts = sorted((r["realtime_cpu"], r["max_tip_error_m"])
                         for r in rows
                         if r["scenario"] == name and r["family"] == fam
                         and np.isfinite(r["max_tip_error_m"]))
            if not pts:
                continue
            x, y = zip(*pts)
            line, marker, colour = family_style(fam)
            (h,) = ax.plot(x, np.array(y) * 1e3, line, marker=marker, ms=4,
                           color=colour, label=fam)
            handles.setdefault(fam, h)
        ref = max(r["reference_error_m"] for r in rows
                  if r["scenario"] == name)
        ax.axhline(ref * 1e3, color="gray", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(top=30)
        ax.set_xlabel("real-time ratio (simulated time / CPU time)")
        ax.set_ylabel("largest tip error over the run (mm)")
        ax.set_title(f"{name}, {duration:g} s (grey: the reference's error)")
        ax.grid(True, which="both", alpha=0.3)
    fig.legend(list(handles.values()), list(handles.keys()), fontsize=7.5,
               loc="center right")
    fig.tight_layout(rect=(0, 0, 0.82, 1))
    fig.savefig(path, dpi=100)


def read_rows(path):
    """The rows of a workprec.csv, numbers as numbers."""
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            for k, v in r.items():
                if k not in ("scenario", "family", "run"):
                    r[k] = float(v)
            rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="validation/out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--replot", metavar="CSV",
                    help="draw OUT/workprec.png from a workprec.csv only")
    a = ap.parse_args()
    if a.replot:
        plot(read_rows(a.replot), os.path.join(a.out, "workprec.png"))
    else:
        study(a.build, a.out, a.quick)


if __name__ == "__main__":
    main()

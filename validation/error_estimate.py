#!/usr/bin/python3
"""The run's own error estimate against its true error: the largest tip
error over a run, estimated by the run (time.error_estimate: a companion
at twice time.dt, docs/numerics.md), against the largest tip error from
the converged reference of the work-precision study (workprec.py: esdirk4
at 0.125 ms on 200 nodes), on the weight release (2 s), the impulse
(0.5 s) and a heavy release (the weight release's rod with
M g L^2 / EI = 10, 0.3 s), by BDF-alpha on the grid space.nodes = auto
takes at each step, by esdirk4 and esdirk5 at fixed steps and under
time.tolerance (two of the run's steps as one step of the companion).
Also at a quarter, half and three quarters of each run (the estimate so
far against the error so far), and the cost: CPU time with the estimate
over CPU time without.

usage: error_estimate.py [--build build] [--out validation/out] [--quick]

Writes OUT/error_estimate.csv and OUT/error_estimate.md. Needs
python3-numpy (Debian).
"""
import argparse
import csv
import os
import tempfile

import numpy as np

import workprec

HEAVY = "heavy release"
CASES = {
    "weight release": ("data/scenarios/weight_release.ini", 2.0, {}),
    "impulse": ("data/scenarios/impulse.ini", 0.5, {}),
    # M g L^2 / EI = 10 with the weight release's EI and L
    HEAVY: ("data/scenarios/weight_release.ini", 0.3,
            {"tip.mass": f"{10 * 0.03803 / (9.81 * 0.408 ** 2):.6g}"}),
}


def runs(quick):
    """(label, settings) of the runs of each case."""
    out = []
    for dt in ([2e-3, 1e-3] if quick else [2e-3, 1e-3, 5e-4]):
        out.append((f"bdf-alpha {dt * 1e3:g} ms", {"time.dt": dt}))
    for dt, n in ([(1e-3, 30)] if quick else
                  [(1e-3, 30), (7e-4, 30), (1e-3, 40), (5e-4, 44)]):
        out.append((f"esdirk4 {dt * 1e3:g} ms, {n} nodes",
                    {"time.scheme": "esdirk4", "time.dt": dt,
                     "space.nodes": n}))
    for dt, n in ([(1.2e-3, 30)] if quick else
                  [(2e-3, 30), (1.2e-3, 30), (1.2e-3, 44), (8e-4, 44)]):
        out.append((f"esdirk5 {dt * 1e3:g} ms, {n} nodes",
                    {"time.scheme": "esdirk5", "time.dt": dt,
                     "space.nodes": n}))
    # under time.tolerance, on the grid auto takes from the tolerance
    for scheme, tols in (("esdirk4", [1e-5, 5e-6]),
                         ("esdirk5", [5.5e-5, 6e-6])):
        for tol in (tols[:1] if quick else tols):
            out.append((f"{scheme} time.tolerance {tol:g} m",
                        {"time.scheme": scheme, "time.tolerance": tol}))
    return out


def running_max_error(ref, tip):
    e = np.linalg.norm(tip[:, 1:4] - workprec.cubic_at(ref, tip[:, 0]),
                       axis=1)
    return np.maximum.accumulate(e)


def study(build, out, quick):
    rows = []
    tmp = tempfile.mkdtemp(prefix="errest_")
    try:
        for name, (scenario, duration, extra) in CASES.items():
            ref_path = os.path.join(tmp, "ref.csv")
            r = workprec.run(build, scenario, {**workprec.REFERENCE, **extra},
                             duration, ref_path)
            if r["status"] != 0:
                raise RuntimeError(f"reference of {name}: {r['message']}")
            ref = workprec.load_tip(ref_path)
            for label, settings in runs(quick):
                s = {**extra, **{k: str(v) for k, v in settings.items()}}
                path = os.path.join(tmp, "run.csv")
                a = workprec.run(build, scenario,
                                 {**s, "time.error_estimate": "true"},
                                 duration, path)
                if a["status"] != 0:
                    print(f"{name}, {label}: failed: {a['message']}")
                    continue
                tip = workprec.load_tip(path)
                b = workprec.run(build, scenario,
                                 {**s, "time.error_estimate": "false"},
                                 duration, os.path.join(tmp, "off.csv"))
                err = running_max_error(ref, tip)
                est = tip[:, 4]
                motion = np.max(np.linalg.norm(tip[:, 1:4] - tip[0, 1:4],
                                               axis=1))
                quarters = [est[i] / err[i] if err[i] > 0 else np.nan
                            for i in (len(tip) // 4, len(tip) // 2,
                                      3 * len(tip) // 4)]
                row = {"case": name, "run": label,
                       "error_mm": err[-1] * 1e3, "estimate_mm": est[-1] * 1e3,
                       "ratio": est[-1] / err[-1],
                       "ratio_quarter": quarters[0],
                       "ratio_half": quarters[1],
                       "ratio_three_quarters": quarters[2],
                       "motion_mm": motion * 1e3,
                       "cost": a["cpu"] / b["cpu"] if b["cpu"] > 0
                       else np.nan}
                rows.append(row)
                print(f"{name:15s} {label:26s} error {row['error_mm']:8.4f} mm"
                      f"  estimate {row['estimate_mm']:8.4f} mm  ratio "
                      f"{row['ratio']:5.2f} ({quarters[0]:.2f}, "
                      f"{quarters[1]:.2f}, {quarters[2]:.2f})  cost x"
                      f"{row['cost']:.2f}", flush=True)
    finally:
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        os.rmdir(tmp)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "error_estimate.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "error_estimate.md"), "w") as f:
        f.write("# The run's error estimate against its true error\n\n"
                "| case | run | largest tip error (mm) | estimate (mm) | "
                "estimate / error (at 1/4, 1/2, 3/4 of the run) | tip's "
                "motion (mm) | CPU with / without |\n"
                "|---|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['case']} | {r['run']} | {r['error_mm']:.3g} | "
                    f"{r['estimate_mm']:.3g} | {r['ratio']:.2f} "
                    f"({r['ratio_quarter']:.2f}, {r['ratio_half']:.2f}, "
                    f"{r['ratio_three_quarters']:.2f}) | "
                    f"{r['motion_mm']:.3g} | {r['cost']:.2f} |\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="validation/out")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    study(a.build, a.out, a.quick)


if __name__ == "__main__":
    main()

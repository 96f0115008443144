#!/usr/bin/python3
"""Video study: runs filmed by `rodsim render` (H.264, 640x480, 1000
frames/s, 3 % noise, a camera tilted 5 degrees), measured back by `rodsim
track` and fitted by `rodsim calibrate`, against the runs they came from.

Cases (each a run at dt = 1 ms on 100 nodes, so one sample per frame; the
truth is the run's centreline):
  right    the weight release (Till & Rucker 2017), rod along +x
  left     the same, clamped along -x
  hanging  the same, clamped 60 degrees below the horizontal
  down     the flexible pendulum turned by pi/2: the rod swings from
           horizontal to hanging down and rings past vertical
The tilted camera is undone by the four plane points render prints (a
homography); the right clip is also tracked as if the camera were square
(scale and origin only) to show what the homography corrects. A fourth
clip (square camera) frames the right case so that the tip leaves the
image at the top of the swing: every frame whose tip is out must be
flagged, none whose tip is well inside.

Accuracy, in pixels of the view's scale: the centreline error is the
distance of each tracked point (50 per frame) to the true centreline; the
same-point error compares point k with the rod's point at arclength
k L / 49; the tip error is the tracked end against the rod's end.
Calibration: EI, density and drag fitted from a start 10 % / 10 % / 18 %
off, to the shape file (every point) and, on the right case, to the tip
CSV alone: the fitted values against the truth, and the standard errors.
The pendulum carries no weight: with gravity and the clamp's motion the
only forces, its motion depends on EI / (rho A) and drag / (rho A) alone
(divide the balance of momentum by rho A), so density is held at the
truth there and EI and drag are fitted.
Speed: track's frames per second (wall, noisy on a shared machine) and
frames per CPU second of the process (all its threads).

usage: video.py [--build build] [--out validation/out] [--quick]

Writes OUT/video.md and OUT/video.png; the videos go to a temporary
directory, removed at the end. --quick films 0.6 s instead of 2 s and
skips the calibrations. Needs python3-numpy, python3-h5py and
python3-matplotlib (Debian).
"""
import argparse
import configparser
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

WR = "data/scenarios/weight_release.ini"
PENDULUM = "data/scenarios/flexible_pendulum.ini"
KEYS = ("bending_stiffness", "density", "drag")
CASES = {
    "right": (WR, [], KEYS),
    "left": (WR, ["base.direction=-1 0 0"], KEYS),
    "hanging": (WR, ["base.direction=0.5 0 -0.8660254"], KEYS),
    "down": (PENDULUM, ["motor.angle=1.5707963"], KEYS[::2]),
}
FILM = ["--size", "640x480", "--noise", "0.03", "--tilt", "5"]
START = {"bending_stiffness": 1.10, "density": 0.90, "drag": 1.18}
REQUIRED = {"bending_stiffness": 0.005, "density": 0.005, "drag": 0.05}


class Tools:
    def __init__(self, build, scratch):
        self.exe = os.path.abspath(os.path.join(build, "rodsim"))
        self.scratch = scratch

    def path(self, name):
        return os.path.join(self.scratch, name)

    def rodsim(self, args, ok=(0,)):
        """Runs rodsim; returns its stderr and the CPU seconds it used."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([self.exe] + args, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode not in ok:
            raise RuntimeError(f"rodsim {' '.join(args)}: exit "
                               f"{p.returncode}: {p.stderr.strip()}")
        cpu = (after.ru_utime - before.ru_utime +
               after.ru_stime - before.ru_stime)
        return p.stderr, cpu


def sets(pairs):
    out = []
    for s in pairs:
        out += ["--set", s]
    return out


def truth(path):
    with h5py.File(path, "r") as f:
        return (f["time"][:], f["rod/position"][:][:, :, [0, 2]],
                f["rod/s"][:])


def shape(path):
    with h5py.File(path, "r") as f:
        return f["time"][:], f["shape"][:], f["valid"][:]


def errors(run, shp):
    """Per frame and point: distance to the true centreline, to the same
    material point; per frame: the tip's error (metres)."""
    t, p, s = truth(run)
    T, X, V = shape(shp)
    K = X.shape[1]
    sk = np.linspace(0, s[-1], K)
    perp = np.zeros((len(T), K))
    same = np.zeros((len(T), K))
    tip = np.zeros(len(T))
    for i, ti in enumerate(T):
        j = int(np.argmin(abs(t - ti)))
        if abs(t[j] - ti) > 1e-9:
            raise RuntimeError(f"{shp}: frame {i} at {ti} s is no sample")
        c = p[j]
        ref = np.stack([np.interp(sk, s, c[:, 0]), np.interp(sk, s, c[:, 1])],
                       1)
        same[i] = np.linalg.norm(X[i] - ref, axis=1)
        tip[i] = np.linalg.norm(X[i, -1] - c[-1])
        a, d = c[:-1], c[1:] - c[:-1]
        q = X[i][:, None, :] - a[None]
        u = np.clip((q * d).sum(-1) / (d * d).sum(-1), 0, 1)
        perp[i] = np.linalg.norm(q - u[..., None] * d, axis=-1).min(1)
    return perp, same, tip, V


def rendered(err):
    """The scale (m/px) and the track options render printed."""
    m = re.search(r"px wide, (\S+) m/px", err)
    line = re.search(r"track with: rodsim track \S+ (.*)", err)
    if not m or not line:
        raise RuntimeError(f"render said: {err}")
    return float(m.group(1)), line.group(1).split()


def tracked(err, frames, cpu):
    m = re.search(r"in (\S+) s, (\S+) frames/s", err)
    flagged = re.search(r"(\d+) of (\d+) frames flagged", err)
    return {"wall_fps": float(m.group(2)) if m else float("nan"),
            "cpu_fps": frames / cpu if cpu > 0 else float("nan"),
            "flagged": int(flagged.group(1)) if flagged else 0}


def fitted(ini, keys):
    c = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    c.read(ini)
    se = [float(v) for v in c["fit"]["std_error"].split()]
    if c["fit"]["keys"] != ",".join(keys):
        raise RuntimeError(f"{ini}: fitted {c['fit']['keys']}")
    return [float(c["rod"][k]) for k in keys], se


def rms(a):
    return float(np.sqrt(np.mean(np.square(a))))


def study_case(tl, name, scenario, extra, keys, dur, calibrate):
    base = sets(["time.dt=1e-3", "space.nodes=100", f"time.duration={dur}"]
                + extra)
    run, mp4, shp = (tl.path(name + e) for e in (".h5", ".mp4", "_shape.h5"))
    tl.rodsim(["run", scenario, "-o", run, "--quiet"] + base)
    err, _ = tl.rodsim(["render", scenario, run, "-o", mp4] + FILM + base)
    scale, opts = rendered(err)
    t = truth(run)
    frames = len(t[0])
    err, cpu = tl.rodsim(["track", mp4, "-o", tl.path(name + "_tip.csv"),
                          "--shape", shp] + opts)
    row = {"case": name, "frames": frames, "scale": scale,
           "speed": tracked(err, frames, cpu)}
    row["perp"], row["same"], row["tip"], row["valid"] = errors(run, shp)
    if name == "right":
        # the same clip as if the camera were square: scale and origin only
        origin = opts[opts.index("--origin") + 1]
        sq = tl.path("square_shape.h5")
        tl.rodsim(["track", mp4, "--origin", origin, "--scale", repr(scale),
                   "--shape", sq, "-o", tl.path("square.csv")], ok=(0, 1))
        row["square"] = errors(run, sq)
    if calibrate:
        row["fits"] = fits(tl, name, scenario, base, shp, keys)
    os.remove(mp4)
    return row


def true_values(scenario, keys):
    c = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    c.read(scenario)
    return [float(c["rod"][k]) for k in keys]


def fits(tl, name, scenario, base, shp, keys):
    truev = true_values(scenario, keys)
    start = sets(f"rod.{k}={v * START[k]:.6g}" for k, v in zip(keys, truev))
    start += ["--fit", ",".join(keys)]
    out = {}
    data = [("shape", shp)]
    if name == "right":
        data.append(("tip", tl.path(name + "_tip.csv")))
    for what, path in data:
        ini = tl.path(f"{name}_{what}_fit.ini")
        t0 = time.time()
        tl.rodsim(["calibrate", scenario, "--data", path, "-o", ini,
                   "--quiet"] + base + start)
        val, se = fitted(ini, keys)
        out[what] = {"keys": keys, "value": val, "se": se, "truth": truev,
                     "wall": time.time() - t0}
    return out


def outside(tl, scenario, dur):
    """The right case on a square camera whose view cuts the top of the
    swing: flags against where the true tip is."""
    base = sets(["time.dt=1e-3", "space.nodes=100", f"time.duration={dur}"])
    run, mp4 = tl.path("out.h5"), tl.path("out.mp4")
    tl.rodsim(["run", scenario, "-o", run, "--quiet"] + base)
    t, p, s = truth(run)
    W, H = 640, 480
    x, z = p[:, :, 0], p[:, :, 1]
    scale = 1.15 * (x.max() - x.min()) / W
    px0 = 0.5 * W - 0.5 * (x.max() + x.min()) / scale
    # the image's top edge at 60 % of the tip's highest point
    py0 = 0.6 * z[:, -1].max() / scale
    err, _ = tl.rodsim(["render", scenario, run, "-o", mp4, "--size",
                        f"{W}x{H}", "--noise", "0.03", "--scale", repr(scale),
                        "--origin", f"{px0:.3f},{py0:.3f}"] + base)
    csv = tl.path("out.csv")
    tl.rodsim(["track", mp4, "--origin", f"{px0:.3f},{py0:.3f}", "--scale",
               repr(scale), "--rod-length", f"{s[-1]}", "-o", csv,
               "--quiet"])
    valid = np.loadtxt(csv, delimiter=",", skiprows=1)[:, 3]
    # rows of the tip (pixel centres at integers; the image spans
    # -0.5 .. H - 0.5) and the rod's extent across, half its width
    half = 0.5 * max(2.0, 1.42e-3 / scale)
    top = py0 - z.max(axis=1) / scale - half
    out_ = top < -0.5
    inside = top > 2.5
    os.remove(mp4)
    return {"frames": len(t), "out": int(out_.sum()),
            "out_flagged": int((out_ & (valid == 0)).sum()),
            "inside": int(inside.sum()),
            "inside_flagged": int((inside & (valid == 0)).sum()),
            "edge": int((~out_ & ~inside).sum()),
            "edge_flagged": int((~out_ & ~inside & (valid == 0)).sum())}


def report(rows, cut, out, dur, quick):
    md = ["# Video: render, track and calibrate against the truth", "",
          f"{dur} s of each run filmed at 1000 frames/s, 640x480, H.264 "
          "(crf 18), 3 % noise, camera tilted 5 degrees about the vertical "
          "and corrected by the plane's homography. Errors in pixels of the "
          "view's scale.", "",
          "| case | frames | m/px | centreline rms | max | same point rms "
          "| tip rms | tip max | flagged | frames/s (wall) | "
          "frames per CPU s |", "|---" * 11 + "|"]
    for r in rows:
        s = r["scale"]
        md.append(
            f"| {r['case']} | {r['frames']} | {s:.3g} | "
            f"{rms(r['perp']) / s:.3f} | {r['perp'].max() / s:.3f} | "
            f"{rms(r['same']) / s:.3f} | {rms(r['tip']) / s:.3f} | "
            f"{r['tip'].max() / s:.3f} | {r['frames'] - int(r['valid'].sum())}"
            f" | {r['speed']['wall_fps']:.0f} | {r['speed']['cpu_fps']:.0f} |")
        if "square" in r:
            p, q, tip, v = r["square"]
            ok = v == 1
            md.append(
                f"| {r['case']}, tilt not corrected | {r['frames']} | "
                f"{s:.3g} | {rms(p[ok]) / s:.3f} | {p[ok].max() / s:.3f} | "
                f"{rms(q[ok]) / s:.3f} | {rms(tip[ok]) / s:.3f} | "
                f"{tip[ok].max() / s:.3f} | {int((~ok).sum())} | | |")
    md += ["", f"Tip leaving the image (square camera, the view's top at "
           f"60 % of the swing's height, {cut['frames']} frames): "
           f"{cut['out_flagged']} of the {cut['out']} frames whose tip is out "
           f"are flagged, {cut['inside_flagged']} of the {cut['inside']} "
           f"whose rod stays 3 px or more inside; {cut['edge_flagged']} of "
           f"the {cut['edge']} within 3 px of the edge.", ""]
    fitrows = [(r["case"], w, f) for r in rows for w, f in
               r.get("fits", {}).items()]
    if fitrows:
        md += ["Calibration from the video, the start "
               + ", ".join(f"{k} {START[k] - 1:+.0%}" for k in KEYS)
               + " off the truth: fitted / true - 1 (required: "
               + ", ".join(f"{REQUIRED[k]:.1%}" for k in KEYS)
               + "), and the standard error relative to the value.", "",
               "| case | data | " + " | ".join(KEYS) + " | "
               + " | ".join(f"se {k}" for k in KEYS) + " | wall s |",
               "|---" * (3 + 2 * len(KEYS)) + "|"]
        for case, what, f in fitrows:
            e, se = relative(f)
            md.append(f"| {case} | {what} | "
                      + " | ".join("held" if k not in e else f"{e[k]:+.2e}"
                                   for k in KEYS) + " | "
                      + " | ".join("" if k not in se else f"{se[k]:.2e}"
                                   for k in KEYS)
                      + f" | {f['wall']:.0f} |")
        md.append("")
    with open(os.path.join(out, "video.md"), "w") as f:
        f.write("\n".join(md))
    plot(rows, fitrows, os.path.join(out, "video.png"))
    print("\n".join(md))


def relative(f):
    """fitted / true - 1 and the standard error over the value, by key."""
    e = {k: v / t - 1 for k, v, t in zip(f["keys"], f["value"], f["truth"])}
    se = {k: a / v for k, a, v in zip(f["keys"], f["se"], f["value"])}
    return e, se


def plot(rows, fitrows, path):
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.4))
    colour = {r["case"]: f"C{i}" for i, r in enumerate(rows)}
    for r in rows:
        s, c = r["scale"], colour[r["case"]]
        k = np.arange(r["perp"].shape[1])
        ax[0].plot(k, np.sqrt((r["perp"] ** 2).mean(0)) / s, color=c,
                   label=f"{r['case']}: to the centreline")
        ax[0].plot(k, np.sqrt((r["same"] ** 2).mean(0)) / s, "--", color=c,
                   label=f"{r['case']}: same material point")
        e = np.sort(r["tip"] / s)
        ax[1].plot(e, np.arange(1, len(e) + 1) / len(e), color=c,
                   label=r["case"])
        if "square" in r:
            e = np.sort(r["square"][2] / s)
            ax[1].plot(e, np.arange(1, len(e) + 1) / len(e), ":", color=c,
                       label=f"{r['case']}, tilt not corrected")
    ax[0].set(xlabel="point k (0 clamp, 49 tip)", ylabel="rms error (px)",
              title="Centreline error along the rod, every frame")
    ax[0].legend(fontsize=7)
    ax[1].axvline(1, color="k", lw=0.5, ls="--")
    ax[1].set(xlabel="tip error (px)", ylabel="fraction of frames",
              xscale="log",
              title="Tip error, every frame (required: within 1 px)")
    ax[1].legend(fontsize=7)
    if fitrows:
        w = 0.8 / len(fitrows)
        x = np.arange(len(KEYS))
        for i, (case, what, f) in enumerate(fitrows):
            e, se = relative(f)
            pos = [j for j, k in enumerate(KEYS) if k in e]
            ax[2].bar(x[pos] + i * w,
                      [100 * abs(e[KEYS[j]]) for j in pos], w,
                      color=colour[case], alpha=1 if what == "shape" else 0.4,
                      label=f"{case}, {what}")
            ax[2].plot(x[pos] + i * w, [100 * se[KEYS[j]] for j in pos],
                       "_", ms=10, mew=2, color="k",
                       label="standard error" if i == 0 else None)
        for j, k in enumerate(KEYS):
            ax[2].plot([j - w / 2, j + 0.8 - w / 2], [100 * REQUIRED[k]] * 2,
                       "r--", lw=1, label="required" if j == 0 else None)
        ax[2].set_xticks(x + 0.4 - w / 2, KEYS)
        ax[2].set(ylabel="|fitted / true - 1| (%)", yscale="log",
                  ylim=(None, 300),
                  title="EI, density and drag fitted from the video")
        ax[2].legend(fontsize=7, loc="upper left", ncol=3)
    else:
        ax[2].axis("off")
    fig.suptitle("rodsim render -> track -> calibrate: H.264 640x480, "
                 "1000 frames/s, 3 % noise, 5 degree tilt corrected by the "
                 "plane's homography")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="validation/out")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dur = 0.6 if a.quick else 2.0
    scratch = tempfile.mkdtemp(prefix="rodsim_video_")
    try:
        tl = Tools(a.build, scratch)
        rows = [study_case(tl, n, sc, ex, keys, dur, not a.quick)
                for n, (sc, ex, keys) in CASES.items()]
        cut = outside(tl, WR, dur)
        report(rows, cut, a.out, dur, a.quick)
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()

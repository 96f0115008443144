#!/usr/bin/python3
"""Animate a rodsim run: the rod in 3D, as an MP4 video or a GIF.

usage: animate.py RUN.h5 [-o RUN.mp4|RUN.gif] [--fps 30] [--speed S]
                  [--start T0] [--end T1] [--dpi 100] [--view ELEV,AZIM]

Draws /rod/position of any HDF5 file of `rodsim run` (docs/hdf5.md) at the
sample nearest to each frame's time: the rod, its clamp, its shape at the
first sample (dashed), the path of the tip over the last period, and the
rod's shadow on the floor of the box, in a box
with equal scales on x, y and z. --speed is the ratio of simulated to video
time (1: real time; by default slowed so that one period of the tip's
motion spans about 24 frames, at most real time). MP4 goes through
matplotlib's FFMpegWriter and needs the ffmpeg program (Debian: ffmpeg,
installed by scripts/install-deps); GIF goes through PillowWriter (Debian:
python3-pil, which python3-matplotlib pulls in).

Needs Debian's python3-numpy, python3-h5py and python3-matplotlib.
"""
import argparse
import os
import shutil
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.animation as manim  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

FRAMES_PER_PERIOD = 24


def period(t, tip):
    """Mean period of the tip coordinate that moves most (upward crossings
    of its mean after t = 0), or None."""
    sel = t > 0
    if np.count_nonzero(sel) < 4:
        return None
    x = tip[sel]
    c = int(np.argmax(np.ptp(x, axis=0)))
    ts, xs = t[sel], x[:, c] - np.mean(x[:, c])
    k = np.nonzero((xs[:-1] < 0) & (xs[1:] >= 0))[0]
    if len(k) < 2:
        return None
    tc = ts[k] - xs[k] * (ts[k + 1] - ts[k]) / (xs[k + 1] - xs[k])
    return float(np.mean(np.diff(tc)))


def fail(message):
    print(f"animate: {message}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("-o", "--output",
                    help="RUN.mp4 (default) or RUN.gif")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--speed", type=float,
                    help="simulated seconds per second of video")
    ap.add_argument("--start", type=float, help="first time shown (s)")
    ap.add_argument("--end", type=float, help="last time shown (s)")
    ap.add_argument("--dpi", type=float, default=100.0)
    ap.add_argument("--view", default="22,-62",
                    help="camera elevation,azimuth in degrees")
    a = ap.parse_args()
    out = a.output or os.path.splitext(a.run)[0] + ".mp4"
    ext = os.path.splitext(out)[1].lower()
    if ext not in (".mp4", ".gif"):
        fail(f"{out}: the output must end in .mp4 or .gif")
    if ext == ".mp4" and not shutil.which("ffmpeg"):
        fail("writing MP4 needs the ffmpeg program, which is not installed: "
             "install it (apt-get install ffmpeg, or scripts/install-deps) "
             f"or write a GIF: -o {os.path.splitext(out)[0]}.gif")
    if a.fps <= 0 or (a.speed is not None and a.speed <= 0):
        fail("--fps and --speed must be > 0")
    try:
        elev, azim = (float(v) for v in a.view.split(","))
    except ValueError:
        fail(f"--view: expected ELEV,AZIM in degrees (got {a.view})")
    try:
        with h5py.File(a.run, "r") as f:
            t = f["/time"][...]
            pos = f["/rod/position"][...]
            tip = f["/tip/position"][...]
            status = str(f.attrs.get("status", ""))
            backend = str(f.attrs.get("backend", ""))
    except (OSError, KeyError) as e:
        fail(f"{a.run}: not a rodsim HDF5 file ({e})")
    if len(t) < 2:
        fail(f"{a.run}: one time sample (a static state): nothing moves; "
             "plot it with validation/plot_run.py")
    t0 = t[0] if a.start is None else a.start
    t1 = t[-1] if a.end is None else a.end
    if not t0 < t1:
        fail(f"--start {t0:g} must come before --end {t1:g}")
    T = period(t, tip)
    speed = a.speed or (min(1.0, T * a.fps / FRAMES_PER_PERIOD) if T
                        else 1.0)
    n_frames = max(2, int(np.floor((t1 - t0) / speed * a.fps)) + 1)
    frame_t = t0 + np.arange(n_frames) * speed / a.fps
    frame_t = frame_t[frame_t <= t1 + 1e-12]
    idx = np.clip(np.searchsorted(t, frame_t), 0, len(t) - 1)
    prev = np.clip(idx - 1, 0, len(t) - 1)
    idx = np.where(np.abs(t[prev] - frame_t) < np.abs(t[idx] - frame_t),
                   prev, idx)

    # a cube around everything the rod reaches: equal scales on all axes
    lo, hi = pos.reshape(-1, 3).min(axis=0), pos.reshape(-1, 3).max(axis=0)
    centre, half = (lo + hi) / 2, 0.55 * np.max(hi - lo)
    unit, k = ("mm", 1e3) if half < 0.5 else ("m", 1.0)
    fig = plt.figure(figsize=(8, 6.4))
    ax = fig.add_subplot(projection="3d")
    ax.set_xlim((centre[0] - half) * k, (centre[0] + half) * k)
    ax.set_ylim((centre[1] - half) * k, (centre[1] + half) * k)
    ax.set_zlim((centre[2] - half) * k, (centre[2] + half) * k)
    ax.set_box_aspect((1, 1, 1))
    ax.view_init(elev=elev, azim=azim)
    ax.set_xlabel(f"x ({unit})")
    ax.set_ylabel(f"y ({unit})")
    ax.set_zlabel(f"z ({unit})")
    floor = (centre[2] - half) * k
    p0 = pos[0] * k
    ax.plot([p0[0, 0]], [p0[0, 1]], [p0[0, 2]], "ks", ms=7, label="clamp")
    ax.plot(p0[:, 0], p0[:, 1], p0[:, 2], "--", color="0.55", lw=1,
            label=f"t = {t[0]:g} s")
    shadow, = ax.plot([], [], [], color="0.6", lw=2, label="shadow")
    trail, = ax.plot([], [], [], color="tab:orange", lw=0.8,
                     label="tip path" + (", last period" if T else ""))
    rod, = ax.plot([], [], [], color="tab:blue", lw=3, label="rod")
    tip_dot, = ax.plot([], [], [], "o", color="tab:blue", ms=5)
    ax.legend(loc="upper left", fontsize=8)
    name = os.path.basename(a.run)
    slow = (f"{1 / speed:.3g}x slow motion" if speed < 1
            else f"{speed:.3g}x real time")
    title = ax.set_title("", fontsize=10)
    trail_span = T if T else (t1 - t0)

    def draw(j):
        i = idx[j]
        p = pos[i] * k
        rod.set_data_3d(p[:, 0], p[:, 1], p[:, 2])
        tip_dot.set_data_3d([p[-1, 0]], [p[-1, 1]], [p[-1, 2]])
        shadow.set_data_3d(p[:, 0], p[:, 1], np.full(len(p), floor))
        w = (t >= t[i] - trail_span) & (t <= t[i])
        trail.set_data_3d(tip[w, 0] * k, tip[w, 1] * k, tip[w, 2] * k)
        title.set_text(f"{name} ({backend}): t = {t[i]:.3f} s, {slow}"
                       + ("" if status == "complete" else f"\n{status}"))
        return rod, tip_dot, shadow, trail, title

    anim = manim.FuncAnimation(fig, draw, frames=len(idx), blit=False)
    if ext == ".mp4":
        writer = manim.FFMpegWriter(fps=a.fps, codec="libx264",
                                    extra_args=["-pix_fmt", "yuv420p"])
    else:
        writer = manim.PillowWriter(fps=a.fps)
    anim.save(out, writer=writer, dpi=a.dpi)
    print(f"animate: {out} ({len(idx)} frames at {a.fps:g} fps, "
          f"t = {frame_t[0]:g} to {frame_t[-1]:.3g} s, {slow})")


if __name__ == "__main__":
    main()

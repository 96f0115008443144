"""Animate a rodsim run: the rod in 3D, as an MP4 video or a GIF.

usage: python3 -m rodsim.animate RUN.h5 [-o RUN.mp4|RUN.gif] [--fps 30]
           [--speed S] [--start T0] [--end T1] [--dpi 100]
           [--view ELEV,AZIM]

Draws /rod/position of any HDF5 file of `rodsim run` (docs/hdf5.md; of a
killed run's file the whole samples) at the sample nearest to each
frame's time: the rod, its clamp, its shape at the first sample (dashed),
the path of the tip over the last period, and the rod's shadow on the
floor of the box, in a box with equal scales on x, y and z. --speed is the
ratio of simulated to video time (1: real time; by default slowed so that
one period of the tip's motion spans about 24 frames, at most real time).
MP4 goes through matplotlib's FFMpegWriter and needs the ffmpeg program
(Debian: ffmpeg, installed by scripts/install-deps); GIF goes through
PillowWriter (Debian: python3-pil, which python3-matplotlib pulls in).
Bad input is one line and exit status 2.

Needs Debian's python3-numpy, python3-h5py and python3-matplotlib.
"""
import os
import shutil
import sys

import numpy as np

from ._runfile import (BadInput, Parser, matplotlib_agg, output_name,
                       period, read_run, tool_main)

FRAMES_PER_PERIOD = 24


def animate(argv, prog):
    ap = Parser(prog=prog, description=__doc__.splitlines()[0])
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
    a = ap.parse_args(argv)
    out = output_name(a.output, a.run, (".mp4", ".gif"))
    ext = os.path.splitext(out)[1].lower()
    if ext == ".mp4" and not shutil.which("ffmpeg"):
        raise BadInput("writing MP4 needs the ffmpeg program, which is not "
                       "installed: install it (apt-get install ffmpeg, or "
                       "scripts/install-deps) or write a GIF: -o "
                       f"{os.path.splitext(out)[0]}.gif")
    if a.fps <= 0 or (a.speed is not None and a.speed <= 0):
        raise BadInput("--fps and --speed must be > 0")
    try:
        elev, azim = (float(v) for v in a.view.split(","))
    except ValueError:
        raise BadInput(f"--view: expected ELEV,AZIM in degrees (got "
                       f"{a.view})") from None
    r = read_run(a.run, ["t", "pos", "tip"])
    t, pos, tip = r["t"], r["pos"], r["tip"]
    status, backend = r["status"], r["backend"]
    if len(t) < 2:
        raise BadInput(f"{a.run}: one time sample (a static state): nothing "
                       "moves; plot it with python3 -m rodsim.plot")
    t0 = t[0] if a.start is None else a.start
    t1 = t[-1] if a.end is None else a.end
    if not t0 < t1:
        raise BadInput(f"--start {t0:g} must come before --end {t1:g}")
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

    mpl = matplotlib_agg()
    plt, manim = mpl.pyplot, mpl.animation
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
    print(f"{prog}: {out} ({len(idx)} frames at {a.fps:g} fps, "
          f"t = {frame_t[0]:g} to {frame_t[-1]:.3g} s, {slow})")



def main(argv=None, prog="animate"):
    """The command line: one line on bad input (exit 2)."""
    return tool_main(prog, lambda args: animate(args, prog), argv)


if __name__ == "__main__":
    sys.exit(main())

"""Plot a rodsim run: tip motion, rod shapes, energies and solver effort.

usage: python3 -m rodsim.plot RUN.h5 [-o RUN.png]

Left, against time: the tip's z and x (and y when it moves) each on its own
axis, the energies, and the solver's iterations and spatial integrations
per step (modified-shooting steps and BDF2 retries marked). Right: the rod's
shape seen from the side (x-z) at every eighth of the first period of the
tip's motion and at the end, the same instants marked on the tip's curves;
seen from above (x-y) too when the rod leaves the x-z plane. Below: the
parameters of the run, from the scenario stored in the file.

Any HDF5 file of `rodsim run` or `rodsim static` (docs/hdf5.md) works; of a
killed run's file, the whole samples. Bad input (a missing file, not a
run's file, an output it cannot write) is one line and exit status 2.
Needs Debian's python3-numpy, python3-h5py and python3-matplotlib.
"""
import configparser
import os
import sys
import textwrap
from fractions import Fraction

import numpy as np

from ._runfile import (DATASETS, BadInput, Parser, matplotlib_agg,
                       output_name, period, read_run, tool_main)

SHAPES = 8  # snapshots per period
plt = mticker = None  # matplotlib's, set when a plot begins


def scenario_ini(text):
    """The scenario stored in the file, parsed (BadInput if it is not
    INI text)."""
    ini = configparser.ConfigParser(inline_comment_prefixes=(";", "#"))
    try:
        ini.read_string(text)
    except configparser.Error as e:
        raise BadInput(f"the file's scenario attribute is not INI text "
                       f"({str(e).splitlines()[0]})") from None
    return ini


def get(ini, section, key, default=None):
    try:
        return ini[section][key]
    except KeyError:
        return default


def num(ini, section, key, default=0.0):
    v = get(ini, section, key)
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def snapshot_times(t, tip):
    """Times of the shapes: every T/8 of the first period after release
    (T of the tip coordinate that moves most), or every eighth of the run,
    and the end. Returns (indices, T or None)."""
    T = period(t, tip)
    span = T if T else t[-1]
    wanted = [k * span / SHAPES for k in range(SHAPES + 1)] + [t[-1]]
    idx = []
    for w in wanted:
        i = int(np.argmin(np.abs(t - w)))
        if i not in idx:
            idx.append(i)
    return idx, T


def scale(values):
    """Unit and factor for a range of lengths (m -> mm below 1 m)."""
    return ("mm", 1e3) if np.max(np.abs(values)) < 1 else ("m", 1.0)


def caption(r, T, path, width):
    """The run's parameters: two paragraphs wrapped to width characters."""
    ini = r["ini"]
    model = get(ini, "rod", "model", "kirchhoff")
    body = (f"{model} rod" if r["backend"] != "rfem"
            else "rod as a chain of rigid elements")
    parts = [f"{os.path.basename(path)}: {body}",
             f"L = {num(ini, 'rod', 'length'):g} m",
             f"d = {num(ini, 'rod', 'diameter') * 1e3:g} mm"]
    ei = get(ini, "rod", "bending_stiffness")
    if ei is not None:
        parts.append(f"EI = {float(ei):g} N m²")
    else:
        parts.append(f"E = {num(ini, 'rod', 'youngs_modulus') / 1e9:g} GPa")
    parts.append(f"ρ = {num(ini, 'rod', 'density'):g} kg/m³")
    parts.append(f"drag {num(ini, 'rod', 'drag'):g} kg/m²")
    if num(ini, "rod", "bending_damping"):
        parts.append(f"damping B = {num(ini, 'rod', 'bending_damping'):g} "
                     "N m² s")
    g = get(ini, "environment", "gravity", "0 0 -9.81")
    parts.append(f"gravity ({g}) m/s²")
    parts.append(f"clamp direction ({get(ini, 'base', 'direction', '1 0 0')})")
    if num(ini, "tip", "mass"):
        parts.append(f"tip mass {num(ini, 'tip', 'mass') * 1e3:g} g released "
                     "at t = 0")
    force = get(ini, "tip", "force", "0 0 0")
    if any(float(v) for v in force.split()):
        parts.append(f"tip force ({force}) N")
    if ini.has_section("impulse"):
        parts.append(f"impulse {num(ini, 'impulse', 'peak'):g} N over "
                     f"{num(ini, 'impulse', 'duration') * 1e3:g} ms at "
                     f"s = {num(ini, 'impulse', 'position'):g} m, "
                     f"t = {num(ini, 'impulse', 'start'):g} s")
    if ini.has_section("motor"):
        pd = ""
        if num(ini, "motor", "kp"):
            pd = (f", PD-driven (kp {num(ini, 'motor', 'kp'):g} N m/rad, "
                  f"kd {num(ini, 'motor', 'kd'):g} N m s/rad)")
        parts.append(f"clamp turned to {num(ini, 'motor', 'angle'):.4g} rad "
                     f"about ({get(ini, 'motor', 'axis', '?')}) from "
                     f"t = {num(ini, 'motor', 'start'):g} s over "
                     f"{num(ini, 'motor', 'ramp'):g} s{pd}")
    known = {"rod", "environment", "base", "tip", "impulse", "motor", "time",
             "space", "solver", "rfem", "output"}
    for sec in ini.sections():
        if sec not in known:
            items = ", ".join(f"{k} {v}" for k, v in ini[sec].items())
            parts.append(f"[{sec}] {items}")
    nb = "\u00a0"  # no line break inside one item
    parts = [p.replace(" ", nb) for p in parts]
    first = ", ".join(parts) + "."
    dt = num(ini, "time", "dt")
    backend = r["backend"]
    if backend == "rfem":
        numerics = (f"RFEM, {get(ini, 'rfem', 'segments')} elements "
                    f"({get(ini, 'rfem', 'layout')}), "
                    f"{get(ini, 'rfem', 'integrator')}, dt = {dt * 1e3:g} ms")
    else:
        auto = "auto, " if get(ini, "space", "nodes") == "auto" else ""
        numerics = (f"dt = {dt * 1e3:g} ms, BDF-alpha α = "
                    f"{num(ini, 'time', 'alpha'):g}, "
                    f"{r['pos'].shape[1]} nodes ({auto}"
                    f"{get(ini, 'space', 'integrator')}), shooting "
                    f"{get(ini, 'solver', 'strategy', 'auto')}, tolerance "
                    f"{get(ini, 'solver', 'tolerance')}")
    steps = int(round(r["t"][-1] / dt)) if dt else 0
    effort = ""
    if steps:
        effort = (f"; {steps} steps, {r['iterations'][1:].sum() / steps:.2f} "
                  "iterations per step")
    freq = f"; tip period {T * 1e3:.4g} ms ({1 / T:.4g} Hz)" if T else ""
    second = ", ".join(p.replace(" ", nb) for p in
                       f"{numerics}{effort}{freq}".split(", "))
    second += f". Status: {r['status']}.".replace(": ", ":" + nb, 1)
    return "\n\n".join(["\n".join(textwrap.wrap(first, width)),
                        "\n".join(textwrap.wrap(second, width))])


def fraction(k):
    """k/8 of a period as text: T/8, T/4, 3T/8, ..., T."""
    f = Fraction(k, SHAPES)
    num = "" if f.numerator == 1 else str(f.numerator)
    return f"{num}T" + ("" if f.denominator == 1 else f"/{f.denominator}")


def plot_tip(ax, t, x, name, marks, colors):
    unit, f = scale(x)
    ax.plot(t, x * f, color="0.2", lw=1)
    ax.scatter(t[marks], x[marks] * f, c=colors, s=18, zorder=3,
               edgecolors="k", linewidths=0.4)
    ax.set_ylabel(f"tip {name} ({unit})")
    ax.grid(alpha=0.3)


def plot_shapes(ax, pos, idx, colors, labels, a, b, names):
    """Shapes projected on coordinates a, b; equal scales unless the
    deflection is under a fifth of the extent, then b is stretched (and the
    title says so)."""
    unit, f = scale(pos[idx][:, :, [a, b]])
    for i, c, lab in zip(idx, colors, labels):
        ax.plot(pos[i, :, a] * f, pos[i, :, b] * f, color=c, lw=1.4,
                label=lab)
        ax.plot(pos[i, -1, a] * f, pos[i, -1, b] * f, "o", color=c, ms=3)
    ax.plot(pos[0, 0, a] * f, pos[0, 0, b] * f, "ks", ms=6, label="clamp")
    span_a = np.ptp(pos[idx][:, :, a])
    span_b = np.ptp(pos[idx][:, :, b])
    note = ""
    if span_b >= 0.2 * span_a:
        ax.set_aspect("equal", adjustable="datalim")
    elif span_b > 0:
        note = f" ({names[1]} stretched {span_a / span_b:.0f}x)"
    ax.set_xlabel(f"{names[0]} ({unit})")
    ax.set_ylabel(f"{names[1]} ({unit})")
    ax.grid(alpha=0.3)
    return note


def plot_static(r, path, out):
    """A file with the static state alone: its shape and parameters."""
    fig = plt.figure(figsize=(12, 5.5))
    gs = fig.add_gridspec(1, 2, width_ratios=[1.3, 1], wspace=0.15)
    ax = fig.add_subplot(gs[0, 0])
    note = plot_shapes(ax, r["pos"], [0], ["tab:blue"], ["static state"], 0,
                       2, ("x", "z"))
    ax.set_title("rod shape, side view" + note, fontsize=10)
    ax.legend(loc="best", fontsize=8)
    tip = r["tip"][0]
    e = (f"Tip at ({tip[0]:.6g}, {tip[1]:.6g}, {tip[2]:.6g}) m; rod energy: "
         f"elastic {r['ee'][0]:.4g} J, gravity {r['eg'][0]:.4g} J.")
    cap = fig.add_subplot(gs[0, 1])
    cap.axis("off")
    cap.text(0, 0.9, caption(r, None, path, 62) + "\n\n" +
             "\n".join(textwrap.wrap(e, 62)), va="top", ha="left",
             fontsize=9, transform=cap.transAxes)
    fig.suptitle(f"{os.path.basename(path)}: static equilibrium "
                 f"({r['backend']} backend, {r['status']})", fontsize=12)
    fig.savefig(out, dpi=100, bbox_inches="tight")


def plot(argv, prog):
    global plt, mticker
    ap = Parser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("-o", "--output", help="RUN.png (default), .pdf, .svg")
    a = ap.parse_args(argv)
    out = output_name(a.output, a.run, (".png", ".pdf", ".svg"))
    r = read_run(a.run, list(DATASETS))
    r["ini"] = scenario_ini(r["scenario"])
    mpl = matplotlib_agg()
    plt, mticker = mpl.pyplot, mpl.ticker
    t, tip, pos = r["t"], r["tip"], r["pos"]
    if len(t) < 2:
        plot_static(r, a.run, out)
        print(f"{prog}: {out}")
        return
    idx, T = snapshot_times(t, tip)
    cmap = plt.get_cmap("viridis")
    colors = [cmap(k / max(1, len(idx) - 2)) for k in range(len(idx) - 1)]
    colors.append((0.85, 0.1, 0.1, 1.0))  # the end
    if T:
        labels = [f"t = {t[i]:.3f} s" + (f" ({fraction(k)})" if k else "")
                  for k, i in enumerate(idx[:-1])]
    else:
        labels = [f"t = {t[i]:.3f} s" for i in idx[:-1]]
    labels.append(f"t = {t[idx[-1]]:.3f} s (end)")
    moves_y = np.ptp(pos[:, :, 1]) > 1e-9 * max(1.0, np.ptp(pos))
    coords = ["z", "x"] + (["y"] if moves_y else [])
    nrows = len(coords) + 2
    fig = plt.figure(figsize=(14, 2.3 * nrows + (2.0 if moves_y else 1.0)))
    # the parameters go under the shapes, or below everything when the
    # view from above takes that place
    extra = [0.45] if moves_y else []
    gs = fig.add_gridspec(nrows + len(extra), 2, width_ratios=[1.55, 1],
                          height_ratios=[1] * nrows + extra, hspace=0.32,
                          wspace=0.18, top=0.91)
    left = [fig.add_subplot(gs[k, 0]) for k in range(nrows)]
    for ax in left[1:]:
        ax.sharex(left[0])
    for ax in left[:-1]:
        ax.tick_params(labelbottom=False)
    for ax, c in zip(left, coords):
        plot_tip(ax, t, tip[:, "xyz".index(c)], c, idx, colors)
    left[0].set_title("tip position (dots: the shapes on the right)",
                      fontsize=10)
    # energies (the tip mass's are not included)
    ek, ee, eg = r["ek"], r["ee"], r["eg"] - r["eg"][0]
    total = ek + ee + eg
    scale_e = 1e3 if np.max(np.abs([ek, ee, eg, total])) < 0.1 else 1.0
    unit_e = "mJ" if scale_e == 1e3 else "J"
    ax = left[len(coords)]
    ax.plot(t, ek * scale_e, label="kinetic")
    ax.plot(t, ee * scale_e, label="elastic")
    ax.plot(t, eg * scale_e, label="gravity (from t = 0)")
    ax.plot(t, total * scale_e, "k", lw=1.2, label="total")
    ax.set_ylabel(f"rod energy ({unit_e})")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=4,
              fontsize=8, frameon=False, borderaxespad=0.1)
    ax.grid(alpha=0.3)
    # solver effort per step (samples may sum several steps)
    ax = left[-1]
    dt = num(r["ini"], "time", "dt")
    if len(t) > 1 and dt > 0:
        steps = np.maximum(1, np.round(np.diff(t) / dt))
        ts = t[1:]
        it = r["iterations"][1:] / steps
        integ = r["integrations"][1:] / steps
        ax.plot(ts, integ, color="tab:blue", lw=0.8,
                label="spatial integrations" if r["backend"] != "rfem"
                else "dynamics evaluations")
        ax.plot(ts, it, color="tab:orange", lw=0.8,
                label="nonlinear iterations")
        # /solver/method: 0 simple shooting, 1 modified shooting, 2 BDF2
        for code, style, label in ((1, "g.", "modified shooting"),
                                   (2, "rx", "BDF2 retry")):
            sel = np.nonzero(r["method"][1:] == code)[0]
            if sel.size:
                ax.plot(ts[sel], integ[sel], style, ms=4, label=label)
        positive = np.concatenate([integ[integ > 0], it[it > 0]])
        if positive.size and positive.max() > 20 * positive.min():
            ax.set_yscale("log")  # a few steps cost far more than most
            ax.yaxis.set_major_locator(mticker.LogLocator(subs=(1, 2, 5)))
            ax.yaxis.set_major_formatter(mticker.FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(mticker.NullFormatter())
        else:
            ax.set_ylim(bottom=0)
            ax.yaxis.set_major_locator(mticker.MaxNLocator(integer=True))
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=4,
                  fontsize=8, frameon=False, borderaxespad=0.1)
    ax.set_ylabel("solver, per step")
    ax.set_xlabel("time (s)")
    ax.grid(alpha=0.3, which="both")
    # shapes
    right = gs[:nrows, 1].subgridspec(2, 1, hspace=0.3)
    side = fig.add_subplot(right[0])
    note = plot_shapes(side, pos, idx, colors, labels, 0, 2, ("x", "z"))
    what = "every T/8 of the first period" if T else "every eighth of the run"
    side.set_title(f"rod shape from the side{note}\n{what}, and the end",
                   fontsize=10)
    side.legend(loc="best", fontsize=7, ncol=2)
    if moves_y:
        top = fig.add_subplot(right[1])
        note = plot_shapes(top, pos, idx, colors, labels, 0, 1, ("x", "y"))
        top.set_title(f"rod shape from above{note}", fontsize=10)
        cap = fig.add_subplot(gs[nrows, :])
        text = caption(r, T, a.run, 160)
    else:
        cap = fig.add_subplot(right[1])
        text = caption(r, T, a.run, 68)
    cap.axis("off")
    cap.text(0, 0.9, text, va="top", ha="left", fontsize=9,
             transform=cap.transAxes)
    fig.suptitle(f"{os.path.basename(a.run)}: {r['backend']} backend, "
                 f"{r['status']}", fontsize=12, y=0.985)
    fig.savefig(out, dpi=100, bbox_inches="tight")
    print(f"{prog}: {out}")


def main(argv=None, prog="plot"):
    """The command line: one line on bad input (exit 2)."""
    return tool_main(prog, lambda args: plot(args, prog), argv)


if __name__ == "__main__":
    sys.exit(main())

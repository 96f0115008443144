#!/usr/bin/python3
"""The tendon's friction: the public friction example of Till, Aloi &
Rucker 2019 against the published program (the tip over the whole 25 s,
and the run time of both on the same settings, side by side), and the
hysteresis loop of a motor that pulls in and lets out, for several
friction coefficients.

data/scenarios/tendon_friction.ini is the example (the dynamics example's
robot with compliance 1.6e-3 / N and beta = 4 s/m; Euler on 200 points,
BDF2 at 50 ms). The published program is not part of rodsim: build its
simple-friction example from its sources (ContinuumRobotExamples,
g++ -O2 -DNDEBUG) with its output streams at 17 digits, run it, and give
its directory of outputs (--ref-out: centerline.dat or tip.csv) and the
program (--ref-bin) for the timing; --ref-grid N=DIR (repeatable) its
outputs built with N points (400 and 800 give the comparison converged
in s, as validation/tendon_dynamics.py does for the frictionless example).

The loops: the motor pulls in 16.19 mm over --ramp seconds after 2 s at
rest, holds 2 s and lets it out over as long; the tip's x against the
length pulled in, for beta = 0, 2, 4, 8 s/m, with each loop's width (the
largest distance of its branches at the same length, 10 to 90 % of the
ramp). The model's friction is proportional to the sliding rate, so the
loops narrow as the ramp slows (--ramp).

Prints the comparisons (units of L), the widths and the timings (user +
system CPU seconds, best of --repeat interleaved runs, the load average),
and draws OUT/tendon_friction.png.

usage: tendon_friction.py --ref-out DIR [--ref-bin BIN] [--ref-grid N=DIR]
                          [--rodsim build/rodsim] [--out validation/out]
                          [--repeat 3] [--ramp 4]
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rodlib  # noqa: E402
from tendon_dynamics import (arguments, compare, far,  # noqa: E402
                             plot_tip, ref_tip, rodsim_tip, timing)

SCENARIO = "data/scenarios/tendon_friction.ini"
PULL = 0.01619  # m, the example's ramp


def tip(rs, name, sets):
    return rodsim_tip(rs, name, sets, SCENARIO)


def loop(rs, beta, T, scratch):
    """The tip's x and the length pulled in on the ramps up and down, and
    the loop's width (m)."""
    csv = os.path.join(scratch, "ramp_%g.csv" % T)
    knots_t = [0, 2, 2 + T, 4 + T, 4 + 2 * T]
    knots_l = [0, 0, PULL, PULL, 0]
    with open(csv, "w") as f:
        f.write("t,dl\n" + "".join("%r,%r\n" % r
                                   for r in zip(knots_t, knots_l)))
    t, p, _ = tip(rs, "loop_%g_%g" % (beta, T),
                  ["tendon.t1.friction=%g" % beta,
                   "tendon.t1.displacement_file=" + csv,
                   "time.duration=%g" % (4 + 2 * T)])
    dl = np.interp(t, knots_t, knots_l)
    up = (t > 2) & (t < 2 + T)
    down = (t > 4 + T) & (t < 4 + 2 * T)
    g = np.linspace(0.1, 0.9, 81) * PULL
    xu = np.interp(g, dl[up], p[up, 0])
    xd = np.interp(g, dl[down][::-1], p[down, 0][::-1])
    return dl[t > 2], p[t > 2, 0], np.abs(xu - xd).max()


def main():
    ap = arguments(__doc__)
    ap.add_argument("--ramp", type=float, default=4.0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rs = rodlib.Rodsim(a.rodsim)
    ref = ref_tip(a.ref_out)
    n = len(ref)
    t, e200, rk4, ref_rich = compare(rs, SCENARIO, ref, a.ref_grid)
    _, free, _ = tip(rs, "free", ["tendon.t1.friction=0"])
    d, i = far(free[:n], ref)
    print("  rodsim without friction against it: %.3e L (t = %.2f s), the "
          "friction's effect" % (d, t[i]))

    scratch = tempfile.mkdtemp(prefix="tendon_friction_")
    loops = {}
    print("hysteresis loops (ramps of %g s, Euler on 200 points):" % a.ramp)
    for beta in (0, 2, 4, 8):
        loops[beta] = loop(rs, beta, a.ramp, scratch)
        print("  beta %g s/m: width %.2f mm" % (beta, 1e3 * loops[beta][2]))
    slow = loop(rs, 4, 2 * a.ramp, scratch)[2]
    print("  beta 4 s/m on ramps of %g s: width %.2f mm (the friction is "
          "viscous: proportional to the sliding rate)"
          % (2 * a.ramp, 1e3 * slow))

    best = timing(a.rodsim, SCENARIO, a.ref_bin, a.repeat) \
        if a.ref_bin else None

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(12, 8))
    ax0 = fig.add_subplot(2, 2, 1)
    ax1 = fig.add_subplot(2, 2, 3, sharex=ax0)
    ax2 = fig.add_subplot(1, 2, 2)
    plot_tip(ax0, ax1, t, e200, rk4, ref, ref_rich,
             "Friction example (Till, Aloi & Rucker 2019, beta = 4 s/m)",
             best)
    ax0.plot(t, free[:, 0], "C7-", lw=0.8, label="rodsim without friction")
    ax0.legend(fontsize=8)
    for beta, (dl, x, w) in loops.items():
        ax2.plot(1e3 * dl, x, label="beta %g s/m: width %.1f mm"
                 % (beta, 1e3 * w))
    ax2.set_xlabel("length pulled in (mm)")
    ax2.set_ylabel("tip x (m)")
    ax2.set_title("Motor pulling in and letting out over %g s" % a.ramp,
                  fontsize=10)
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    png = os.path.join(a.out, "tendon_friction.png")
    fig.savefig(png, dpi=110)
    print("tendon_friction:", png)


if __name__ == "__main__":
    main()

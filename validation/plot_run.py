#!/usr/bin/python3
"""Plot a rodsim HDF5 file: tip trajectory, energies and solver effort.

usage: plot_run.py RUN.h5 [-o RUN.png]

Needs Debian's python3-h5py and python3-matplotlib.
"""
import argparse
import os

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    out = a.output or os.path.splitext(a.run)[0] + ".png"
    with h5py.File(a.run, "r") as f:
        t = f["/time"][...]
        tip = f["/tip/position"][...]
        ek = f["/energy/kinetic"][...]
        ee = f["/energy/elastic"][...]
        eg = f["/energy/gravity"][...]
        it = f["/solver/iterations"][...]
        integ = f["/solver/integrations"][...]
        method = f["/solver/method"][...]
        backend = f.attrs["backend"]
        status = f.attrs.get("status", "")
    fig, ax = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
    name = os.path.basename(a.run)
    ax[0].plot(t, tip[:, 0], label="x")
    ax[0].plot(t, tip[:, 1], label="y")
    ax[0].plot(t, tip[:, 2], label="z")
    ax[0].set_ylabel("tip position (m)")
    ax[0].set_title(f"{name} ({backend}, {status})")
    ax[0].legend(loc="best")
    ax[0].grid(alpha=0.3)
    total = ek + ee + eg
    ax[1].plot(t, ek, label="kinetic")
    ax[1].plot(t, ee, label="elastic")
    ax[1].plot(t, eg - eg[0], label="gravity - gravity(0)")
    ax[1].plot(t, total - eg[0], "k", label="total - gravity(0)")
    ax[1].set_ylabel("energy (J)")
    ax[1].legend(loc="best")
    ax[1].grid(alpha=0.3)
    ax[2].plot(t[1:], it[1:], label="iterations")
    ax[2].plot(t[1:], integ[1:], label="integrations")
    # /solver/method: 0 simple shooting, 1 modified shooting (chosen by
    # solver.strategy or a fallback), 2 the BDF2 retry
    for code, style, label in ((1, "C2.", "modified shooting"),
                               (2, "rx", "BDF2 retry")):
        sel = np.nonzero(method[1:] == code)[0]
        if sel.size:
            ax[2].plot(t[1:][sel], integ[1:][sel], style, label=label)
    ax[2].set_yscale("log")
    ax[2].set_ylabel("per sample")
    ax[2].set_xlabel("time (s)")
    ax[2].legend(loc="best")
    ax[2].grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"plot_run: {out}")


if __name__ == "__main__":
    main()

"""What the plotting tools (rodsim.plot, rodsim.animate) share: reading a
run's HDF5 file (docs/hdf5.md; of a killed run's file the whole samples),
the period of the tip's motion, and one line on bad input instead of a
traceback. Pure NumPy and h5py: no call into the library, so the tools
also run from the source tree (validation/plot_run.py, animate.py)."""
import argparse
import os
import sys

import numpy as np


class BadInput(Exception):
    """One line for the user: what is wrong, naming the file."""


class Parser(argparse.ArgumentParser):
    """Command-line errors as BadInput: one line, no usage block."""

    def error(self, message):
        raise BadInput(f"{message} (see --help)")


def tool_main(prog, body, argv):
    """body(argv) with bad input, a missing package, a file it cannot
    write, Ctrl-C and a closed pipe said in one line on stderr: exit 2, 2,
    2, 130, 1."""
    try:
        return body(argv) or 0
    except BadInput as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"{prog}: needs {e.name} (Debian: python3-{e.name})",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except OSError as e:  # an output it cannot write
        print(f"{prog}: {e}", file=sys.stderr)
        return 2


def matplotlib_agg():
    """matplotlib drawing into files, no display, with its pyplot, ticker
    and animation modules loaded (ImportError when it is missing)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.animation  # noqa: F401
    import matplotlib.pyplot  # noqa: F401
    import matplotlib.ticker  # noqa: F401
    return matplotlib


# dataset paths of read_run's names
DATASETS = {"t": "/time", "tip": "/tip/position", "pos": "/rod/position",
            "ek": "/energy/kinetic", "ee": "/energy/elastic",
            "eg": "/energy/gravity", "iterations": "/solver/iterations",
            "integrations": "/solver/integrations",
            "method": "/solver/method"}


def read_run(path, names):
    """The datasets of names (keys of DATASETS) of a run's file, its first
    /samples along T (all of them in a file without the count), and the
    attributes backend, status and scenario (text). BadInput for a file
    that is missing, not HDF5, or not a run's."""
    import h5py
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file")
    if not os.path.isfile(path):
        raise BadInput(f"{path}: not a regular file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise BadInput(f"{path}: not an HDF5 file ({e})") from None
    with f:
        missing = [DATASETS[k] for k in names if DATASETS[k] not in f]
        if missing:
            raise BadInput(f"{path}: not a rodsim run file (no "
                           f"{', '.join(missing)})")
        n = int(f["samples"][()]) if "samples" in f else None
        r = {k: f[DATASETS[k]][:n] for k in names}
        for k in ("backend", "status", "scenario"):
            v = f.attrs.get(k, "?" if k != "scenario" else "")
            r[k] = v.decode() if isinstance(v, bytes) else str(v)
    if len(r.get("t", [0])) == 0:
        raise BadInput(f"{path}: holds no sample (status: {r['status']})")
    return r


def period(t, tip):
    """Mean period (s) of the tip coordinate that moves most after t = 0,
    from its upward crossings of its mean (linearly interpolated), or None
    with fewer than two crossings."""
    sel = t > 0
    if np.count_nonzero(sel) < 4:
        return None
    x = tip[sel]
    c = int(np.argmax(np.ptp(x, axis=0)))
    ts, xs = t[sel], x[:, c] - np.mean(x[:, c])
    if np.ptp(xs) == 0:
        return None
    k = np.nonzero((xs[:-1] < 0) & (xs[1:] >= 0))[0]
    if len(k) < 2:
        return None
    tc = ts[k] - xs[k] * (ts[k + 1] - ts[k]) / (xs[k + 1] - xs[k])
    return float(np.mean(np.diff(tc)))


def output_name(path, run, extensions):
    """The output file: path, or run's name with the first extension;
    BadInput when its extension is not one of extensions or its folder is
    missing."""
    out = path or os.path.splitext(run)[0] + extensions[0]
    if os.path.splitext(out)[1].lower() not in extensions:
        raise BadInput(f"{out}: the output must end in "
                       f"{', '.join(extensions[:-1])} or {extensions[-1]}")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise BadInput(f"{out}: no folder {folder}")
    return out

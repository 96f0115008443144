"""rodsim from Python: slender elastic rods (Kirchhoff/Cosserat by shooting,
Till & Rucker 2017; an RFEM chain) over the rodsim shared library (ctypes),
with NumPy arrays. docs/embedding.md.

    import rodsim
    sim = rodsim.Sim("data/scenarios/weight_release.ini", time_dt=1e-3)
    sim.static()
    run = sim.run(0.5, record="position")   # time, tip, s, position
    print(run["tip"][-1], sim)

rodsim.sweep(scenario, vary={...}, out=DIR, executor=None) runs many
cases as `rodsim sweep` does (docs/scale.md), on any
concurrent.futures executor, and returns the index as NumPy arrays.

Errors raise rodsim.Error (a ValueError) carrying the library's one-line
message, the same as the command line prints: "FILE: KEY: MESSAGE".
python3 -m rodsim.plot RUN.h5 and python3 -m rodsim.animate RUN.h5 plot
and film a run's file.
"""
from . import _lib
from ._lib import Error, library_path
from ._scenario import Scenario
from ._sim import Sim
from ._calibrate import calibrate, load
from ._sweep import sweep

__all__ = ["Error", "Scenario", "Sim", "calibrate", "load", "sweep",
           "version", "revision", "library_path"]


def version():
    """The library's version, "0.1.0"."""
    return _lib.lib.rod_version().decode()


def revision():
    """The library's build revision (git describe), or "unknown"."""
    return _lib.lib.rod_revision().decode()

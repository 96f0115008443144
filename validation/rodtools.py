"""The plotting tools of the rodsim module (python/rodsim/plot.py,
animate.py) from the source tree: loaded as rodsim's submodules without
the package's __init__, which needs the built library, so that
validation/plot_run.py and animate.py work before any build or install."""
import importlib
import os
import sys
import types

PACKAGE = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..",
                       "python", "rodsim")


def tool(name):
    """The module rodsim.NAME of the source tree."""
    if "rodsim" not in sys.modules:
        package = types.ModuleType("rodsim")
        package.__path__ = [os.path.normpath(PACKAGE)]
        sys.modules["rodsim"] = package
    return importlib.import_module("rodsim." + name)

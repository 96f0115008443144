#!/usr/bin/python3
"""Plot a rodsim run (tip motion, rod shapes, energies, solver effort):
python3 -m rodsim.plot from the source tree, without building or
installing the module (python/rodsim/plot.py says what it draws).

usage: plot_run.py RUN.h5 [-o RUN.png]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rodtools import tool  # noqa: E402

sys.exit(tool("plot").main(prog="plot_run"))

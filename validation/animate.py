#!/usr/bin/python3
"""Animate a rodsim run in 3D (MP4 or GIF): python3 -m rodsim.animate
from the source tree, without building or installing the module
(python/rodsim/animate.py says what it draws).

usage: animate.py RUN.h5 [-o RUN.mp4|RUN.gif] [--fps 30] [--speed S]
                  [--start T0] [--end T1] [--dpi 100] [--view ELEV,AZIM]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rodtools import tool  # noqa: E402

sys.exit(tool("animate").main(prog="animate"))

#!/usr/bin/python3
"""The closed loop of the tendon robot (examples/tendon_circle.c and
examples/tendon_circle.py): each run a half turn after the lead-in, its
tracking error against the bound the loop gives (the Python example's
bound(): the linear modal loop's steady error, the model's miss at its
renewals, the nonlinearity of the rod's lag), with and without the
first-mode feedforward; the two examples the same controller (the same
tensions at every sample); the C example's file plotted by the Python
one.

usage: test_tendon_circle.py TENDON_CIRCLE SCENARIO"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "examples"))
import tendon_circle  # noqa: E402

import rodsim  # noqa: E402

EXE, SCENARIO = sys.argv[1], sys.argv[2]
RADIUS, PERIOD, TURNS = 0.05, 2.0, 0.5
NUMBER = r"([0-9.e+-]+)"


def run_c(*args):
    out = subprocess.run([EXE, SCENARIO, "--turns", str(TURNS)] + list(args),
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rms, big = re.search(rf"rms {NUMBER} m, max {NUMBER} m on the circle",
                         out.stdout).groups()
    miss = re.search(rf"off by at most {NUMBER} m", out.stdout).group(1)
    return float(rms), float(big), float(miss), out.stdout


class Circle(unittest.TestCase):
    def setUp(self):
        self.rod = tendon_circle.rod_constants(
            tendon_circle.dynamic(SCENARIO, PERIOD * (1 + TURNS)))

    def within_bound(self, rms, big, miss, lag, what):
        """max <= the bound; the RMS (the steady amplitude on a circle)
        within the model's miss and the lag's nonlinearity of the linear
        loop's error: the error is the loop's."""
        limit, (linear, miss, nonlinear) = tendon_circle.bound(
            self.rod, miss, RADIUS, PERIOD, lag)
        self.assertLessEqual(big, limit, what)
        self.assertLessEqual(abs(rms - linear), miss + nonlinear, what)
        return linear

    def test_c_example_within_the_loops_bound(self):
        rms = {}
        for lag in (True, False):
            rms[lag], big, miss, text = run_c(
                *([] if lag else ["--statics-only"]))
            self.within_bound(rms[lag], big, miss, lag, text)
        # the feedforward of the first mode takes most of the lag
        self.assertLess(rms[True], 0.2 * rms[False])

    def test_python_example_is_the_c_one(self):
        with tempfile.TemporaryDirectory() as d:
            h5, png = os.path.join(d, "c.h5"), os.path.join(d, "c.png")
            rms, big, miss, _ = run_c("-o", h5)
            res = tendon_circle.run(SCENARIO, TURNS, RADIUS, PERIOD)
            self.within_bound(res["rms"], res["max"], res["miss"], True,
                              "python")
            f = rodsim.load(h5)
            self.assertEqual(f["attrs"]["status"], "complete")
            c_tensions = np.array([f[f"tendon/{n}/tension"]
                                   for n in res["names"]]).T
            np.testing.assert_allclose(c_tensions, res["log"][:, 6:],
                                       rtol=0, atol=1e-9)
            self.assertAlmostEqual(res["rms"], rms, delta=1e-9)
            py = subprocess.run([sys.executable, tendon_circle.__file__,
                                 "--run", h5, "--plot", png],
                                capture_output=True, text=True)
            self.assertEqual(py.returncode, 0, py.stderr)
            self.assertGreater(os.path.getsize(png), 10000)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])

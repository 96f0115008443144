#!/usr/bin/python3
"""The rodsim Python module over the build tree's library: the loader's
messages, the same numbers as the command line, closed forms through
Python (a pure tip moment bends a circular arc), stepping with a
callback, output files read back, and a calibration that recovers the
stiffness behind noise-free data."""
import math
import os
import re
import subprocess
import tempfile
import unittest

import numpy as np

import rodsim

RODSIM = os.environ["RODSIM"]
DATA = os.environ.get("RODSIM_DATA", "data")


class Errors(unittest.TestCase):
    def test_loader_messages(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.ini")
            with open(path, "w") as f:
                f.write("[rod]\nlength = -1\n")
            cli = subprocess.run([RODSIM, "run", path], capture_output=True,
                                 text=True)
            self.assertEqual(cli.returncode, 2)
            with self.assertRaises(rodsim.Error) as e:
                rodsim.Scenario(path)
            self.assertEqual("rodsim: %s\n" % e.exception, cli.stderr)
        with self.assertRaises(rodsim.Error) as e:
            rodsim.Scenario()["space.nodes"] = 1
        self.assertEqual(str(e.exception),
                         "scenario: space.nodes: must be >= 2 (got 1)")
        with self.assertRaises(rodsim.Error) as e:
            rodsim.Scenario(**{"rod.lenght": 1})
        self.assertIn("did you mean rod.length?", str(e.exception))
        with self.assertRaises(rodsim.Error):  # the motor turns the clamp
            rodsim.Sim(ini="[solver]\nbackend = rfem\n[motor]\n").set_base(
                [0, 0, 0], [1, 0, 0, 0])


class Numbers(unittest.TestCase):
    def test_static_as_the_command_line(self):
        path = os.path.join(DATA, "scenarios", "weight_release.ini")
        with tempfile.TemporaryDirectory() as d:
            out = subprocess.run([RODSIM, "static", path, "-o",
                                  os.path.join(d, "s.h5")],
                                 capture_output=True, text=True, check=True)
        tip = [float(x) for x in
               re.search(r"tip position\s+(\S+) (\S+) (\S+)",
                         out.stdout).groups()]
        sim = rodsim.Sim(path)
        sim.static()
        np.testing.assert_allclose(sim.state()["position"][-1], tip,
                                   rtol=0, atol=1e-9)  # printed to 9 digits

    def test_pure_moment_arc(self):
        """A tip moment M about y bends the weightless rod into an arc of
        curvature M / EI, to within 10 solver tolerances of L."""
        L, EI = 0.3, 0.03
        kappa = 1.5 / L
        sim = rodsim.Sim(ini="[rod]\nlength = 0.3\nbending_stiffness = 0.03\n"
                             "[environment]\ngravity = 0 0 0\n"
                             "[space]\nnodes = 50\n")
        sim.set_tip_load(moment=[0, kappa * EI, 0]).static()
        tip = sim.state()["position"][-1]
        expect = [math.sin(kappa * L) / kappa, 0,
                  -(1 - math.cos(kappa * L)) / kappa]
        np.testing.assert_allclose(tip, expect, rtol=0, atol=10 * 1e-8 * L)


class Stepping(unittest.TestCase):
    def test_run_and_state(self):
        sim = rodsim.Sim(ini="[rod]\nlength = 0.3\n[space]\nnodes = 20\n")
        self.assertEqual(sim.points, 20)
        self.assertEqual(sim.backend, "kirchhoff")
        calls = []
        sim.static().run(0.02, callback=lambda s: calls.append(s.time))
        self.assertEqual(len(calls), 10)
        self.assertAlmostEqual(sim.time, 0.02, delta=1e-15)
        sim.run(1.0, callback=lambda s: s.time < 0.03 - 1e-12)
        self.assertAlmostEqual(sim.time, 0.03, delta=1e-15)
        st = sim.state()
        self.assertEqual(st["position"].shape, (20, 3))
        self.assertEqual(st["orientation"].shape, (20, 4))
        self.assertEqual(st["moment"].shape, (20, 3))
        np.testing.assert_allclose(np.linalg.norm(st["orientation"], axis=1),
                                   1, atol=1e-12)
        stats = sim.stats()
        self.assertEqual(stats["steps"], 15)
        self.assertGreater(stats["iterations"], 0)

    def test_output_and_load(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            sc = rodsim.Scenario(ini="[rod]\nlength = 0.3\n[space]\n"
                                     "nodes = 20\n[tip]\nmass = 0.01\n",
                                 **{"output.every": 2})
            with rodsim.Sim(sc, output=path) as sim:
                sim.run(0.01)  # 5 steps: samples at 0, 2, 4 and 5
                last = sim.state()["position"]
            run = rodsim.load(path)
        self.assertEqual(run["attrs"]["status"], "complete")
        self.assertEqual(run["rod/position"].shape, (4, 20, 3))
        np.testing.assert_array_equal(run["rod/position"][-1], last)
        np.testing.assert_allclose(run["time"], [0, 0.004, 0.008, 0.01],
                                   atol=1e-15)
        self.assertEqual(run["attrs"]["dt"], 2e-3)
        self.assertEqual(run["samples"], 4)

    def test_load_takes_the_whole_samples(self):
        """A file whose run was killed during a flush: datasets extended
        past the samples that /samples counts whole."""
        h5py = rodsim_h5py()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k.h5")
            with h5py.File(path, "w") as f:
                f["samples"] = np.int64(2)
                f["time"] = [0.0, 0.002, 0.0]  # the third never written
                f["rod/s"] = [0.0, 0.1, 0.2]
                f["rod/position"] = np.ones((3, 3, 3))
            run = rodsim.load(path)
        np.testing.assert_array_equal(run["time"], [0.0, 0.002])
        self.assertEqual(run["rod/position"].shape, (2, 3, 3))
        self.assertEqual(run["rod/s"].shape, (3,))


class Calibration(unittest.TestCase):
    def test_recovers_stiffness(self):
        """Noise-free tip data of a run with EI = 0.038 fitted from a start
        5% off: the fit lands on it to the LM's step tolerance (1e-6)."""
        ini = ("[rod]\nlength = 0.3\nbending_stiffness = 0.038\n"
               "[tip]\nmass = 0.01\n[time]\nduration = 0.2\n"
               "[space]\nnodes = 30\n")
        truth = rodsim.Sim(ini=ini)
        t, z = [0.0], []
        truth.static()
        z.append(truth.state()["position"][-1, 2])
        truth.run(0.2, callback=lambda s: (t.append(s.time), z.append(
            s.state()["position"][-1, 2])) and None)
        start = rodsim.Scenario(ini=ini, **{"rod.bending_stiffness": 0.0399})
        fit = rodsim.calibrate(start, {"t": t, "z": z},
                               keys="bending_stiffness", prefit=False)
        self.assertTrue(fit["converged"])
        self.assertAlmostEqual(fit["values"]["bending_stiffness"], 0.038,
                               delta=0.038 * 1e-5)
        self.assertIn("bending_stiffness", fit["fit"])
        self.assertAlmostEqual(fit["scenario"]["rod.bending_stiffness"],
                               fit["values"]["bending_stiffness"])

    def test_shape_file(self):
        """The same from a shape file (every 3rd node of the run at EI =
        0.038 as 11 points, written with h5py in the layout rodsim track
        --shape writes): the shape objective by default, the truth to the
        LM's step tolerance, the flagged frame left out."""
        h5py = rodsim_h5py()
        ini = ("[rod]\nlength = 0.3\nbending_stiffness = 0.038\n"
               "[tip]\nmass = 0.01\n[time]\nduration = 0.1\n"
               "[space]\nnodes = 31\n")
        truth = rodsim.Sim(ini=ini)
        t, shapes = [0.0], []
        truth.static()
        shapes.append(truth.state()["position"][::3, ::2])
        truth.run(0.1, callback=lambda s: (t.append(s.time), shapes.append(
            s.state()["position"][::3, ::2])) and None)
        valid = np.ones(len(t), dtype=np.int8)
        valid[7] = 0
        shape = np.array(shapes)
        shape[7] += 0.05  # a wrecked frame, flagged
        start = rodsim.Scenario(ini=ini, **{"rod.bending_stiffness": 0.0399})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "shape.h5")
            with h5py.File(path, "w") as f:
                f["time"] = np.array(t)
                f["shape"] = shape
                f["valid"] = valid
                f["flags"] = (1 - valid) * 4
                f["pixels"] = np.zeros_like(shape)
                f["length"] = np.full(len(t), 0.3)
            fit = rodsim.calibrate(start, path, keys="bending_stiffness")
        self.assertTrue(fit["converged"])
        self.assertEqual(fit["skipped"], 1)
        self.assertEqual(fit["residuals"], (len(t) - 1) * 10 * 2)
        self.assertAlmostEqual(fit["values"]["bending_stiffness"], 0.038,
                               delta=0.038 * 1e-5)


def rodsim_h5py():
    try:
        import h5py
    except ImportError:
        raise unittest.SkipTest("h5py (Debian: python3-h5py) is missing")
    return h5py


if __name__ == "__main__":
    unittest.main(verbosity=1)

#!/usr/bin/python3
"""The rodsim Python module over the build tree's library: the loader's
messages, the same numbers as the command line, closed forms through
Python (a pure tip moment bends a circular arc), stepping with a
callback, output files read back, a calibration that recovers the
stiffness behind noise-free data; a Sim closed (also inside a callback
and from another thread) refusing every use, two threads on one Sim
taking every step, a run on the Sim's own scenario, Ctrl-C (a signal
from a callback, an interrupt from a timer thread, a real SIGINT to a
subprocess) stopping a run after its step with the file marked
interrupted, a trajectory recorded in memory equal to the file's
datasets, and the plotting tools' one line on bad input."""
import _thread
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
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

    def test_tendon_arc(self):
        """A straight tendon's tension T at offset r bends the weightless
        rod into the arc of curvature T r / EI; Sim.tendon gives the tension
        set by Sim.set_tendon and the tendon's length L (1 - T r^2 / EI)."""
        L, EI, r, T = 0.3, 0.03, 0.01, 2.0
        sim = rodsim.Sim(ini="[rod]\nlength = 0.3\nbending_stiffness = 0.03\n"
                             "[environment]\ngravity = 0 0 0\n"
                             "[tendon.a]\noffset = 0.01 0\ntension = 1\n")
        sim.set_tendon("a", T).static()
        tension, length = sim.tendon("a")
        self.assertEqual(tension, T)
        self.assertAlmostEqual(length, L * (1 - T * r * r / EI), delta=1e-12)
        kappa = T * r / EI
        tip = sim.state()["position"][-1]
        expect = [math.sin(kappa * L) / kappa, 0,
                  -(1 - math.cos(kappa * L)) / kappa]
        np.testing.assert_allclose(tip, expect, rtol=0, atol=10 * 1e-8 * L)
        with self.assertRaises(rodsim.Error):
            sim.set_tendon("b", 1.0)


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
        for name in ("steps", "samples", "iterations", "integrations",
                     "fallbacks", "last_iterations", "last_integrations",
                     "last_method", "status"):
            self.assertIs(type(stats[name]), int, name)
        for name in ("time", "max_residual", "wall_time", "last_residual",
                     "error_estimate", "tip_motion", "error_estimate_dt"):
            self.assertIs(type(stats[name]), float, name)
        # the run's own error estimate (a companion at twice the step):
        # this rod rests in its static state
        self.assertGreaterEqual(stats["error_estimate"], 0)
        self.assertLess(stats["error_estimate"], 1e-6)
        self.assertEqual(repr(sim), "<rodsim.Sim scenario: kirchhoff, "
                                    "t = 0.03 s, 20 nodes>")

    def test_controlled_steps_end_at_the_end(self):
        """With time.tolerance the run's last step ends at its end, as
        rod_sim_advance_to's."""
        sim = rodsim.Sim(ini=ROD, time_tolerance=1e-4,
                         time_scheme="esdirk4")
        sim.run(0.03)
        self.assertEqual(sim.time, 0.03)

    def test_xdmf_in_the_way_warns(self):
        """A user's own file where the description would go stays as it
        is; closing the output says so as a RuntimeWarning, the run's file
        complete."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            with open(os.path.join(d, "o.xdmf"), "w") as f:
                f.write("my notes\n")
            sc = rodsim.Scenario(ini="[rod]\nlength = 0.3\n[space]\n"
                                     "nodes = 20\n")
            sim = rodsim.Sim(sc, output=path)
            sim.run(0.004)
            with self.assertWarnsRegex(RuntimeWarning,
                                       "o.xdmf not written"):
                sim.close_output()
            sim.close()
            with open(os.path.join(d, "o.xdmf")) as f:
                self.assertEqual(f.read(), "my notes\n")
            self.assertEqual(rodsim.load(path)["attrs"]["status"],
                             "complete")

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
            # its XDMF description beside it, as `rodsim run` writes it
            with open(os.path.join(d, "o.xdmf")) as f:
                xdmf = f.read()
            subprocess.run([RODSIM, "export", path, "--xdmf"], check=True,
                           capture_output=True)
            with open(os.path.join(d, "o.xdmf")) as f:
                self.assertEqual(f.read(), xdmf)
            # none with output.xdmf = false; the earlier one removed
            sc = rodsim.Scenario(ini="[rod]\nlength = 0.3\n[space]\n"
                                     "nodes = 20\n[output]\nxdmf = false\n")
            with rodsim.Sim(sc, output=path) as sim:
                sim.run(0.004)
            self.assertFalse(os.path.exists(os.path.join(d, "o.xdmf")))
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

    def test_experiments(self):
        """Two experiments at once (the rod with 10 g and with 20 g at its
        tip, noise-free) fitted from 5% off: the truth to the LM's step
        tolerance, each experiment's fitted scenario, each set's figures
        and the covariance of ln p."""
        ini = ("[rod]\nlength = 0.3\nbending_stiffness = 0.038\n"
               "[tip]\nmass = %g\n[time]\nduration = 0.1\n"
               "[space]\nnodes = 20\n")
        pairs = []
        for mass in (0.01, 0.02):
            truth = rodsim.Sim(ini=ini % mass)
            t, z = [0.0], []
            truth.static()
            z.append(truth.state()["position"][-1, 2])
            truth.run(0.1, callback=lambda s: (t.append(s.time), z.append(
                s.state()["position"][-1, 2])) and None)
            z = np.array(z) + 1e-6 * np.sin(np.arange(len(z)) * 2.1)
            start = rodsim.Scenario(ini=ini % mass,
                                    **{"rod.bending_stiffness": 0.0399})
            pairs.append((start, {"t": t, "z": z}))
        fit = rodsim.calibrate(experiments=pairs, keys="bending_stiffness",
                               prefit=False)
        self.assertTrue(fit["converged"])
        self.assertAlmostEqual(fit["values"]["bending_stiffness"], 0.038,
                               delta=0.038 * 1e-4)
        self.assertEqual(len(fit["sets"]), 2)
        self.assertEqual(len(fit["scenarios"]), 2)
        self.assertAlmostEqual(fit["scenarios"][1]["tip.mass"], 0.02)
        self.assertEqual(fit["covariance"].shape, (1, 1))
        for s in fit["sets"]:
            self.assertGreater(s["noise"], 0)
            self.assertAlmostEqual(s["weight"], 1 / s["noise"])
        with self.assertRaises(ValueError):
            rodsim.calibrate(pairs[0][0], pairs[0][1], experiments=pairs)

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


ROD = "[rod]\nlength = 0.3\n[space]\nnodes = 20\n[tip]\nmass = 0.01\n"
ROD_INI = os.path.join(DATA, "scenarios", "first_rod.ini")


def status_of(path):
    return rodsim.load(path)["attrs"]["status"]


class Keys(unittest.TestCase):
    def test_dotted_keys_three_ways(self):
        """A dict, SECTION_KEY keywords and **{} set the same keys; [] reads
        them."""
        a = rodsim.Scenario({"time.dt": 1e-3, "rod.length": 0.25})
        b = rodsim.Scenario(time_dt=1e-3, rod_length=0.25)
        c = rodsim.Scenario(**{"time.dt": 1e-3, "rod.length": 0.25})
        for sc in (a, b, c):
            self.assertEqual(sc["time.dt"], 1e-3)
            self.assertEqual(sc["rod.length"], 0.25)
        self.assertEqual(a.ini(), b.ini())
        path = os.path.join(DATA, "scenarios", "weight_release.ini")
        sc = rodsim.Scenario(path, {"time.dt": 1e-3}, rod_drag=0.0)
        self.assertEqual((sc["time.dt"], sc["rod.drag"]), (1e-3, 0.0))
        self.assertEqual(repr(sc), "<rodsim.Scenario %s>" % path)
        with self.assertRaises(rodsim.Error) as e:
            rodsim.Scenario(time_dtt=1)
        self.assertIn("did you mean time.dt?", str(e.exception))

    def test_sim_runs_its_own_copy(self):
        """The Scenario changed after the Sim was made changes nothing in
        it: run() steps by the Sim's dt (it took the Scenario's, and a run
        went 10 times too far); keys given with a Scenario go to a copy."""
        sc = rodsim.Scenario(ini=ROD, time_dt=2e-3)
        sim = rodsim.Sim(sc)
        sc["time.dt"] = 2e-2
        calls = []
        sim.run(0.02, callback=lambda s: calls.append(s.time))
        self.assertEqual(len(calls), 10)
        self.assertAlmostEqual(sim.time, 0.02, delta=1e-15)
        self.assertEqual(sim.dt, 2e-3)
        self.assertEqual(sim.scenario["time.dt"], 2e-3)
        sim.scenario["time.dt"] = 1.0  # a copy
        self.assertEqual(sim.scenario["time.dt"], 2e-3)
        other = rodsim.Sim(sc, time_dt=1e-3)
        self.assertEqual((other.dt, sc["time.dt"]), (1e-3, 2e-2))


class Closed(unittest.TestCase):
    USES = [lambda s: s.static(), lambda s: s.step(),
            lambda s: s.run(0.01), lambda s: s.advance_to(0.01),
            lambda s: s.state(), lambda s: s.stats(),
            lambda s: s.set_tip_load([0, 0, 1]),
            lambda s: s.set_load("arm", [0, 0, 1]),
            lambda s: s.set_base([0, 0, 0], [1, 0, 0, 0]),
            lambda s: s.open_output("x.h5"), lambda s: s.close_output(),
            lambda s: s.time, lambda s: s.points, lambda s: s.backend,
            lambda s: s.dt, lambda s: s.scenario]

    def assert_closed(self, sim):
        for use in self.USES:
            with self.assertRaises(rodsim.Error) as e:
                use(sim)
            self.assertEqual(str(e.exception),
                             "scenario: the simulation is closed")
        self.assertEqual(repr(sim), "<rodsim.Sim scenario: closed>")
        sim.close()  # twice: nothing happens

    def test_every_use_after_close_raises(self):
        sim = rodsim.Sim(ini=ROD)
        sim.static().step()
        sim.close()
        self.assert_closed(sim)

    def test_close_inside_a_callback(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            sim = rodsim.Sim(ini=ROD, output=path)
            with self.assertRaises(rodsim.Error) as e:
                sim.run(1.0, callback=lambda s: s.close()
                        if s.time > 0.009 else None)
            self.assertIn("closed during the run (at step 5)",
                          str(e.exception))
            self.assert_closed(sim)
            run = rodsim.load(path)
        self.assertEqual(run["attrs"]["status"], "interrupted")
        self.assertAlmostEqual(run["time"][-1], 0.01, delta=1e-15)

    def test_close_from_another_thread(self):
        """A run in one thread, close() in another: the run stops after
        its step in progress with Error, the file says interrupted."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            sim = rodsim.Sim(ini=ROD, output=path)
            closer = threading.Thread(target=sim.close)

            def start_closer(s):
                if not closer.is_alive() and s.time > 0.009:
                    closer.start()
            with self.assertRaises(rodsim.Error) as e:
                sim.run(10.0, callback=start_closer)
            closer.join()
            self.assertIn("closed by another thread during the run",
                          str(e.exception))
            self.assert_closed(sim)
            run = rodsim.load(path)
        self.assertEqual(run["attrs"]["status"], "interrupted")
        self.assertLess(run["time"][-1], 1.0)


class Threads(unittest.TestCase):
    def test_two_threads_take_every_step(self):
        """Two threads stepping one Sim (steps, and runs of 0.02 s): the
        state of one thread taking all of their steps, bit for bit."""
        one = rodsim.Sim(ini=ROD)
        for _ in range(40):
            one.step()
        one.run(0.08)
        two = rodsim.Sim(ini=ROD)
        two.static()

        def stepping():
            for _ in range(20):
                two.step()
            two.run(0.02)
            two.run(0.02)
        threads = [threading.Thread(target=stepping) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(two.stats()["steps"], 80)
        self.assertEqual(two.time, one.time)
        a, b = one.state(), two.state()
        for key in ("position", "velocity", "orientation", "moment"):
            np.testing.assert_array_equal(a[key], b[key])


class Interrupt(unittest.TestCase):
    def interrupted_run(self, interrupt, duration=1.0, **kw):
        """A run of the small rod to a file, interrupted: (sim, the
        file's contents)."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            sim = rodsim.Sim(ini=ROD, output=path)
            with self.assertRaises(KeyboardInterrupt):
                interrupt(sim, duration, **kw)
            st = sim.state()  # the Sim lives on, its file closed
            sim.close()
            run = rodsim.load(path)
        return st, run

    def test_signal_from_a_callback(self):
        """SIGINT raised at the 7th step: the run stops there, the file
        holds t = 0 .. 7 dt and says interrupted."""
        def at_7th(s):
            if s.stats()["steps"] == 7:
                signal.raise_signal(signal.SIGINT)
        st, run = self.interrupted_run(
            lambda s, T: s.run(T, callback=at_7th))
        self.assertAlmostEqual(st["time"], 7 * 2e-3, delta=1e-15)
        self.assertEqual(run["attrs"]["status"], "interrupted")
        self.assertEqual(len(run["time"]), 8)
        np.testing.assert_array_equal(run["rod/position"][-1],
                                      st["position"])

    def test_interrupt_from_a_timer_thread(self):
        """_thread.interrupt_main (what Ctrl-C does) 0.3 s into a run of
        60 s without a callback: KeyboardInterrupt after the step in
        progress (steps of about 0.1 ms here)."""
        timer = threading.Timer(0.3, _thread.interrupt_main)
        t0 = time.monotonic()
        timer.start()
        st, run = self.interrupted_run(lambda s, T: s.run(T), 60.0)
        timer.join()
        self.assertLess(time.monotonic() - t0, 30)
        self.assertEqual(run["attrs"]["status"], "interrupted")
        self.assertLess(st["time"], 60.0)
        self.assertEqual(run["time"][-1], st["time"])

    def test_sigint_to_a_process(self):
        """A real SIGINT to a Python process in Sim.run (60 s of the
        rod): it ends within seconds by KeyboardInterrupt, its file says
        interrupted."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            script = ("import rodsim, sys\n"
                      "sim = rodsim.Sim(ini=%r, output=%r)\n"
                      "def told(s):\n"
                      "    if s.stats()['steps'] == 1:\n"
                      "        print('running', flush=True)\n"
                      "sim.run(60.0, callback=told)\n" % (ROD, path))
            p = subprocess.Popen([sys.executable, "-c", script],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.stdout.readline(), "running\n")
            time.sleep(0.2)
            p.send_signal(signal.SIGINT)
            t0 = time.monotonic()
            _, err = p.communicate(timeout=60)
            self.assertLess(time.monotonic() - t0, 10)
            self.assertIn("KeyboardInterrupt", err)
            self.assertEqual(status_of(path), "interrupted")

    def test_callback_error_marks_the_file_failed(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            sim = rodsim.Sim(ini=ROD, output=path)

            def bad(s):
                if s.time > 0.005:
                    raise ZeroDivisionError("a controller's bug")
            with self.assertRaises(ZeroDivisionError):
                sim.run(0.1, callback=bad)
            sim.close()
            self.assertEqual(status_of(path),
                             "failed at t = 0.006 s: the callback raised "
                             "ZeroDivisionError: a controller's bug")

    def test_with_block(self):
        """KeyboardInterrupt out of a with block of the user's own steps:
        the file says interrupted; another exception: failed."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            for error, status in (
                    (KeyboardInterrupt, "interrupted"),
                    (IndexError("no such node\nat all"),
                     "failed at t = 0.002 s: IndexError: no such node")):
                with self.assertRaises(type(error) if
                                       isinstance(error, Exception)
                                       else error):
                    with rodsim.Sim(ini=ROD, output=path) as sim:
                        sim.step()
                        raise error
                self.assertEqual(status_of(path), status)


class Record(unittest.TestCase):
    def test_record_equals_the_file(self):
        """run(record=...) against the file of the same run: time, tip and
        every field equal bit for bit, sampled as the file (output.every =
        3, 10 steps: t = 0, steps 3, 6, 9 and the last)."""
        h5 = {"position": "rod/position", "orientation": "rod/orientation",
              "velocity": "rod/velocity", "force": "rod/force",
              "moment": "rod/moment", "kinetic": "energy/kinetic",
              "elastic": "energy/elastic", "gravity": "energy/gravity"}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            with rodsim.Sim(ini=ROD, output=path, output_every=3) as sim:
                rec = sim.run(0.02, record=True)
            run = rodsim.load(path)
        self.assertEqual(run["attrs"]["status"], "complete")
        self.assertEqual(len(rec["time"]), 5)
        np.testing.assert_array_equal(rec["time"], run["time"])
        np.testing.assert_array_equal(rec["tip"], run["tip/position"])
        np.testing.assert_array_equal(rec["s"], run["rod/s"])
        for name, dataset in h5.items():
            np.testing.assert_array_equal(rec[name], run[dataset], name)
        self.assertEqual(rec["position"].shape, (5, 20, 3))
        self.assertEqual(rec["orientation"].shape, (5, 20, 4))

    def test_fields_and_trajectory_after_an_interrupt(self):
        sim = rodsim.Sim(ini=ROD)
        rec = sim.run(0.01, record=["velocity", "energy"])
        self.assertEqual(sorted(rec), ["elastic", "gravity", "kinetic", "s",
                                       "time", "tip", "velocity"])
        self.assertEqual(rec["velocity"].shape, (6, 20, 3))
        with self.assertRaises(ValueError):
            sim.run(0.01, record="speed")

        def stop(s):
            if s.stats()["steps"] == 8:
                _thread.interrupt_main()
        with self.assertRaises(KeyboardInterrupt):
            sim.run(0.1, record="position", callback=stop)
        np.testing.assert_allclose(sim.trajectory["time"],
                                   [0.01, 0.012, 0.014, 0.016], atol=1e-15)


class Sweep(unittest.TestCase):
    SWEPT = ("[rod]\nlength = 0.3\n[time]\ndt = 2e-3\nduration = 0.05\n"
             "[space]\nnodes = 30\n[tip]\nmass = 0.005\n")
    # the weight release: cases the command line warns nothing about (the
    # index of `rodsim sweep` also holds its sampling warnings)
    VARY = {"rod.length": [0.35, 0.408, 0.45], "tip.mass": [0.01, 0.02]}

    def test_executors_equal_the_command_line(self):
        """rodsim.sweep by the library's threads, a ThreadPoolExecutor and
        a ProcessPoolExecutor: the index of `rodsim sweep` (every array
        but the wall time) and its case files (every dataset but the wall
        time, bit for bit); again on the command line's directory: nothing
        to run, its index as it is."""
        import concurrent.futures as cf
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as d:
            os.chdir(d)
            try:
                shutil.copy(os.path.join(DATA, "scenarios",
                                         "weight_release.ini"), "rod.ini")
                cli = subprocess.run(
                    [RODSIM, "sweep", "rod.ini", "-o", "cli", "--set",
                     "time.duration=0.05", "--vary",
                     "rod.length=0.35,0.408,0.45", "--vary",
                     "tip.mass=0.01,0.02", "--threads", "2"],
                    capture_output=True, text=True)
                self.assertEqual(cli.returncode, 0, cli.stderr)
                short = {"time.duration": 0.05}
                got = {"cli": rodsim.sweep("rod.ini", self.VARY, "cli",
                                           keys=short)}
                with cf.ThreadPoolExecutor(2) as tp, \
                        cf.ProcessPoolExecutor(2) as pp:
                    for name, ex in (("lib", None), ("threads", tp),
                                     ("processes", pp)):
                        got[name] = rodsim.sweep("rod.ini", vary=self.VARY,
                                                 out=name, executor=ex,
                                                 keys=short)
                ref = got["cli"]
                self.assertEqual(ref["keys"], ["rod.length", "tip.mass"])
                self.assertEqual(ref["text"][3].tolist(), ["0.408", "0.02"])
                np.testing.assert_array_equal(ref["values"][:, 0],
                                              [0.35, 0.35, 0.408, 0.408,
                                               0.45, 0.45])
                np.testing.assert_array_equal(ref["status"], [2] * 6)
                self.assertTrue((ref["wall_time"] > 0).all())
                np.testing.assert_allclose(ref["summary"]["time"], 0.05,
                                           rtol=1e-12)
                for name, idx in got.items():
                    for k in ("keys", "file", "message", "warning"):
                        self.assertEqual(list(idx[k]), list(ref[k]),
                                         (name, k))
                    for k in ("text", "values", "status"):
                        np.testing.assert_array_equal(idx[k], ref[k],
                                                      (name, k))
                    for k, v in ref["summary"].items():
                        np.testing.assert_array_equal(idx["summary"][k], v,
                                                      (name, k))
                self.same_case_files(["cli", "lib", "threads", "processes"])
            finally:
                os.chdir(cwd)

    def same_case_files(self, dirs):
        h5py = rodsim_h5py()
        for c in range(6):
            name = "case-%05d.h5" % c
            with h5py.File(os.path.join(dirs[0], name), "r") as a:
                for other in dirs[1:]:
                    with h5py.File(os.path.join(other, name), "r") as b:
                        sets = []
                        a.visit(lambda n: sets.append(n) if isinstance(
                            a[n], h5py.Dataset) else None)
                        self.assertGreater(len(sets), 15)
                        for n in sets:
                            if n != "solver/wall_time":
                                np.testing.assert_array_equal(
                                    a[n][()], b[n][()], (other, name, n))

    def test_bad_input_and_a_different_sweep(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rod.ini")
            with open(path, "w") as f:
                f.write(self.SWEPT)
            out = os.path.join(d, "out")
            with self.assertRaises(rodsim.Error) as e:
                rodsim.sweep(path, {"rod.lenght": [0.2]}, out)
            self.assertIn("unknown key", str(e.exception))
            idx = rodsim.sweep(path, {"rod.length": "0.2:0.3:2"}, out,
                               threads=1)
            np.testing.assert_array_equal(idx["values"][:, 0], [0.2, 0.3])
            with self.assertRaises(rodsim.Error) as e:
                rodsim.sweep(path, {"rod.length": "0.2:0.3:3"}, out)
            self.assertIn("holds a different sweep", str(e.exception))


class Tools(unittest.TestCase):
    def test_plot_and_animate(self):
        """python3 -m rodsim.plot on a run; the tools' one line and exit 2
        on bad input."""
        try:
            import h5py  # noqa: F401
            import matplotlib  # noqa: F401
        except ImportError:
            raise unittest.SkipTest("h5py or matplotlib is missing")
        import contextlib
        import io
        import rodsim.animate
        import rodsim.plot
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "o.h5")
            with rodsim.Sim(ini=ROD, output=path) as sim:
                sim.run(0.04)
            p = subprocess.run([sys.executable, "-m", "rodsim.plot", path],
                               capture_output=True, text=True)
            self.assertEqual((p.returncode, p.stdout, p.stderr),
                             (0, "plot: %s.png\n" % path[:-3], ""))
            self.assertTrue(os.path.exists(path[:-3] + ".png"))
            missing = os.path.join(d, "missing.h5")
            p = subprocess.run([sys.executable, "-m", "rodsim.animate",
                                missing], capture_output=True, text=True)
            self.assertEqual((p.returncode, p.stderr),
                             (2, "animate: %s: no such file\n" % missing))
            calibration = os.path.join(os.path.dirname(__file__), "..",
                                       "validation", "plot_calibration.py")
            p = subprocess.run([sys.executable, calibration, ROD_INI,
                                "--data", missing], capture_output=True,
                               text=True)
            self.assertEqual((p.returncode, p.stderr),
                             (2, "plot_calibration: %s: no such file\n"
                              % missing))
            for tool, args, message in (
                    (rodsim.plot, [missing], "plot: %s: no such file\n"
                     % missing),
                    (rodsim.plot, [d], "plot: %s: not a regular file\n" % d),
                    (rodsim.plot, [__file__], "plot: %s: not an HDF5 file"
                     % __file__),
                    (rodsim.plot, [path, "-o", path + ".jpg"],
                     "plot: %s.jpg: the output must end in .png, .pdf or "
                     ".svg\n" % path),
                    (rodsim.plot, [path, "-o", missing + "/x.png"],
                     "plot: %s/x.png: no folder %s\n" % (missing, missing)),
                    (rodsim.plot, [], "plot: the following arguments are "
                     "required: run (see --help)\n"),
                    (rodsim.animate, [path, "--fps", "0"],
                     "animate: --fps and --speed must be > 0\n"),
                    (rodsim.animate, [path, "--view", "up"],
                     "animate: --view: expected ELEV,AZIM in degrees (got "
                     "up)\n")):
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    self.assertEqual(tool.main(args), 2, args)
                self.assertTrue(err.getvalue().startswith(message),
                                err.getvalue())
                self.assertEqual(err.getvalue().count("\n"), 1)


def rodsim_h5py():
    try:
        import h5py
    except ImportError:
        raise unittest.SkipTest("h5py (Debian: python3-h5py) is missing")
    return h5py


if __name__ == "__main__":
    unittest.main(verbosity=1)

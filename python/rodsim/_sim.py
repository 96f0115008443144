"""rodsim.Sim: one simulation (include/rod/sim.h) from Python. Each Sim
serialises its calls with a lock (the library's object is not
thread-safe), raises Error once closed, and advances in steps that Python
takes one by one, so that Ctrl-C (a Jupyter interrupt) stops a run after
the step in progress and the output file says "interrupted"."""
import ctypes
import functools
import math
import os
import threading
import warnings

import numpy as np

from ._lib import (ROD_EINVAL, Error, RodError, c_double_p, check, lib)
from ._scenario import Scenario


def _vec(v, n=3):
    """v as n contiguous doubles: (pointer, array that keeps it alive)."""
    if v is None:
        return None, None
    a = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError("expected %d numbers, got %d" % (n, a.size))
    return a.ctypes.data_as(c_double_p), a


def _describe(e):
    """An exception in one line: TYPE: first line of its message."""
    why = str(e).splitlines()[0] if str(e) else ""
    return type(e).__name__ + (": " + why if why else "")


def _locked(method):
    """method under the Sim's lock, refused once the Sim is closed."""
    @functools.wraps(method)
    def call(self, *args, **kw):
        with self._lock:
            self._handle()
            return method(self, *args, **kw)
    return call


# Fields of run(record=...): name -> (getter, values per point; 0 for the
# energies, one number per sample)
_FIELDS = {"position": ("positions", 3), "orientation": ("orientations", 4),
           "velocity": ("velocities", 3), "force": ("forces", 3),
           "moment": ("moments", 3), "kinetic": ("energies", 0),
           "elastic": ("energies", 0), "gravity": ("energies", 0)}


class _Recorder:
    """The samples of a run kept in memory: time, tip, s and the fields
    asked for."""

    def __init__(self, sim, record):
        if record is True or record == "all":
            names = list(_FIELDS)
        elif isinstance(record, str):
            names = [record]
        else:
            names = list(record)
        names = [n for e in names
                 for n in (("kinetic", "elastic", "gravity")
                           if e == "energy" else (e,))]
        for n in names:
            if n not in _FIELDS:
                raise ValueError(
                    "record: %r: expected any of %s, energy or all"
                    % (n, ", ".join(_FIELDS)))
        self.sim, self.names = sim, list(dict.fromkeys(names))
        self.n = sim.points
        self.t, self.tip = [], []
        self.data = {n: [] for n in self.names}
        self.s = sim._get("arclength", 1)

    def take(self):
        sim = self.sim
        self.t.append(lib.rod_sim_time(sim._p))
        pos = sim._get("positions", 3)
        self.tip.append(pos[-1].copy())
        energies = None
        for n in self.names:
            getter, width = _FIELDS[n]
            if n == "position":
                self.data[n].append(pos)
            elif width:
                self.data[n].append(sim._get(getter, width))
            else:
                if energies is None:
                    energies = sim._energies()
                self.data[n].append(energies[("kinetic", "elastic",
                                               "gravity").index(n)])

    def arrays(self):
        out = {"time": np.array(self.t), "s": self.s,
               "tip": np.array(self.tip).reshape(-1, 3)}
        for n in self.names:
            width = _FIELDS[n][1]
            shape = (-1, self.n, width) if width else (-1,)
            out[n] = np.array(self.data[n]).reshape(shape)
        return out


class Sim:
    """A simulation (include/rod/sim.h) of its own copy of a Scenario, an
    INI file or INI text (ini=...), with keys as Scenario takes them.
    static() solves t = 0; step(), advance_to() and run() advance; loads
    and the clamp's pose can be set between steps; state() copies the rod
    into NumPy arrays. Its calls are serialised (one lock per Sim); after
    close() every call raises Error."""

    def __init__(self, scenario=None, keys=None, *, ini=None, name=None,
                 output=None, **kw):
        self._p = None
        self._lock = threading.RLock()
        self._closing = False   # close() called: a run stops after its step
        self._running = False   # inside run() or advance_to()
        self._has_output = False  # a file open_output opened is open
        self.trajectory = None  # what the last run(record=...) recorded
        self._solved = False    # the static state is solved
        if isinstance(scenario, Scenario):
            if ini is not None or name is not None:
                raise TypeError("ini and name go to the Scenario")
            if keys or kw:
                scenario = scenario.copy().update(keys, **kw)
        else:
            scenario = Scenario(scenario, keys, ini=ini, name=name, **kw)
        self.name = scenario.name
        p = ctypes.c_void_p()
        err = RodError()
        with scenario._lock:
            check(lib.rod_sim_create(scenario._p, ctypes.byref(p),
                                     ctypes.byref(err)), err)
        self._p = p
        own = lib.rod_sim_scenario(p)
        buf = ctypes.create_string_buffer(64)
        lib.rod_scenario_get_text(own, b"time", b"dt", buf, len(buf))
        self._dt = float(buf.value)
        lib.rod_scenario_get_text(own, b"time", b"tolerance", buf, len(buf))
        self._controlled = buf.value != b""
        self._backend = lib.rod_sim_backend(p).decode()
        self._points = lib.rod_sim_points(p)
        if output is not None:
            self.open_output(output)

    # ---- life ------------------------------------------------------------

    def _handle(self):
        """The library's object; Error once closed (call under the lock)."""
        if self._p is None:
            raise Error("%s: the simulation is closed" % self.name,
                        ROD_EINVAL)
        return self._p

    def close(self, status=None):
        """Write the output file's last samples and status (when one is
        open: status, or "complete", or why the simulation stopped; a run
        this interrupts: "interrupted") and free the simulation. A run in
        another thread stops after its step in progress; every later call
        raises Error. Closing twice is harmless."""
        self._closing = True
        with self._lock:
            if self._p is None:
                return
            if status is None and self._running:
                status = "interrupted"
            try:
                self._end_output(status)
            finally:
                p, self._p = self._p, None
                lib.rod_sim_free(p)

    def __del__(self):
        p = getattr(self, "_p", None)
        if p is not None:
            self._p = None
            lib.rod_sim_free(p)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        """close(): the file says "interrupted" after Ctrl-C, "failed at t
        = T s: TYPE: MESSAGE" after another exception."""
        status = None
        if kind is KeyboardInterrupt:
            status = "interrupted"
        elif kind is not None and self._p is not None:
            status = "failed at t = %.6g s: %s" % (
                lib.rod_sim_time(self._p), _describe(value))
        self.close(status)

    def __repr__(self):
        if not self._lock.acquire(timeout=0.1):
            return "<rodsim.Sim %s: %s, running>" % (self.name,
                                                     self._backend)
        try:
            if self._p is None:
                return "<rodsim.Sim %s: closed>" % self.name
            if self._backend == "rfem":
                size = "%d points (a chain of %d elements)" % (
                    self._points, self._points - 2)
            else:
                size = "%d nodes" % self._points
            return "<rodsim.Sim %s: %s, t = %.6g s, %s>" % (
                self.name, self._backend, lib.rod_sim_time(self._p), size)
        finally:
            self._lock.release()

    def _check(self, status):
        """Error with the simulation's message for a failed status."""
        if status != 0:
            raise Error(lib.rod_sim_error(self._p).decode(), status)
        return self

    # ---- what it is ------------------------------------------------------

    @property
    @_locked
    def scenario(self):
        """A copy of the simulation's own scenario (changing it changes
        nothing here; Sim(sim.scenario) starts another simulation)."""
        return Scenario._copy_of(lib.rod_sim_scenario(self._p), self.name)

    @property
    @_locked
    def backend(self):
        """"kirchhoff" or "rfem"."""
        return self._backend

    @property
    @_locked
    def time(self):
        """Simulated time (s); 0 at the static state."""
        return lib.rod_sim_time(self._p)

    @property
    @_locked
    def points(self):
        """Points along the rod: Kirchhoff space.nodes, RFEM segments + 2."""
        return self._points

    @property
    @_locked
    def dt(self):
        """The simulation's time step (s)."""
        return self._dt

    # ---- output ----------------------------------------------------------

    @_locked
    def open_output(self, path=None):
        """Write the samples to an HDF5 file (docs/hdf5.md); None: the
        scenario's output.file."""
        self._end_output(None)
        self._check(lib.rod_sim_open_output(
            self._p, None if path is None else os.fsencode(path)))
        self._has_output = True
        return self

    @_locked
    def close_output(self, status=None):
        """Write the file's last samples and status: status, or "complete",
        or why the simulation stopped."""
        return self._end_output(status)

    def _end_output(self, status):
        """Close the output; what its close warns about (its XDMF
        description not written) as a RuntimeWarning."""
        self._has_output = False
        if self._p is None:
            return self
        st = lib.rod_sim_close_output(
            self._p, None if status is None else status.encode())
        said = lib.rod_sim_warning(self._p)
        if said:
            warnings.warn("%s: %s" % (self.name, said.decode(errors="replace")),
                          RuntimeWarning, stacklevel=3)
        return self._check(st)

    # ---- solving ---------------------------------------------------------

    @_locked
    def static(self):
        """Solve the static state (t = 0)."""
        self._check(lib.rod_sim_static(self._p))
        self._solved = True
        return self

    @_locked
    def step(self):
        """One step of time.dt (solving t = 0 first when not yet)."""
        self._check(lib.rod_sim_step(self._p))
        self._solved = True
        return self

    @_locked
    def advance_to(self, t, callback=None, record=None):
        """Steps until the time reaches t (s): the first step time at or
        after it. As run()."""
        return self._advance(float(t), callback, record)

    @_locked
    def run(self, duration, callback=None, record=None):
        """Advance by duration (s). callback(sim) after every step, where
        loads may be set for the next one; a callback returning False
        stops the run. record: a field or a list of them (position,
        orientation, velocity, force, moment, kinetic, elastic, gravity;
        energy for the three, True for all): the trajectory is returned as
        a dict of NumPy arrays, "time" (T), "tip" (T, 3), "s" (N) and the
        fields ((T, N, 3), (T, N, 4) or (T)), sampled as the output file
        samples: the state at the start, every output.every-th step and
        the last. Without record the Sim is returned.

        Ctrl-C (a Jupyter interrupt) raises KeyboardInterrupt after the
        step in progress and closes the output file with status
        "interrupted"; an exception of the callback closes it with
        "failed at t = ... s: the callback raised ..."."""
        duration = float(duration)
        if not duration >= 0 or math.isinf(duration):
            raise Error("%s: run: the duration must be >= 0 and finite "
                        "(got %r)" % (self.name, duration))
        return self._advance(lib.rod_sim_time(self._p) + duration, callback,
                             record)

    def _advance(self, end, callback, record):
        """The time loop of run() and advance_to(), under the lock: the
        steps of rod_sim_advance_to(end), taken one by one."""
        if not math.isfinite(end):
            raise Error("%s: the end time must be finite (got %r)"
                        % (self.name, end))
        rec = None
        if record is not None and record is not False:
            if not self._solved:
                self.static()
            rec = _Recorder(self, record)
            rec.take()
        elif self._controlled and callback is None:
            # time.tolerance: the steps end at `end` only when the library
            # knows it (one call, not interrupted before its end)
            self._check(lib.rod_sim_advance_to(self._p, end))
            self._solved = True
            return self
        every = self._every()
        p, step, dt = self._p, lib.rod_sim_step, self._dt
        steps = self._steps()
        last = math.ceil(end / dt - 1e-9)
        self._running = True
        try:
            while (lib.rod_sim_time(p) < end - 1e-9 * dt if self._controlled
                   else steps < last):
                status = step(p)
                if status != 0:
                    self._check(status)
                self._solved = True
                steps += 1
                if rec is not None and steps % every == 0:
                    rec.take()
                go_on = self._call_back(callback)
                if self._p is None:
                    raise Error("%s: the simulation was closed during the "
                                "run (at step %d)" % (self.name, steps))
                if self._closing:
                    self._end_output("interrupted")
                    raise Error("%s: the simulation was closed by another "
                                "thread during the run (at t = %.6g s)"
                                % (self.name, lib.rod_sim_time(p)))
                if go_on is False:
                    break
        except KeyboardInterrupt:
            self._mark_output("interrupted")
            raise
        finally:
            self._running = False
            if rec is not None:
                self._last_sample(rec)
        return self if rec is None else self.trajectory

    def _last_sample(self, rec):
        """The last step taken into rec (the file's last sample), also
        after an interrupt or a failure; then self.trajectory."""
        try:
            if self._p is not None and \
                    rec.t[-1] != lib.rod_sim_time(self._p):
                rec.take()
        except Error:
            pass
        self.trajectory = rec.arrays()

    def _call_back(self, callback):
        """callback(self); its exception closes the output file as failed
        (KeyboardInterrupt: as interrupted, by the caller)."""
        if callback is None:
            return None
        try:
            return callback(self)
        except KeyboardInterrupt:
            raise
        except BaseException as e:
            if self._p is not None:
                self._mark_output("failed at t = %.6g s: the callback raised "
                                  "%s" % (lib.rod_sim_time(self._p),
                                          _describe(e)))
            raise

    def _mark_output(self, status):
        """Close the output file (when open) with status, on the way out of
        an exception, which a failed write does not replace."""
        if self._p is not None and self._has_output:
            try:
                self._end_output(status)
            except Error:
                pass

    def _steps(self):
        v = ctypes.c_double()
        lib.rod_sim_get_stat(self._p, b"steps", ctypes.byref(v))
        return int(v.value)

    def _every(self):
        """Steps between samples of record: output.every (auto: 1, or what
        an open file chose)."""
        buf = ctypes.create_string_buffer(32)
        lib.rod_scenario_get_text(lib.rod_sim_scenario(self._p), b"output",
                                  b"every", buf, len(buf))
        try:
            return max(1, int(buf.value))
        except ValueError:
            return 1

    # ---- loads and the clamp ---------------------------------------------

    @_locked
    def set_tip_load(self, force=None, moment=None):
        """Tip force (N) and moment (N m), world frame, from the next
        step on."""
        (f, _a), (m, _b) = _vec(force), _vec(moment)
        return self._check(lib.rod_sim_set_tip_load(self._p, f, m))

    @_locked
    def set_load(self, name, force=None, moment=None):
        """Force and moment of the point load [load.NAME]."""
        (f, _a), (m, _b) = _vec(force), _vec(moment)
        return self._check(lib.rod_sim_set_load(self._p, name.encode(), f,
                                                m))

    @_locked
    def set_tendon(self, name, tension):
        """Tension (N, >= 0) of the tendon [tendon.NAME] from the next
        solve on (replaces its tension or tension_file)."""
        return self._check(lib.rod_sim_set_tendon(self._p, name.encode(),
                                                  float(tension)))

    @_locked
    def tendon(self, name):
        """The tendon [tendon.NAME] now: (tension in N, length in m along
        its routing from start to end)."""
        tension, length = ctypes.c_double(), ctypes.c_double()
        self._check(lib.rod_sim_get_tendon(self._p, name.encode(),
                                           ctypes.byref(tension),
                                           ctypes.byref(length)))
        return tension.value, length.value

    @_locked
    def set_base(self, position, orientation, velocity=None,
                 angular_velocity=None):
        """The clamp at the end of the next step: position (m), unit
        quaternion w x y z, and (optionally) velocity (m/s) and angular
        velocity (rad/s), world frame."""
        (p, _a), (q, _b) = _vec(position), _vec(orientation, 4)
        (v, _c), (w, _d) = _vec(velocity), _vec(angular_velocity)
        return self._check(lib.rod_sim_set_base(self._p, p, q, v, w))

    # ---- the state -------------------------------------------------------

    def _get(self, name, width):
        out = np.empty((self._points, width) if width > 1 else self._points)
        self._check(getattr(lib, "rod_sim_get_" + name)(
            self._p, out.ctypes.data_as(c_double_p)))
        return out

    def _energies(self):
        e = np.empty(3)
        self._check(lib.rod_sim_get_energies(
            self._p, e.ctypes.data_as(c_double_p)))
        return [float(x) for x in e]

    @_locked
    def state(self):
        """The rod now, copied: dict of NumPy arrays s (N), position,
        velocity, force, moment (N, 3), orientation (N, 4), and time,
        kinetic, elastic, gravity (J)."""
        st = {"time": lib.rod_sim_time(self._p),
              "s": self._get("arclength", 1),
              "position": self._get("positions", 3),
              "orientation": self._get("orientations", 4),
              "velocity": self._get("velocities", 3)}
        for key, name in (("force", "forces"), ("moment", "moments")):
            try:
                st[key] = self._get(name, 3)
            except Error:
                st[key] = None
        st["kinetic"], st["elastic"], st["gravity"] = self._energies()
        return st

    # name -> whether a count (int) or a value (float)
    _STATS = {"time": float, "steps": int, "samples": int,
              "iterations": int, "integrations": int, "fallbacks": int,
              "max_residual": float, "wall_time": float, "step_wall": float,
              "last_iterations": int, "last_integrations": int,
              "last_residual": float, "last_method": int, "status": int,
              "error_estimate": float, "tip_motion": float,
              "error_estimate_dt": float, "error_estimate_tolerance": float}

    @_locked
    def stats(self):
        """Solver statistics so far (dict): counts as ints (steps, samples,
        iterations, integrations, fallbacks, the last step's iterations,
        integrations and method, the status), the rest as floats (time,
        residuals, wall times in s; the run's estimate of its largest tip
        error, m, -1 when it makes none, the tip's motion, m, and the
        time.dt that would bring the estimate within 1% of it, s, or under
        time.tolerance the time.tolerance that would, m:
        docs/numerics.md, the run's error estimate)."""
        out, v = {}, ctypes.c_double()
        for name, kind in self._STATS.items():
            lib.rod_sim_get_stat(self._p, name.encode(), ctypes.byref(v))
            out[name] = kind(v.value)
        return out

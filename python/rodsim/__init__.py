"""rodsim from Python: slender elastic rods (Kirchhoff/Cosserat by shooting,
Till & Rucker 2017; an RFEM chain) over the rodsim shared library (ctypes),
with NumPy arrays. docs/embedding.md.

    import rodsim
    sim = rodsim.Sim("data/scenarios/weight_release.ini")
    sim.static()
    sim.run(0.5, callback=lambda s: s.set_tip_load([0, 0, 0.01]))
    st = sim.state()          # positions (N, 3), orientations (N, 4), ...
    print(st["position"][-1])

Errors raise rodsim.Error (a ValueError) carrying the library's one-line
message, the same as the command line prints: "FILE: KEY: MESSAGE".
"""
import ctypes
import ctypes.util
import os

import numpy as np

from . import _paths

__all__ = ["Error", "Scenario", "Sim", "calibrate", "load", "version",
           "revision", "library_path"]


def _find_library():
    """The shared library: $RODSIM_LIBRARY, the one installed or built
    beside this package, or the system's."""
    env = os.environ.get("RODSIM_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in _paths.LIBRARY_DIRS:
        path = os.path.normpath(os.path.join(here, rel, _paths.LIBRARY_NAME))
        if os.path.exists(path):
            return path
    found = ctypes.util.find_library("rod")
    if found:
        return found
    raise ImportError("rodsim: cannot find %s (set RODSIM_LIBRARY)"
                      % _paths.LIBRARY_NAME)


library_path = _find_library()
_lib = ctypes.CDLL(library_path)
_c_double_p = ctypes.POINTER(ctypes.c_double)


class Error(ValueError):
    """A failure of the library: its one-line message, and the status."""

    def __init__(self, message, status=-1):
        super().__init__(message)
        self.status = status


class _RodError(ctypes.Structure):
    _fields_ = [("file", ctypes.c_char * 256), ("key", ctypes.c_char * 96),
                ("message", ctypes.c_char * 384), ("line", ctypes.c_int)]

    def text(self):
        buf = ctypes.create_string_buffer(1024)
        _lib.rod_error_format(ctypes.byref(self), buf, len(buf))
        return buf.value.decode()


class _TipData(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("t", _c_double_p),
                ("xyz", _c_double_p), ("has", ctypes.c_bool * 3),
                ("has_valid", ctypes.c_bool),
                ("valid", ctypes.POINTER(ctypes.c_ubyte))]


_CALIB_MAX_KEYS = 8


class _CalibOptions(ctypes.Structure):
    _fields_ = [("objective", ctypes.c_int), ("nkeys", ctypes.c_int),
                ("keys", (ctypes.c_char * 32) * _CALIB_MAX_KEYS),
                ("threads", ctypes.c_int), ("fd_step", ctypes.c_double),
                ("max_iterations", ctypes.c_int),
                ("step_tolerance", ctypes.c_double),
                ("prefit", ctypes.c_bool), ("progress", ctypes.c_void_p),
                ("progress_user", ctypes.c_void_p)]


def _calib_result_fields():
    d8 = ctypes.c_double * _CALIB_MAX_KEYS
    return [("nkeys", ctypes.c_int), ("initial", d8), ("value", d8),
            ("std_error", d8), ("rms_residual", ctypes.c_double),
            ("residuals", ctypes.c_int), ("skipped", ctypes.c_int),
            ("iterations", ctypes.c_int),
            ("simulations", ctypes.c_int),
            ("prefit_simulations", ctypes.c_int),
            ("from_prefit", ctypes.c_bool), ("threads", ctypes.c_int),
            ("wall_time", ctypes.c_double), ("converged", ctypes.c_bool),
            ("stop", ctypes.c_int)]


class _CalibResult(ctypes.Structure):
    _fields_ = _calib_result_fields()


def _signatures():
    vp, cp, ip, dp = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, _c_double_p
    err = ctypes.POINTER(_RodError)
    table = {
        "rod_version": (cp, []), "rod_revision": (cp, []),
        "rod_struct_size": (ctypes.c_ulong, [cp]),
        "rod_strerror": (cp, [ip]),
        "rod_error_format": (None, [err, cp, ctypes.c_ulong]),
        "rod_scenario_new": (vp, []), "rod_scenario_free": (None, [vp]),
        "rod_scenario_load": (ip, [vp, cp, err]),
        "rod_scenario_load_string": (ip, [vp, cp, cp, err]),
        "rod_scenario_set_key": (ip, [vp, cp, cp, cp, err]),
        "rod_scenario_validate": (ip, [vp, err]),
        "rod_scenario_to_ini": (ctypes.c_size_t, [vp, cp, ctypes.c_size_t]),
        "rod_scenario_get_text": (ip, [vp, cp, cp, cp, ctypes.c_size_t]),
        "rod_sim_create": (ip, [vp, ctypes.POINTER(vp), err]),
        "rod_sim_free": (None, [vp]),
        "rod_sim_scenario": (vp, [vp]),
        "rod_sim_backend": (cp, [vp]),
        "rod_sim_error": (cp, [vp]),
        "rod_sim_open_output": (ip, [vp, cp]),
        "rod_sim_close_output": (ip, [vp, cp]),
        "rod_sim_flush": (ip, [vp]),
        "rod_sim_static": (ip, [vp]), "rod_sim_step": (ip, [vp]),
        "rod_sim_advance_to": (ip, [vp, ctypes.c_double]),
        "rod_sim_time": (ctypes.c_double, [vp]),
        "rod_sim_points": (ip, [vp]),
        "rod_sim_set_tip_load": (ip, [vp, dp, dp]),
        "rod_sim_set_load": (ip, [vp, cp, dp, dp]),
        "rod_sim_set_base": (ip, [vp, dp, dp, dp, dp]),
        "rod_sim_get_stat": (ip, [vp, cp, dp]),
        "rod_tip_data_alloc": (ctypes.POINTER(_TipData), [ip]),
        "rod_tip_data_free": (None, [ctypes.POINTER(_TipData)]),
        "rod_tip_read": (ip, [cp, ctypes.POINTER(ctypes.POINTER(_TipData)),
                              err]),
        "rod_calib_default_options": (_CalibOptions, []),
        "rod_calib_set_keys": (ip, [ctypes.POINTER(_CalibOptions), cp, cp,
                                    err]),
        "rod_calib_fit": (ip, [vp, ctypes.POINTER(_TipData), cp,
                               ctypes.POINTER(_CalibOptions), vp,
                               ctypes.POINTER(_CalibResult), err]),
        "rod_calib_fit_shape": (ip, [vp, vp, cp,
                                     ctypes.POINTER(_CalibOptions), vp,
                                     ctypes.POINTER(_CalibResult), err]),
        "rod_shape_is_hdf5": (ctypes.c_bool, [cp]),
        "rod_shape_read": (ip, [cp, ctypes.POINTER(vp), err]),
        "rod_shape_free": (None, [vp]),
        "rod_calib_fit_section": (ctypes.c_size_t,
                                  [ctypes.POINTER(_CalibOptions),
                                   ctypes.POINTER(_CalibResult), cp,
                                   ctypes.c_size_t]),
    }
    for name in ("positions", "orientations", "velocities", "forces",
                 "moments", "arclength", "energies"):
        table["rod_sim_get_" + name] = (ip, [vp, dp])
    for name, (res, args) in table.items():
        fn = getattr(_lib, name)
        fn.restype, fn.argtypes = res, args


_signatures()
for _name, _cls in (("rod_error", _RodError), ("rod_tip_data", _TipData),
                    ("rod_calib_options", _CalibOptions),
                    ("rod_calib_result", _CalibResult)):
    if _lib.rod_struct_size(_name.encode()) != ctypes.sizeof(_cls):
        raise ImportError("rodsim: %s of %s does not match this module "
                          "(library %s)" % (_name, library_path,
                                            _lib.rod_version().decode()))


def version():
    """The library's version, "0.1.0"."""
    return _lib.rod_version().decode()


def revision():
    """The library's build revision (git describe), or "unknown"."""
    return _lib.rod_revision().decode()


def _check(status, err=None, sim=None):
    if status == 0:
        return
    if err is not None:
        raise Error(err.text(), status)
    if sim is not None:
        raise Error(_lib.rod_sim_error(sim).decode(), status)
    raise Error(_lib.rod_strerror(status).decode(), status)


def _vec(v, n=3):
    if v is None:
        return None
    a = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError("expected %d numbers, got %d" % (n, a.size))
    return a.ctypes.data_as(_c_double_p), a  # keep a alive with the pointer


class Scenario:
    """Every parameter of a run (docs/scenario.md): the defaults, then an
    INI file or text, then keys set one by one with the loader's checks.

        sc = rodsim.Scenario("rod.ini", **{"time.dt": 1e-3})
        sc["rod.length"] = 0.3
        sc.get("rod.length") -> 0.3
    """

    def __init__(self, path=None, ini=None, name=None, **keys):
        self._p = _lib.rod_scenario_new()
        if not self._p:
            raise MemoryError("rodsim: out of memory")
        err = _RodError()
        if path is not None:
            _check(_lib.rod_scenario_load(self._p, os.fsencode(path),
                                          ctypes.byref(err)), err)
        if ini is not None:
            _check(_lib.rod_scenario_load_string(
                self._p, ini.encode(), (name or "scenario").encode(),
                ctypes.byref(err)), err)
        for key, value in keys.items():
            self.set(key, value)

    def __del__(self):
        if getattr(self, "_p", None):
            _lib.rod_scenario_free(self._p)
            self._p = None

    @staticmethod
    def _split(key):
        section, _, name = key.rpartition(".")
        if not section:
            raise Error("%s: expected SECTION.KEY" % key)
        return section, name

    @staticmethod
    def _text(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (list, tuple, np.ndarray)):
            return " ".join(repr(float(x)) for x in value)
        if isinstance(value, float):
            return repr(value)
        return str(value)

    def set(self, key, value):
        """Set "section.key" (or "load.NAME.key") to value, checked as the
        loader checks it."""
        section, name = self._split(key)
        err = _RodError()
        _check(_lib.rod_scenario_set_key(self._p, section.encode(),
                                         name.encode(),
                                         self._text(value).encode(),
                                         ctypes.byref(err)), err)
        return self

    __setitem__ = set

    def text(self, key):
        """The value of key as the INI text has it ("0 0 -9.81")."""
        section, name = self._split(key)
        buf = ctypes.create_string_buffer(1024)
        if _lib.rod_scenario_get_text(self._p, section.encode(),
                                      name.encode(), buf, len(buf)) != 0:
            raise Error("%s: unknown key (see rodsim keys)" % key)
        return buf.value.decode()

    def get(self, key):
        """The value of key: a float, an array of 3, or text."""
        t = self.text(key)
        try:
            v = [float(x) for x in t.split()]
        except ValueError:
            return t
        return v[0] if len(v) == 1 else np.array(v)

    __getitem__ = get

    def validate(self):
        err = _RodError()
        _check(_lib.rod_scenario_validate(self._p, ctypes.byref(err)), err)
        return self

    def ini(self):
        """The full effective scenario as INI text."""
        n = _lib.rod_scenario_to_ini(self._p, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        _lib.rod_scenario_to_ini(self._p, buf, n + 1)
        return buf.value.decode()


class Sim:
    """A simulation (include/rod/sim.h): from a Scenario, an INI file name
    or INI text (ini=...). static() solves t = 0; step() and run() advance;
    loads and the clamp's pose can be set between steps; state() copies
    the rod into NumPy arrays."""

    def __init__(self, scenario=None, ini=None, output=None, **keys):
        if not isinstance(scenario, Scenario):
            scenario = Scenario(path=scenario, ini=ini, **keys)
        elif keys:
            raise TypeError("keys go to the Scenario")
        self.scenario = scenario
        self._p = ctypes.c_void_p()
        err = _RodError()
        _check(_lib.rod_sim_create(scenario._p, ctypes.byref(self._p),
                                   ctypes.byref(err)), err)
        if output is not None:
            self.open_output(output)

    def close(self, status=None):
        """Write the output file's status (when one is open) and free."""
        if getattr(self, "_p", None):
            try:
                self.close_output(status)
            finally:
                _lib.rod_sim_free(self._p)
                self._p = None

    def __del__(self):
        if getattr(self, "_p", None):
            _lib.rod_sim_free(self._p)
            self._p = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close("interrupted" if exc[0] is KeyboardInterrupt else None)

    def _call(self, status):
        _check(status, sim=self._p)
        return self

    @property
    def backend(self):
        return _lib.rod_sim_backend(self._p).decode()

    @property
    def time(self):
        """Simulated time (s); 0 at the static state."""
        return _lib.rod_sim_time(self._p)

    @property
    def points(self):
        return _lib.rod_sim_points(self._p)

    @property
    def dt(self):
        return float(self.scenario.get("time.dt"))

    def open_output(self, path=None):
        """Write the samples to an HDF5 file (docs/hdf5.md)."""
        return self._call(_lib.rod_sim_open_output(
            self._p, None if path is None else os.fsencode(path)))

    def close_output(self, status=None):
        return self._call(_lib.rod_sim_close_output(
            self._p, None if status is None else status.encode()))

    def static(self):
        """Solve the static state (t = 0)."""
        return self._call(_lib.rod_sim_static(self._p))

    def step(self):
        """One step of time.dt."""
        return self._call(_lib.rod_sim_step(self._p))

    def advance_to(self, t):
        return self._call(_lib.rod_sim_advance_to(self._p, float(t)))

    def run(self, duration, callback=None):
        """Advance by duration (s); callback(sim) after every step, where
        loads may be set for the next one. A callback returning False
        stops the run."""
        end = self.time + duration
        last = int(np.ceil(end / self.dt - 1e-9))
        steps = int(round(self.time / self.dt))
        if callback is None:
            return self.advance_to(end)
        while steps < last:
            self.step()
            steps += 1
            if callback(self) is False:
                break
        return self

    def set_tip_load(self, force=None, moment=None):
        """Tip force (N) and moment (N m), world frame, from the next
        step on."""
        f, m = _vec(force), _vec(moment)
        return self._call(_lib.rod_sim_set_tip_load(
            self._p, f[0] if f else None, m[0] if m else None))

    def set_load(self, name, force=None, moment=None):
        """Force and moment of the point load [load.NAME]."""
        f, m = _vec(force), _vec(moment)
        return self._call(_lib.rod_sim_set_load(
            self._p, name.encode(), f[0] if f else None,
            m[0] if m else None))

    def set_base(self, position, orientation, velocity=None,
                 angular_velocity=None):
        """The clamp at the end of the next step: position (m), unit
        quaternion w x y z, and (optionally) velocity (m/s) and angular
        velocity (rad/s), world frame."""
        p, q = _vec(position), _vec(orientation, 4)
        v, w = _vec(velocity), _vec(angular_velocity)
        return self._call(_lib.rod_sim_set_base(
            self._p, p[0], q[0], v[0] if v else None, w[0] if w else None))

    def _get(self, name, width):
        out = np.empty((self.points, width) if width > 1 else self.points)
        self._call(getattr(_lib, "rod_sim_get_" + name)(
            self._p, out.ctypes.data_as(_c_double_p)))
        return out

    def state(self):
        """The rod now, copied: dict of NumPy arrays s (N), position,
        velocity, force, moment (N, 3), orientation (N, 4), and time,
        kinetic, elastic, gravity (J)."""
        st = {"time": self.time,
              "s": self._get("arclength", 1),
              "position": self._get("positions", 3),
              "orientation": self._get("orientations", 4),
              "velocity": self._get("velocities", 3)}
        for key, name in (("force", "forces"), ("moment", "moments")):
            try:
                st[key] = self._get(name, 3)
            except Error:
                st[key] = None
        e = np.empty(3)
        self._call(_lib.rod_sim_get_energies(
            self._p, e.ctypes.data_as(_c_double_p)))
        st["kinetic"], st["elastic"], st["gravity"] = (float(x) for x in e)
        return st

    _STATS = ("time", "steps", "samples", "iterations", "integrations",
              "fallbacks", "max_residual", "wall_time", "step_wall",
              "last_iterations", "last_integrations", "last_residual",
              "last_method", "status")

    def stats(self):
        """Solver statistics so far (dict)."""
        out, v = {}, ctypes.c_double()
        for name in self._STATS:
            _lib.rod_sim_get_stat(self._p, name.encode(), ctypes.byref(v))
            out[name] = v.value
        return out


def calibrate(scenario, data, keys="bending_stiffness,density,drag",
              objective=None, threads=0, max_iterations=100, prefit=True):
    """Fit the [rod] keys of scenario to a measured tip trajectory or shape
    (docs/commands.md, rodsim calibrate). data: a tip CSV file name, a
    shape file (rodsim track --shape, HDF5), or a dict with "t" and any of
    "x", "y", "z" (arrays, m). objective: "trajectory" (the default for tip
    data), "features", or "shape" (the default for a shape file). Returns a
    dict: values, std_errors (by key), rms_residual (m), residuals,
    skipped (flagged samples or frames left out), iterations, simulations,
    converged, scenario (the fitted Scenario), fit (the [fit] section's
    text)."""
    if not isinstance(scenario, Scenario):
        scenario = Scenario(path=scenario)
    err = _RodError()
    tip = ctypes.POINTER(_TipData)()
    shape = ctypes.c_void_p()
    if isinstance(data, (str, bytes, os.PathLike)):
        name = os.fsencode(data)
        if _lib.rod_shape_is_hdf5(name):
            _check(_lib.rod_shape_read(name, ctypes.byref(shape),
                                       ctypes.byref(err)), err)
        else:
            _check(_lib.rod_tip_read(name, ctypes.byref(tip),
                                     ctypes.byref(err)), err)
    else:
        t = np.asarray(data["t"], dtype=np.float64)
        tip = _lib.rod_tip_data_alloc(len(t))
        if not tip:
            raise MemoryError("rodsim: out of memory")
        d = tip.contents
        for i in range(len(t)):
            d.t[i] = t[i]
        for c, axis in enumerate("xyz"):
            if axis in data:
                v = np.asarray(data[axis], dtype=np.float64)
                d.has[c] = True
                for i in range(len(t)):
                    d.xyz[3 * i + c] = v[i]
        name = b"data"
    try:
        if objective is None:
            objective = "shape" if shape else "trajectory"
        codes = {"trajectory": 0, "features": 1, "shape": 2}
        if objective not in codes or (objective == "shape" and not shape):
            raise ValueError(
                "rodsim: objective: expected trajectory, features or shape "
                "(shape needs a shape file), got %r" % (objective,))
        opt = _lib.rod_calib_default_options()
        opt.objective = codes[objective]
        opt.threads, opt.max_iterations = threads, max_iterations
        opt.prefit = prefit
        _check(_lib.rod_calib_set_keys(ctypes.byref(opt), keys.encode(),
                                       b"keys", ctypes.byref(err)), err)
        fitted = Scenario()
        res = _CalibResult()
        fit = _lib.rod_calib_fit_shape if shape else _lib.rod_calib_fit
        _check(fit(scenario._p, shape if shape else tip, name,
                   ctypes.byref(opt), fitted._p, ctypes.byref(res),
                   ctypes.byref(err)), err)
    finally:
        _lib.rod_tip_data_free(tip)
        _lib.rod_shape_free(shape)
    names = [opt.keys[i].value.decode() for i in range(opt.nkeys)]
    n = _lib.rod_calib_fit_section(ctypes.byref(opt), ctypes.byref(res),
                                   None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    _lib.rod_calib_fit_section(ctypes.byref(opt), ctypes.byref(res), buf,
                               n + 1)
    return {"values": dict(zip(names, res.value[:res.nkeys])),
            "std_errors": dict(zip(names, res.std_error[:res.nkeys])),
            "rms_residual": res.rms_residual, "residuals": res.residuals,
            "skipped": res.skipped, "iterations": res.iterations,
            "simulations": res.simulations, "converged": res.converged,
            "scenario": fitted, "fit": buf.value.decode()}


def load(path):
    """An output file (docs/hdf5.md) as a dict: every dataset by its path
    without the leading "/" ("rod/position"), as NumPy arrays, and "attrs"
    (the root attributes, "scenario" the INI text). Of a file that a killed
    run left, the whole samples only: the first "samples" along T.
    Needs h5py."""
    try:
        import h5py
    except ImportError as e:  # pragma: no cover
        raise ImportError("rodsim.load needs h5py (Debian: python3-h5py)") \
            from e
    out = {}
    with h5py.File(path, "r") as f:
        # the whole samples: a killed run may leave datasets longer
        whole = int(f["samples"][()]) if "samples" in f else None

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                along_t = whole is not None and obj.ndim > 0 and \
                    name != "rod/s"
                out[name] = obj[:whole] if along_t else obj[()]
        f.visititems(visit)
        attrs = {}
        for k, v in f.attrs.items():
            attrs[k] = v.decode() if isinstance(v, bytes) else v
        out["attrs"] = attrs
    return out

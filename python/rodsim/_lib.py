"""The rodsim shared library through ctypes: where it is found, the C
structs this module mirrors (checked against the library's sizes), every
function's signature, and the error a failing call raises."""
import ctypes
import ctypes.util
import os

from . import _paths

ROD_OK, ROD_EINVAL, ROD_EINTR = 0, -1, -9


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
lib = ctypes.CDLL(library_path)
c_double_p = ctypes.POINTER(ctypes.c_double)


class Error(ValueError):
    """A failure of the library: its one-line message, and the status."""

    def __init__(self, message, status=ROD_EINVAL):
        super().__init__(message)
        self.status = status


class RodError(ctypes.Structure):
    _fields_ = [("file", ctypes.c_char * 256), ("key", ctypes.c_char * 96),
                ("message", ctypes.c_char * 384), ("line", ctypes.c_int)]

    def text(self):
        buf = ctypes.create_string_buffer(1024)
        lib.rod_error_format(ctypes.byref(self), buf, len(buf))
        return buf.value.decode()


class TipData(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("t", c_double_p),
                ("xyz", c_double_p), ("has", ctypes.c_bool * 3),
                ("has_valid", ctypes.c_bool),
                ("valid", ctypes.POINTER(ctypes.c_ubyte))]


CALIB_MAX_KEYS = 8
CALIB_MAX_SETS = 8


class CalibOptions(ctypes.Structure):
    _fields_ = [("objective", ctypes.c_int), ("nkeys", ctypes.c_int),
                ("keys", (ctypes.c_char * 32) * CALIB_MAX_KEYS),
                ("threads", ctypes.c_int), ("fd_step", ctypes.c_double),
                ("max_iterations", ctypes.c_int),
                ("step_tolerance", ctypes.c_double),
                ("prefit", ctypes.c_bool), ("progress", ctypes.c_void_p),
                ("progress_user", ctypes.c_void_p),
                ("stop", ctypes.c_void_p), ("stop_user", ctypes.c_void_p)]


class CalibSet(ctypes.Structure):
    _fields_ = [("residuals", ctypes.c_int), ("skipped", ctypes.c_int),
                ("noise", ctypes.c_double), ("weight", ctypes.c_double),
                ("rms_residual", ctypes.c_double)]


class CalibExperiment(ctypes.Structure):
    _fields_ = [("sc", ctypes.c_void_p), ("data", ctypes.POINTER(TipData)),
                ("name", ctypes.c_char_p)]


def _calib_result_fields():
    d8 = ctypes.c_double * CALIB_MAX_KEYS
    return [("nkeys", ctypes.c_int), ("initial", d8), ("value", d8),
            ("std_error", d8), ("rms_residual", ctypes.c_double),
            ("residuals", ctypes.c_int), ("skipped", ctypes.c_int),
            ("iterations", ctypes.c_int),
            ("simulations", ctypes.c_int),
            ("prefit_simulations", ctypes.c_int),
            ("from_prefit", ctypes.c_bool), ("threads", ctypes.c_int),
            ("wall_time", ctypes.c_double), ("converged", ctypes.c_bool),
            ("stop", ctypes.c_int), ("sets", ctypes.c_int),
            ("set", CalibSet * CALIB_MAX_SETS),
            ("covariance", ctypes.c_double * (CALIB_MAX_KEYS ** 2))]


class CalibResult(ctypes.Structure):
    _fields_ = _calib_result_fields()


def _signatures():
    vp, cp, ip, dp = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, c_double_p
    err = ctypes.POINTER(RodError)
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
        "rod_sim_warning": (cp, [vp]),
        "rod_sim_output_every": (ip, [vp]),
        "rod_sim_flush": (ip, [vp]),
        "rod_sim_static": (ip, [vp]), "rod_sim_step": (ip, [vp]),
        "rod_sim_advance_to": (ip, [vp, ctypes.c_double]),
        "rod_sim_time": (ctypes.c_double, [vp]),
        "rod_sim_points": (ip, [vp]),
        "rod_sim_set_tip_load": (ip, [vp, dp, dp]),
        "rod_sim_set_load": (ip, [vp, cp, dp, dp]),
        "rod_sim_set_tendon": (ip, [vp, cp, ctypes.c_double]),
        "rod_sim_get_tendon": (ip, [vp, cp, dp, dp]),
        "rod_sim_set_base": (ip, [vp, dp, dp, dp, dp]),
        "rod_sim_get_stat": (ip, [vp, cp, dp]),
        "rod_tip_data_alloc": (ctypes.POINTER(TipData), [ip]),
        "rod_tip_data_free": (None, [ctypes.POINTER(TipData)]),
        "rod_tip_read": (ip, [cp, ctypes.POINTER(ctypes.POINTER(TipData)),
                              err]),
        "rod_calib_default_options": (CalibOptions, []),
        "rod_calib_set_keys": (ip, [ctypes.POINTER(CalibOptions), cp, cp,
                                    err]),
        "rod_calib_fit": (ip, [vp, ctypes.POINTER(TipData), cp,
                               ctypes.POINTER(CalibOptions), vp,
                               ctypes.POINTER(CalibResult), err]),
        "rod_calib_fit_joint": (ip, [ctypes.POINTER(CalibExperiment), ip,
                                     ctypes.POINTER(CalibOptions), vp,
                                     ctypes.POINTER(CalibResult), err]),
        "rod_calib_noise": (ctypes.c_double, [ctypes.POINTER(TipData)]),
        "rod_calib_fit_shape": (ip, [vp, vp, cp,
                                     ctypes.POINTER(CalibOptions), vp,
                                     ctypes.POINTER(CalibResult), err]),
        "rod_shape_is_hdf5": (ctypes.c_bool, [cp]),
        "rod_shape_read": (ip, [cp, ctypes.POINTER(vp), err]),
        "rod_shape_free": (None, [vp]),
        "rod_calib_fit_section": (ctypes.c_size_t,
                                  [ctypes.POINTER(CalibOptions),
                                   ctypes.POINTER(CalibResult), cp,
                                   ctypes.c_size_t]),
    }
    for name in ("positions", "orientations", "velocities", "forces",
                 "moments", "arclength", "energies"):
        table["rod_sim_get_" + name] = (ip, [vp, dp])
    for name, (res, args) in table.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args


_signatures()
for _name, _cls in (("rod_error", RodError), ("rod_tip_data", TipData),
                    ("rod_calib_options", CalibOptions),
                    ("rod_calib_result", CalibResult)):
    if lib.rod_struct_size(_name.encode()) != ctypes.sizeof(_cls):
        raise ImportError("rodsim: %s of %s does not match this module "
                          "(library %s)" % (_name, library_path,
                                            lib.rod_version().decode()))
# a scenario is a plain struct (no pointers): copied byte for byte
SCENARIO_SIZE = lib.rod_struct_size(b"rod_scenario")


def check(status, err=None):
    """Raise Error for a failed status, with err's message when given."""
    if status == ROD_OK:
        return
    if err is not None:
        raise Error(err.text(), status)
    raise Error(lib.rod_strerror(status).decode(), status)

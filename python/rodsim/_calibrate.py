"""rodsim.calibrate and rodsim.load: fit [rod] keys to measured tip data
or shapes (docs/commands.md, rodsim calibrate), and read an output file
(docs/hdf5.md) into NumPy arrays."""
import ctypes
import os

import numpy as np

from ._lib import CalibResult, RodError, TipData, check, lib
from ._scenario import Scenario


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
    err = RodError()
    tip = ctypes.POINTER(TipData)()
    shape = ctypes.c_void_p()
    if isinstance(data, (str, bytes, os.PathLike)):
        name = os.fsencode(data)
        if lib.rod_shape_is_hdf5(name):
            check(lib.rod_shape_read(name, ctypes.byref(shape),
                                       ctypes.byref(err)), err)
        else:
            check(lib.rod_tip_read(name, ctypes.byref(tip),
                                     ctypes.byref(err)), err)
    else:
        t = np.asarray(data["t"], dtype=np.float64)
        tip = lib.rod_tip_data_alloc(len(t))
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
        opt = lib.rod_calib_default_options()
        opt.objective = codes[objective]
        opt.threads, opt.max_iterations = threads, max_iterations
        opt.prefit = prefit
        check(lib.rod_calib_set_keys(ctypes.byref(opt), keys.encode(),
                                       b"keys", ctypes.byref(err)), err)
        fitted = Scenario()
        res = CalibResult()
        fit = lib.rod_calib_fit_shape if shape else lib.rod_calib_fit
        check(fit(scenario._p, shape if shape else tip, name,
                   ctypes.byref(opt), fitted._p, ctypes.byref(res),
                   ctypes.byref(err)), err)
    finally:
        lib.rod_tip_data_free(tip)
        lib.rod_shape_free(shape)
    names = [opt.keys[i].value.decode() for i in range(opt.nkeys)]
    n = lib.rod_calib_fit_section(ctypes.byref(opt), ctypes.byref(res),
                                   None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    lib.rod_calib_fit_section(ctypes.byref(opt), ctypes.byref(res), buf,
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

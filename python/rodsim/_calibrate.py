"""rodsim.calibrate and rodsim.load: fit [rod] keys to measured tip data
or shapes (docs/commands.md, rodsim calibrate), and read an output file
(docs/hdf5.md) into NumPy arrays."""
import ctypes
import os

import numpy as np

from ._lib import (CALIB_MAX_SETS, SCENARIO_SIZE, CalibExperiment,
                   CalibResult, RodError, TipData, check, lib)
from ._scenario import Scenario


def _tip_data(data):
    """Tip data from a file name or a dict: (TipData pointer, shape
    pointer, name), one of the two pointers NULL."""
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
        return tip, shape, name
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
    return tip, shape, b"data"


def calibrate(scenario=None, data=None, keys="bending_stiffness,density,drag",
              objective=None, threads=0, max_iterations=100, prefit=True,
              experiments=None):
    """Fit the [rod] keys of scenario to a measured tip trajectory or shape
    (docs/commands.md, rodsim calibrate). data: a tip CSV file name, a
    shape file (rodsim track --shape, HDF5), or a dict with "t" and any of
    "x", "y", "z" (arrays, m). objective: "trajectory" (the default for tip
    data), "features", or "shape" (the default for a shape file).

    experiments: instead of scenario and data, a list of (scenario, data)
    pairs (tip data only): the keys are fitted to all of them at once, as
    `rodsim calibrate --experiment A.ini --data A.csv --experiment ...`
    does, each set's residuals weighted by its noise.

    Returns a dict: values, std_errors (by key), covariance (of ln p, keys
    x keys), rms_residual (m), residuals, skipped (flagged samples or
    frames left out), iterations, simulations, converged, scenario (the
    fitted Scenario, the first experiment's), scenarios (each
    experiment's), sets (each data set's noise (m), weight (1/m),
    rms_residual (m), residuals, skipped), fit (the [fit] section's
    text)."""
    if experiments is None:
        if scenario is None or data is None:
            raise ValueError("rodsim: calibrate: give scenario and data, or "
                             "experiments")
        experiments = [(scenario, data)]
        single = True
    else:
        if scenario is not None or data is not None:
            raise ValueError("rodsim: calibrate: either scenario and data, "
                             "or experiments, not both")
        experiments = list(experiments)
        single = False
        if not 1 <= len(experiments) <= CALIB_MAX_SETS:
            raise ValueError("rodsim: calibrate: 1 to %d experiments, got %d"
                             % (CALIB_MAX_SETS, len(experiments)))
    scenarios = [sc if isinstance(sc, Scenario) else Scenario(path=sc)
                 for sc, _ in experiments]
    err = RodError()
    loaded = []
    try:
        for _, d in experiments:
            loaded.append(_tip_data(d))
        shape = loaded[0][1]
        if shape and not single:
            raise ValueError("rodsim: calibrate: a joint fit takes tip data, "
                             "not shape files")
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
        res = CalibResult()
        n = len(experiments)
        fitted_buf = ctypes.create_string_buffer(SCENARIO_SIZE * n)
        if shape:
            check(lib.rod_calib_fit_shape(scenarios[0]._p, shape,
                                            loaded[0][2], ctypes.byref(opt),
                                            fitted_buf, ctypes.byref(res),
                                            ctypes.byref(err)), err)
        else:
            ex = (CalibExperiment * n)()
            for e, (tip, _, name) in enumerate(loaded):
                ex[e].sc, ex[e].data, ex[e].name = scenarios[e]._p, tip, name
            check(lib.rod_calib_fit_joint(ex, n, ctypes.byref(opt),
                                            fitted_buf, ctypes.byref(res),
                                            ctypes.byref(err)), err)
    finally:
        for tip, shp, _ in loaded:
            lib.rod_tip_data_free(tip)
            lib.rod_shape_free(shp)
    fitted = []
    for e in range(n):
        sc = Scenario()
        ctypes.memmove(sc._p, ctypes.addressof(fitted_buf) + e * SCENARIO_SIZE,
                       SCENARIO_SIZE)
        fitted.append(sc)
    names = [opt.keys[i].value.decode() for i in range(opt.nkeys)]
    size = lib.rod_calib_fit_section(ctypes.byref(opt), ctypes.byref(res),
                                      None, 0)
    buf = ctypes.create_string_buffer(size + 1)
    lib.rod_calib_fit_section(ctypes.byref(opt), ctypes.byref(res), buf,
                               size + 1)
    k = res.nkeys
    cov = np.array(res.covariance[:k * k]).reshape(k, k)
    sets = [{"noise": s.noise, "weight": s.weight,
             "rms_residual": s.rms_residual, "residuals": s.residuals,
             "skipped": s.skipped} for s in res.set[:res.sets]]
    return {"values": dict(zip(names, res.value[:res.nkeys])),
            "std_errors": dict(zip(names, res.std_error[:res.nkeys])),
            "covariance": cov,
            "rms_residual": res.rms_residual, "residuals": res.residuals,
            "skipped": res.skipped, "iterations": res.iterations,
            "simulations": res.simulations, "converged": res.converged,
            "scenario": fitted[0], "scenarios": fitted, "sets": sets,
            "fit": buf.value.decode()}


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

"""rodsim.sweep: many runs of one scenario into a directory, as `rodsim
sweep` makes them (docs/scale.md), the cases run in this process's threads
or by any concurrent.futures executor, the index returned as NumPy
arrays."""
import collections.abc
import ctypes
import os

import numpy as np

from ._lib import ROD_EINVAL, Error, RodError, SCENARIO_SIZE, check, lib
from ._scenario import Scenario

TEXT = 256  # ROD_SWEEP_TEXT
STATUS_NAMES = ("pending", "running", "complete", "failed", "refused",
                "interrupted")


class CaseRecord(ctypes.Structure):
    """rod_case_record (rod/sweep.h)."""
    d3 = ctypes.c_double * 3
    _fields_ = [("status", ctypes.c_int), ("wall_time", ctypes.c_double),
                ("time", ctypes.c_double), ("tip_final", d3),
                ("tip_min", d3), ("tip_max", d3),
                ("frequency", ctypes.c_double),
                ("energy_drift", ctypes.c_double),
                ("error_estimate", ctypes.c_double),
                ("message", ctypes.c_char * TEXT),
                ("warning", ctypes.c_char * TEXT)]


class SweepOptions(ctypes.Structure):
    """rod_sweep_options (rod/sweep.h); no callbacks from Python."""
    _fields_ = [("static_only", ctypes.c_bool),
                ("retry_failed", ctypes.c_bool), ("shard", ctypes.c_int),
                ("shards", ctypes.c_int), ("threads", ctypes.c_int),
                ("stop", ctypes.c_void_p), ("on_case", ctypes.c_void_p),
                ("warn", ctypes.c_void_p), ("user", ctypes.c_void_p)]


class SweepReport(ctypes.Structure):
    _fields_ = [("cases", ctypes.c_int), ("done_before", ctypes.c_int),
                ("recovered", ctypes.c_int), ("ran", ctypes.c_int),
                ("counts", ctypes.c_int * len(STATUS_NAMES)),
                ("ranks", ctypes.c_int), ("threads", ctypes.c_int),
                ("wall_time", ctypes.c_double)]


def _signatures():
    vp, cp, ip = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    err = ctypes.POINTER(RodError)
    rec = ctypes.POINTER(CaseRecord)
    table = {
        "rod_sweep_def_new": (vp, []), "rod_sweep_def_free": (None, [vp]),
        "rod_sweep_def_vary": (ip, [vp, cp, cp, err]),
        "rod_sweep_def_csv": (ip, [vp, cp, err]),
        "rod_sweep_def_samples": (ip, [vp, ip, ctypes.c_uint64, cp, err]),
        "rod_sweep_def_section": (ip, [vp, cp, vp, err]),
        "rod_sweep_def_build": (ip, [vp, vp, err]),
        "rod_sweep_def_cases": (ip, [vp]), "rod_sweep_def_keys": (ip, [vp]),
        "rod_sweep_def_key": (cp, [vp, ip]),
        "rod_sweep_def_text": (cp, [vp, ip, ip]),
        "rod_sweep_open": (ip, [ctypes.POINTER(vp), cp, vp, vp,
                                ctypes.POINTER(SweepOptions), err]),
        "rod_sweep_run": (ip, [vp, ctypes.POINTER(SweepReport), err]),
        "rod_sweep_next": (ip, [vp, vp]),
        "rod_sweep_record": (ip, [vp, ip, rec]),
        "rod_sweep_get_record": (ip, [vp, ip, rec]),
        "rod_sweep_cases": (ip, [vp]),
        "rod_sweep_index": (cp, [vp]),
        "rod_sweep_close": (ip, [vp]),
        "rod_sweep_run_case": (ip, [vp, ctypes.c_bool, vp, rec]),
    }
    for name, (res, args) in table.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    for name, cls in (("rod_case_record", CaseRecord),
                      ("rod_sweep_options", SweepOptions)):
        if lib.rod_struct_size(name.encode()) != ctypes.sizeof(cls):
            raise ImportError("rodsim: %s does not match the library" % name)


_signatures()


def _spec(key, values):
    """--vary's text of a key's values: a list ("V1,V2,...", a vector as
    "x y z") or a range as text ("START:STOP:COUNT[:log]")."""
    if isinstance(values, str):
        return "%s=%s" % (key, values)
    if not isinstance(values, collections.abc.Iterable):
        values = [values]
    texts = []
    for v in values:
        t = Scenario._text(v)
        if "," in t:
            raise Error("vary: %s: a value holds a comma: %r" % (key, t))
        texts.append(t)
    return "%s=%s" % (key, ",".join(texts))


def run_case(scenario_bytes, static_only=False):
    """Run one case: the bytes of its rod_scenario (output.file set) in,
    the bytes of its rod_case_record out. A top-level function, so that a
    process pool can run it."""
    sc = lib.rod_scenario_new()
    if not sc:
        raise MemoryError("rodsim: out of memory")
    try:
        ctypes.memmove(sc, scenario_bytes, SCENARIO_SIZE)
        rec = CaseRecord()
        lib.rod_sweep_run_case(sc, bool(static_only), None,
                               ctypes.byref(rec))
        return bytes(rec)
    finally:
        lib.rod_scenario_free(sc)


def _index(s, d):
    """The index's arrays: the sweep's definition and every record."""
    n, k = lib.rod_sweep_def_cases(d), lib.rod_sweep_def_keys(d)
    keys = [lib.rod_sweep_def_key(d, j).decode() for j in range(k)]
    text = np.array([[lib.rod_sweep_def_text(d, c, j).decode()
                      for j in range(k)] for c in range(n)], dtype=object)
    values = np.full((n, k), np.nan)
    for c in range(n):
        for j in range(k):
            try:
                values[c, j] = float(text[c, j])
            except ValueError:
                pass
    out = {"keys": keys, "text": text.reshape(n, k), "values": values,
           "file": np.array(["case-%05d.h5" % c for c in range(n)],
                            dtype=object),
           "status": np.zeros(n, np.int8),
           "message": np.empty(n, dtype=object),
           "warning": np.empty(n, dtype=object),
           "wall_time": np.full(n, np.nan)}
    summary = {name: np.full((n, 3) if name.startswith("tip") else n,
                             np.nan)
               for name in ("time", "tip_final", "tip_min", "tip_max",
                            "frequency", "energy_drift", "error_estimate")}
    rec = CaseRecord()
    for c in range(n):
        check(lib.rod_sweep_get_record(s, c, ctypes.byref(rec)))
        out["status"][c] = rec.status
        out["message"][c] = rec.message.decode(errors="replace")
        out["warning"][c] = rec.warning.decode(errors="replace")
        out["wall_time"][c] = rec.wall_time
        for name in summary:
            summary[name][c] = getattr(rec, name)[:] \
                if name.startswith("tip") else getattr(rec, name)
    out["summary"] = summary
    out["index"] = lib.rod_sweep_index(s).decode()
    out["status_names"] = STATUS_NAMES
    return out


def _define(d, base, path, vary, cases, samples, seed):
    err = RodError()
    given = bool(vary) or cases is not None or samples
    if path is not None and not given:  # the scenario's [sweep] section
        section = ctypes.create_string_buffer(16)
        check(lib.rod_sweep_def_section(d, os.fsencode(path), section,
                                        ctypes.byref(err)), err)
    for key, values in (vary or {}).items():
        check(lib.rod_sweep_def_vary(d, _spec(key, values).encode(),
                                     b"vary", ctypes.byref(err)), err)
    if cases is not None:
        check(lib.rod_sweep_def_csv(d, os.fsencode(cases),
                                    ctypes.byref(err)), err)
    if samples:
        check(lib.rod_sweep_def_samples(d, int(samples), int(seed),
                                        b"samples", ctypes.byref(err)), err)
    check(lib.rod_sweep_def_build(d, base._p, ctypes.byref(err)), err)


def _drive(s, executor, static_only):
    """Hand the cases to executor as they are claimed, record each as it
    ends; at most twice the executor's workers in flight."""
    import concurrent.futures as cf
    width = max(2, 2 * (getattr(executor, "_max_workers", 0) or
                        os.cpu_count() or 1))
    flying, sc = {}, ctypes.create_string_buffer(SCENARIO_SIZE)
    try:
        while True:
            while len(flying) < width:
                c = lib.rod_sweep_next(s, sc)
                if c < 0:
                    break
                flying[executor.submit(run_case, sc.raw,
                                       static_only)] = c
            if not flying:
                return
            done, _ = cf.wait(flying, return_when=cf.FIRST_COMPLETED)
            for f in done:
                c = flying.pop(f)
                rec = CaseRecord.from_buffer_copy(f.result())
                if lib.rod_sweep_record(s, c, ctypes.byref(rec)) != 0:
                    raise Error("%s: cannot record case %d" %
                                (lib.rod_sweep_index(s).decode(), c))
    finally:  # an exception: the cases in flight stay "running" (run again)
        for f in flying:
            f.cancel()


def sweep(scenario, vary=None, out=None, executor=None, *, cases=None,
          samples=None, seed=0, static=False, retry_failed=False,
          threads=None, keys=None):
    """Run the cases of a sweep of scenario into the directory out, as
    `rodsim sweep SCENARIO -o OUT` does (the same case files and index),
    and return the index as NumPy arrays.

    scenario: an INI path (its [sweep] section used when neither vary,
    cases nor samples is given) or a rodsim.Scenario; keys: a dict of keys
    set on it first (as --set). vary: {"section.key": values}, values a
    list (numbers, text, vectors) or a range as text "START:STOP:COUNT",
    "...:COUNT:log" (or "START:STOP" with samples); cases: a CSV of cases;
    samples, seed: a Latin hypercube over the ranges without a count.
    executor: None runs the cases on threads of the library (threads, as
    --threads; default the cores it may run on); any concurrent.futures.Executor
    (ThreadPoolExecutor, ProcessPoolExecutor, an MPI or cluster pool) runs
    each case by rodsim._sweep.run_case, this process keeping the index.

    Returns a dict: keys (list), text (cases x keys), values (float, NaN
    where a text is no number), file, status (int8; status_names),
    message, warning, wall_time (s) and summary (time, tip_final, tip_min,
    tip_max, frequency, energy_drift, error_estimate), index (its path).
    A second call continues the sweep; a different sweep on out raises
    rodsim.Error, as does another process writing out."""
    if out is None:
        raise Error("sweep: out: the sweep's directory is needed", ROD_EINVAL)
    path = None
    if isinstance(scenario, Scenario):
        base = scenario.copy()
    else:
        path = os.fspath(scenario)
        base = Scenario(path)
    base.update(keys)
    d = lib.rod_sweep_def_new()
    s = ctypes.c_void_p()
    try:
        _define(d, base, path, vary, cases, samples, seed)
        o = SweepOptions(static_only=bool(static),
                         retry_failed=bool(retry_failed),
                         threads=int(threads or 0))
        err = RodError()
        with base._lock:
            check(lib.rod_sweep_open(ctypes.byref(s), os.fsencode(out),
                                     base._p, d, ctypes.byref(o),
                                     ctypes.byref(err)), err)
        if executor is None:
            rep = SweepReport()
            check(lib.rod_sweep_run(s, ctypes.byref(rep), ctypes.byref(err)),
                  err)
        else:
            _drive(s, executor, bool(static))
        return _index(s, d)
    finally:
        if s:
            lib.rod_sweep_close(s)
        lib.rod_sweep_def_free(d)


def status_counts(index):
    """{name: count} of a sweep's statuses."""
    counts = np.bincount(index["status"].astype(int),
                         minlength=len(STATUS_NAMES))
    return {n: int(c) for n, c in zip(STATUS_NAMES, counts)}


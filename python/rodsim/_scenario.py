"""rodsim.Scenario: every parameter of a run (docs/scenario.md) as the
library holds it, set and read key by key with the loader's checks."""
import collections.abc
import ctypes
import os
import threading

import numpy as np

from ._lib import Error, RodError, SCENARIO_SIZE, check, lib


def key_name(key):
    """"section.key" as given, or SECTION_KEY (time_dt, rod_length) for a
    section without a name, as Python keywords allow."""
    if "." in key:
        return key
    section, _, name = key.partition("_")
    return section + "." + name if name else key


def key_values(keys, kw):
    """The pairs (key, value) of a mapping and of keyword arguments."""
    if keys is not None and not isinstance(keys, collections.abc.Mapping):
        raise TypeError("keys: expected a dict of \"section.key\": value, "
                        "got %s" % type(keys).__name__)
    pairs = list((keys or {}).items()) + list(kw.items())
    return [(key_name(k), v) for k, v in pairs]


class Scenario:
    """Every parameter of a run (docs/scenario.md): the defaults, then an
    INI file or text, then keys set one by one with the loader's checks.
    Keys go as "section.key" (load.NAME.key for a named section) in a dict
    or as SECTION_KEY keywords for the sections without a name:

        sc = rodsim.Scenario("rod.ini", {"time.dt": 1e-3})
        sc = rodsim.Scenario("rod.ini", time_dt=1e-3, rod_length=0.3)
        sc = rodsim.Scenario(ini="[rod]\\nlength = 0.3\\n", name="mine")
        sc["rod.length"] = 0.3
        sc["rod.length"] -> 0.3
    """

    def __init__(self, path=None, keys=None, *, ini=None, name=None, **kw):
        self._lock = threading.RLock()
        if isinstance(path, collections.abc.Mapping) and keys is None:
            path, keys = None, path
        self._p = lib.rod_scenario_new()
        if not self._p:
            raise MemoryError("rodsim: out of memory")
        self.name = os.fsdecode(path) if path is not None else \
            name or "scenario"
        err = RodError()
        if path is not None:
            check(lib.rod_scenario_load(self._p, os.fsencode(path),
                                        ctypes.byref(err)), err)
        if ini is not None:
            check(lib.rod_scenario_load_string(
                self._p, ini.encode(), self.name.encode(),
                ctypes.byref(err)), err)
        self.update(keys, **kw)

    @classmethod
    def _copy_of(cls, src, name):
        """A Scenario holding a copy of the struct at src."""
        sc = cls.__new__(cls)
        sc._lock = threading.RLock()
        sc._p = lib.rod_scenario_new()
        if not sc._p:
            raise MemoryError("rodsim: out of memory")
        ctypes.memmove(sc._p, src, SCENARIO_SIZE)
        sc.name = name
        return sc

    def copy(self):
        """An independent copy."""
        with self._lock:
            return Scenario._copy_of(self._p, self.name)

    def __del__(self):
        if getattr(self, "_p", None):
            lib.rod_scenario_free(self._p)
            self._p = None

    def __repr__(self):
        return "<rodsim.Scenario %s>" % self.name

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
        section, name = self._split(key_name(key))
        err = RodError()
        with self._lock:
            check(lib.rod_scenario_set_key(self._p, section.encode(),
                                           name.encode(),
                                           self._text(value).encode(),
                                           ctypes.byref(err)), err)
        return self

    __setitem__ = set

    def update(self, keys=None, **kw):
        """Set every key of a dict ("section.key": value) and keyword
        (SECTION_KEY=value), in that order."""
        for key, value in key_values(keys, kw):
            self.set(key, value)
        return self

    def text(self, key):
        """The value of key as the INI text has it ("0 0 -9.81")."""
        section, name = self._split(key_name(key))
        buf = ctypes.create_string_buffer(1024)
        with self._lock:
            st = lib.rod_scenario_get_text(self._p, section.encode(),
                                           name.encode(), buf, len(buf))
        if st != 0:
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
        err = RodError()
        with self._lock:
            check(lib.rod_scenario_validate(self._p, ctypes.byref(err)), err)
        return self

    def ini(self):
        """The full effective scenario as INI text."""
        with self._lock:
            n = lib.rod_scenario_to_ini(self._p, None, 0)
            buf = ctypes.create_string_buffer(n + 1)
            lib.rod_scenario_to_ini(self._p, buf, n + 1)
        return buf.value.decode()

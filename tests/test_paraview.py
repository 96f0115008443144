"""The XDMF file beside a run's HDF5 file, read by ParaView (Debian's
paraview and python3-paraview, under xvfb-run from xvfb): runs of the
Kirchhoff rod (the weight release; cantilever_table with contact), of the
rigid-element chain (flexible_pendulum; rod_on_table with contact), a
static state of a tube, and a file cut as a killed run leaves it (its
datasets longer than its /samples, the XDMF made by `rodsim export
--xdmf`). One pvpython process (tests/paraview_check.py) checks every file
against its HDF5 datasets and renders the first with ParaView's Tube
filter to a PNG (kept where RODSIM_KEEP_PNG names a path). Skipped (77)
without pvpython, xvfb-run or python3-h5py."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("RODSIM_DATA", os.path.join(HERE, "..", "data"))
RODSIM = os.environ.get("RODSIM", os.path.join(HERE, "..", "build", "rodsim"))

try:
    import h5py
except ImportError as e:
    print("skipped:", e, "(Debian's python3-h5py)")
    sys.exit(77)
for tool in ("pvpython", "xvfb-run"):
    if not shutil.which(tool):
        print(f"skipped: no {tool} (Debian's paraview, python3-paraview and "
              "xvfb; scripts/install-deps installs them)")
        sys.exit(77)

# (file, scenario, backend, extra --set)
RUNS = [
    ("weight_release", "weight_release.ini", "kirchhoff", ["time.duration=0.2"]),
    ("table", "cantilever_table.ini", "kirchhoff", ["time.duration=0.1"]),
    ("pendulum", "flexible_pendulum.ini", "rfem", ["time.duration=0.1"]),
    ("table_chain", "rod_on_table.ini", "rfem", ["time.duration=0.05"]),
]


def rodsim(*args):
    subprocess.run([RODSIM, *args], check=True, stdout=subprocess.DEVNULL)


def cut(h5, xdmf, whole):
    """h5 as a kill during a flush leaves it: /samples = whole, every
    dataset along T two samples longer than it holds; then its XDMF."""
    with h5py.File(h5, "r+") as f:
        f["samples"][()] = whole
        def longer(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.maxshape and \
                    obj.maxshape[0] is None:
                obj.resize(obj.shape[0] + 2, axis=0)
        f.visititems(longer)
    rodsim("export", h5, "--xdmf", "-o", xdmf)


def main():
    with tempfile.TemporaryDirectory(prefix="rodsim_paraview_") as tmp:
        pairs = []
        for name, scenario, backend, sets in RUNS:
            h5 = os.path.join(tmp, name + ".h5")
            args = ["run", os.path.join(DATA, "scenarios", scenario), "-o", h5,
                    "-q", "--set", "solver.backend=" + backend]
            for s in sets:
                args += ["--set", s]
            rodsim(*args)
            pairs.append((h5[:-3] + ".xdmf", h5))
        tube = os.path.join(tmp, "tube.h5")
        rodsim("static", os.path.join(DATA, "scenarios", "first_rod.ini"),
               "-o", tube, "--set", "rod.inner_diameter=0.5e-3")
        pairs.append((tube[:-3] + ".xdmf", tube))
        killed = os.path.join(tmp, "killed.h5")
        shutil.copy(pairs[0][1], killed)
        cut(killed, os.path.join(tmp, "killed.xdmf"), 37)
        pairs.append((os.path.join(tmp, "killed.xdmf"), killed))
        png = os.path.join(tmp, "rod.png")
        start = time.monotonic()
        p = subprocess.run(
            ["xvfb-run", "-a", "-s", "-noreset -screen 0 1280x1024x24",
             "pvpython", os.path.join(HERE, "paraview_check.py"), png,
             *[f"{x}:{h}" for x, h in pairs]],
            capture_output=True, text=True, cwd=tmp, timeout=300)
        print(p.stdout, end="")
        print(f"pvpython: {time.monotonic() - start:.1f} s")
        if p.returncode != 0:
            print(p.stderr[-3000:])
        keep = os.environ.get("RODSIM_KEEP_PNG")
        if keep and os.path.exists(png):
            shutil.copy(png, keep)
        return 0 if p.returncode == 0 and "0 failed" in p.stdout else 1


if __name__ == "__main__":
    sys.exit(main())

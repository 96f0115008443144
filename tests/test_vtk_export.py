"""`rodsim export RUN.h5 --vtk` read back by VTK's own XML reader (VTK's
Python modules: Debian's python3-vtk9, or python3-paraview, which ships
them and conflicts with python3-vtk9 in Debian 12): runs of the Kirchhoff rod with contact (cantilever_table)
and of the rigid-element chain (flexible_pendulum), a static state of a
tube, and a file cut as a killed run leaves it (its datasets longer than
its /samples). The collection (.pvd) names one PolyData file a whole
sample at the file's times; in each, one polyline whose points equal
/rod/position, point data equal to the per-point datasets, the radius of
the scenario, and field data equal to the per-sample datasets (TimeValue,
the tip, the energies); VTK's tube filter on it lies the rod's radius from
its centreline. Skipped (77) without VTK's Python modules or
python3-h5py."""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

try:
    import h5py
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkFiltersCore import vtkTubeFilter
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
except ImportError as e:
    print("skipped:", e, "(Debian's python3-vtk9 or python3-paraview, and "
          "python3-h5py; scripts/install-deps installs them)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("RODSIM_DATA", os.path.join(HERE, "..", "data"))
RODSIM = os.environ.get("RODSIM", os.path.join(HERE, "..", "build", "rodsim"))
failures = 0


def check(ok, what):
    global failures
    failures += not ok
    print(("ok      " if ok else "FAILED  ") + what)


def rodsim(*args):
    return subprocess.run([RODSIM, *args], check=True, capture_output=True,
                          text=True).stdout


def arrays(data):
    """name -> numpy array of a vtkFieldData or vtkPointData."""
    return {data.GetArrayName(i): vtk_to_numpy(data.GetArray(i))
            for i in range(data.GetNumberOfArrays())}


def check_export(h5, folder):
    name = os.path.basename(h5)[:-3]
    out = rodsim("export", h5, "--vtk", "-o", folder)
    pvd = ET.parse(os.path.join(folder, name + ".pvd")).getroot()
    sets = pvd.findall("./Collection/DataSet")
    with h5py.File(h5, "r") as f:
        n = int(f["samples"][()])
        times = np.array([float(d.get("timestep")) for d in sets])
        check(np.array_equal(times, f["time"][:n]) and
              len(os.listdir(folder)) == n + 1,
              f"{name}: {len(sets)} samples in the collection at the file's "
              f"times, {n} whole; {out.strip()}")
        per_point = {"rod/force": "force", "rod/moment": "moment",
                     "rod/velocity": "velocity",
                     "rod/orientation": "orientation",
                     "contact/force": "contact_force",
                     "contact/active": "contact_active"}
        per_sample = {"tip/position": "tip_position",
                      "energy/kinetic": "energy_kinetic",
                      "energy/elastic": "energy_elastic",
                      "energy/gravity": "energy_gravity",
                      "contact/gap_min": "contact_gap_min",
                      "energy/dissipated_contact":
                          "energy_dissipated_contact"}
        for i in sorted({0, n // 2, n - 1}):
            reader = vtkXMLPolyDataReader()
            reader.SetFileName(os.path.join(folder, sets[i].get("file")))
            reader.Update()
            poly = reader.GetOutput()
            points = vtk_to_numpy(poly.GetPoints().GetData())
            line = poly.GetNumberOfCells() == 1 and poly.GetCellType(0) == 4
            check(line and np.array_equal(points, f["rod/position"][i]),
                  f"{name}: sample {i}: one polyline, its {len(points)} "
                  "points equal /rod/position")
            pd, fd = arrays(poly.GetPointData()), arrays(poly.GetFieldData())
            want = [k for k in per_point if k in f]
            same = [k for k in want if
                    np.array_equal(pd[per_point[k]], f[k][i])]
            check(same == want, f"{name}: sample {i}: point data equal "
                  + ", ".join(want))
            want = [k for k in per_sample if k in f]
            same = [k for k in want if np.array_equal(
                fd[per_sample[k]].reshape(-1), np.ravel(f[k][i]))]
            check(same == want and fd["TimeValue"][0] == f["time"][i],
                  f"{name}: sample {i}: field data equal TimeValue, "
                  + ", ".join(want))
            check(np.array_equal(pd["s"], f["rod/s"][:]),
                  f"{name}: sample {i}: s = /rod/s, radius "
                  f"{pd['radius'][0]:g} m"
                  + (f", inner radius {pd['inner_radius'][0]:g} m"
                     if "inner_radius" in pd else ""))
        return poly, pd["radius"]


def main():
    with tempfile.TemporaryDirectory(prefix="rodsim_vtk_") as tmp:
        runs = [("table", "cantilever_table.ini", "kirchhoff", "0.1"),
                ("pendulum", "flexible_pendulum.ini", "rfem", "0.1")]
        files = []
        for name, scenario, backend, duration in runs:
            h5 = os.path.join(tmp, name + ".h5")
            rodsim("run", os.path.join(DATA, "scenarios", scenario), "-o", h5,
                   "-q", "--set", "solver.backend=" + backend, "--set",
                   "time.duration=" + duration, "--set", "output.xdmf=false")
            files.append(h5)
        tube = os.path.join(tmp, "tube.h5")
        rodsim("static", os.path.join(DATA, "scenarios", "first_rod.ini"),
               "-o", tube, "--set", "rod.inner_diameter=0.5e-3")
        files.append(tube)
        killed = os.path.join(tmp, "killed.h5")
        shutil.copy(files[0], killed)
        with h5py.File(killed, "r+") as f:
            f["samples"][()] = 23
            for ds in ("rod/position", "rod/force", "time", "contact/force"):
                f[ds].resize(f[ds].shape[0] + 2, axis=0)
        files.append(killed)
        for h5 in files:
            poly, radius = check_export(h5, os.path.join(tmp, "vtk_" +
                                                         os.path.basename(h5)))
            if h5 == files[0]:
                tube = vtkTubeFilter()
                tube.SetInputData(poly)
                tube.SetVaryRadiusToVaryRadiusByAbsoluteScalar()
                tube.SetNumberOfSides(16)
                poly.GetPointData().SetActiveScalars("radius")
                tube.Update()
                q = vtk_to_numpy(tube.GetOutput().GetPoints().GetData())
                c = vtk_to_numpy(poly.GetPoints().GetData())
                d = np.linalg.norm(q.reshape(len(c), -1, 3) - c[:, None], axis=2)
                err = np.abs(d - radius[:, None]).max()
                check(err <= 1e-9 * radius.max(),
                      f"tube filter: {q.shape[0]} points the radius from the "
                      f"centreline (largest difference {err:.2g} m)")
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

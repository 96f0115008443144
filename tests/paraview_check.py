"""Run by ParaView's pvpython (tests/test_paraview.py starts it under
xvfb-run): reads each XDMF file named on the command line with ParaView's
Xdmf reader and checks it against its HDF5 file (h5py): the times are the
file's whole samples; at the first, a middle and the last sample the
polyline's points equal /rod/position and every point array its dataset,
bit for bit; the radius is the scenario's. Then ParaView's Tube filter,
after Extract Surface, radius by the point array `radius`, on the
first file at its middle sample:
every point of the tube lies the rod's radius from the centreline; the
tube is rendered to a PNG (the last argument), which must show the rod.

usage: pvpython paraview_check.py PNG RUN.xdmf:RUN.h5 ...
Prints one line a check and exits 1 on any failure."""
import os
import sys

import h5py
import numpy as np
from paraview import servermanager as sm
from paraview import simple as pv
from vtk.numpy_interface import dataset_adapter as dsa

failures = 0


def check(ok, what):
    global failures
    failures += not ok
    print(("ok      " if ok else "FAILED  ") + what)


def read_at(reader, t):
    """The reader's polyline at time t, wrapped for numpy."""
    reader.UpdatePipeline(t)
    data = sm.Fetch(reader)
    if data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    return data, dsa.WrapDataObject(data)


def radius_of(f):
    """rod.diameter / 2 and rod.inner_diameter / 2 of the file's scenario."""
    d, inner, section = 1.42e-3, 0.0, ""
    for line in f.attrs["scenario"].splitlines():
        line = line.split(";")[0].strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif section == "rod" and "=" in line:
            key, value = (x.strip() for x in line.split("=", 1))
            if key == "diameter":
                d = float(value)
            elif key == "inner_diameter":
                inner = float(value)
    return d / 2, inner / 2


def check_file(xdmf, h5):
    name = xdmf.rsplit("/", 1)[-1]
    reader = pv.XDMFReader(FileNames=[xdmf])
    with h5py.File(h5, "r") as f:
        n = int(f["samples"][()])
        t = f["time"][:n]
        times = np.array(reader.TimestepValues, dtype=float).reshape(-1)
        check(times.shape == t.shape and np.array_equal(times, t),
              f"{name}: {times.size} times, the file's {n} whole samples")
        radius, inner = radius_of(f)
        arrays = {"force": "rod/force", "moment": "rod/moment",
                  "velocity": "rod/velocity", "orientation": "rod/orientation",
                  "contact_force": "contact/force",
                  "contact_active": "contact/active"}
        for i in sorted({0, n // 2, n - 1}):
            data, w = read_at(reader, t[i])
            p = f["rod/position"][i]
            line = data.GetNumberOfCells() == 1 and data.GetCellType(0) == 4
            check(line and np.array_equal(np.asarray(w.Points), p),
                  f"{name}: t = {t[i]:.6g} s: one polyline, its {len(p)} "
                  "points equal /rod/position")
            same = [k for k, path in arrays.items() if path in f and
                    np.array_equal(np.asarray(w.PointData[k]), f[path][i])]
            want = [k for k, path in arrays.items() if path in f]
            check(same == want, f"{name}: t = {t[i]:.6g} s: point data "
                  f"{', '.join(want)} equal the datasets")
            ok = (np.all(np.asarray(w.PointData["radius"]) == radius) and
                  np.array_equal(np.asarray(w.PointData["s"]), f["rod/s"][:]))
            if inner > 0:
                ok = ok and np.all(np.asarray(w.PointData["inner_radius"])
                                   == inner)
            check(ok, f"{name}: t = {t[i]:.6g} s: radius {radius:g} m"
                  + (f", inner radius {inner:g} m" if inner > 0 else "")
                  + ", s = /rod/s")
    return reader


def tube_and_picture(reader, h5, png):
    with h5py.File(h5, "r") as f:
        n = int(f["samples"][()])
        t = f["time"][n // 2]
        radius, _ = radius_of(f)
    # the reader gives an unstructured grid; Tube takes polygonal data
    surface = pv.ExtractSurface(Input=reader)
    tube = pv.Tube(Input=surface)
    tube.Scalars = ["POINTS", "radius"]
    tube.VaryRadius = "By Absolute Scalar"
    tube.NumberofSides = 24
    tube.Capping = 0
    tube.UpdatePipeline(t)
    _, centre = read_at(reader, t)
    _, w = read_at(tube, t)
    c = np.asarray(centre.Points)
    q = np.asarray(w.Points).reshape(len(c), -1, 3)  # 24 a centreline point
    dist = np.linalg.norm(q - c[:, None, :], axis=2)
    err = np.abs(dist - radius).max()
    check(q.shape[1] == 24 and err <= 1e-9 * radius,
          f"tube: {q.shape[0] * q.shape[1]} points {radius:g} m from the "
          f"centreline (largest difference {err:.2g} m)")

    view = pv.CreateRenderView()
    view.ViewSize = [1200, 480]
    view.OrientationAxesVisibility = 0
    view.Background = [1, 1, 1]
    if hasattr(view, "UseColorPaletteForBackground"):
        view.UseColorPaletteForBackground = 0
    view.ViewTime = t
    shown = pv.Show(tube, view)
    pv.ColorBy(shown, ("POINTS", "velocity", "Magnitude"))
    shown.RescaleTransferFunctionToDataRange(True)
    # looking along +y at the x-z plane, the rod's extent filling the
    # picture: ppm pixels a metre
    width, height = 1200, 480
    lo, hi = c.min(axis=0) - 4 * radius, c.max(axis=0) + 4 * radius
    middle = (lo + hi) / 2
    scale = 1.05 * max((hi[2] - lo[2]) / 2, (hi[0] - lo[0]) / 2 * height / width)
    ppm = height / (2 * scale)
    pv.Render(view)  # the first render resets the camera: set it after
    view.CameraPosition = [middle[0], middle[1] - 1, middle[2]]
    view.CameraFocalPoint = list(middle)
    view.CameraViewUp = [0, 0, 1]
    view.CameraParallelProjection = 1
    view.CameraParallelScale = scale
    pv.Render(view)
    pv.SaveScreenshot(png, view, ImageResolution=[width, height])
    from vtk import vtkPNGReader
    r = vtkPNGReader()
    r.SetFileName(png)
    r.Update()
    img = dsa.WrapDataObject(r.GetOutput()).PointData[0]
    rgb = np.asarray(img)[:, :3].astype(int)
    rod = (np.abs(rgb - 255).sum(axis=1) > 60).sum()
    # the tube's shadow: its length in the picture times its diameter
    length = np.linalg.norm(np.diff(c[:, [0, 2]], axis=0), axis=1).sum()
    area = length * ppm * 2 * radius * ppm
    check(0.5 < rod / area < 2,
          f"picture: {png.rsplit('/', 1)[-1]}, {rod} pixels of the rod, "
          f"{area:.0f} for its length {length * ppm:.0f} px and diameter "
          f"{2 * radius * ppm:.1f} px")


def main():
    png, pairs = sys.argv[1], [a.split(":", 1) for a in sys.argv[2:]]
    first = None
    for xdmf, h5 in pairs:
        reader = check_file(xdmf, h5)
        first = first or (reader, h5)
    tube_and_picture(first[0], first[1], png)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # ParaView's teardown of the X11 render window may abort on Xvfb
    # (GLXBadContext) after every check has run: leave without it
    os._exit(code)

#!/usr/bin/python3
"""The Jupyter notebooks of examples/ run from start to end (nbclient, a
python3 kernel over the build tree's module, `rodsim` from $RODSIM), each
in a scratch copy of examples/ beside a link to data/, and are kept in the
repository with their outputs stripped. Skipped (77) without Debian's
python3-nbclient, python3-nbformat and python3-ipykernel."""
import glob
import os
import shutil
import sys
import tempfile
import time

try:
    import nbclient
    import nbformat
    import ipykernel  # noqa: F401
except ImportError as e:
    print("skipped:", e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")
DATA = os.environ.get("RODSIM_DATA", os.path.join(HERE, "..", "data"))


def stripped(nb):
    """Why nb is not stripped of its outputs, or ''."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and (cell.outputs or
                                         cell.execution_count is not None):
            return "cell %d holds outputs (strip them before committing)" % i
    return ""


def run(path, scratch):
    """Execute the notebook at path in scratch/examples: '' or why not."""
    nb = nbformat.read(path, as_version=4)
    why = stripped(nb)
    if why:
        return why
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3",
        resources={"metadata": {"path": os.path.join(scratch, "examples")}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        return str(e)
    return ""


def main():
    # the kernel: the module wherever it was found here, quiet about
    # debugging frozen modules
    os.environ["PYTHONPATH"] = os.pathsep.join(
        os.path.abspath(p) for p in
        os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    notebooks = sorted(glob.glob(os.path.join(EXAMPLES, "*.ipynb")))
    failed = 0
    for path in notebooks:
        with tempfile.TemporaryDirectory(prefix="rodsim_nb_") as scratch:
            os.mkdir(os.path.join(scratch, "examples"))
            os.symlink(os.path.abspath(DATA), os.path.join(scratch, "data"))
            t0 = time.monotonic()
            why = run(path, scratch)
            wall = time.monotonic() - t0
            shutil.rmtree(os.path.join(scratch, "examples"))
        name = os.path.basename(path)
        print("%s: %s (%.1f s)" % (name, "FAILED\n" + why if why else "ok",
                                   wall))
        failed += bool(why)
    print("%d passed, %d failed" % (len(notebooks) - failed, failed))
    return 1 if failed or not notebooks else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The Jupyter notebooks of examples/ run from start to end (nbclient, a
python3 kernel over the build tree's module, `rodsim` from $RODSIM), each
in a scratch copy of examples/ beside a link to data/, and are kept in the
repository with their outputs stripped; and a kernel's interrupt (what
Jupyter's stop button sends) stops a Sim.run of 3600 s with
KeyboardInterrupt, its file marked interrupted. Skipped (77) without
Debian's python3-nbclient, python3-nbformat and python3-ipykernel."""
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


def kernel_interrupt(scratch):
    """A kernel running Sim.run(3600) to a file, interrupted 0.5 s after
    it began (a run of 60 s ended in under 0.5 s on an idle machine once
    output left the solver's thread): '' or why it failed."""
    from jupyter_client.manager import start_new_kernel
    km, kc = start_new_kernel(kernel_name="python3", cwd=scratch)
    try:
        kc.execute_interactive(
            "import rodsim\n"
            "sim = rodsim.Sim(ini='[space]\\nnodes = 20\\n', output='o.h5')",
            timeout=60)
        # stop_on_error=False: else the kernel aborts the requests that
        # reach it just after the interrupted cell (ipykernel's
        # stop_on_error), the check below among them, as timing has it
        msg = kc.execute("sim.run(3600.0)", stop_on_error=False)
        while True:  # the kernel takes the cell
            m = kc.get_iopub_msg(timeout=60)
            if m["parent_header"].get("msg_id") == msg and \
                    m["msg_type"] == "status" and \
                    m["content"]["execution_state"] == "busy":
                break
        time.sleep(0.5)
        t0 = time.monotonic()
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=60)["content"]
        wall = time.monotonic() - t0
        if reply.get("ename") != "KeyboardInterrupt":
            return "the run ended with %r, not KeyboardInterrupt" % (
                reply.get("ename") or reply["status"],)
        out = []
        kc.execute_interactive(
            "print(rodsim.load('o.h5')['attrs']['status'], sim.time < 3600)",
            output_hook=lambda m: out.append(m["content"].get("text", "")),
            timeout=60)
        said = "".join(out).strip()
        print("kernel interrupt: KeyboardInterrupt %.2f s after it, file "
              "status and stopped early: %s" % (wall, said))
        return "" if said == "interrupted True" else "the file: " + said
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


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
    with tempfile.TemporaryDirectory(prefix="rodsim_nb_") as scratch:
        why = kernel_interrupt(scratch)
    if why:
        print("kernel interrupt: FAILED\n" + why)
    failed += bool(why)
    print("%d passed, %d failed" % (len(notebooks) + 1 - failed, failed))
    return 1 if failed or not notebooks else 0


if __name__ == "__main__":
    sys.exit(main())

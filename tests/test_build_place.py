"""The tests do not depend on where the build folder is: a script that runs
rodsim itself (validation/plot_calibration.py) finds the build's rodsim
from a scratch folder whose build/ and validation/ are links, as
scripts/readme-examples makes them, when the checkout holding the script
has no build/ of its own (a build folder outside the source tree)."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RODSIM = os.path.realpath(os.environ["RODSIM"])


def main():
    with tempfile.TemporaryDirectory(prefix="rodsim_place_") as tmp:
        checkout = os.path.join(tmp, "checkout")  # no build/ in it
        os.makedirs(os.path.join(checkout, "validation"))
        shutil.copy(os.path.join(ROOT, "validation", "plot_calibration.py"),
                    os.path.join(checkout, "validation"))
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        os.symlink(os.path.dirname(RODSIM), os.path.join(work, "build"))
        os.symlink(os.path.join(checkout, "validation"),
                   os.path.join(work, "validation"))
        env = {k: v for k, v in os.environ.items() if k != "RODSIM"}
        env["PATH"] = "/usr/bin:/bin"  # no rodsim on it
        code = ("import sys; sys.argv = ['validation/plot_calibration.py']; "
                "sys.path.insert(0, 'validation'); "
                "import plot_calibration as p; print(p.default_rodsim())")
        out = subprocess.run(["/usr/bin/python3", "-c", code], cwd=work,
                             env=env, stdout=subprocess.PIPE, text=True,
                             check=True).stdout.strip()
        if os.path.realpath(os.path.join(work, out)) != RODSIM:
            sys.exit(f"plot_calibration.py found {out!r}, not the build's "
                     f"{RODSIM}")
    print("plot_calibration.py finds the build's rodsim")


if __name__ == "__main__":
    main()

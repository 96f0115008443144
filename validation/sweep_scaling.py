#!/usr/bin/python3
"""What `rodsim sweep` costs and how it scales (docs/scale.md): measured,
not asserted by the test suite.

1. Speed-up: 32 weight-release cases (weight_release.ini, tip.mass from 5
   to 36 g) by --threads 1 and 2, and by mpirun -n 1 and 2: the wall time
   of the whole command, best of --repeat, and the ratio at 2 to at 1;
   the sweep's own time (its summary line's: from the index opened to the
   last case recorded, without the process's start and MPI's), and what
   mpirun -n 1 and 2 of `rodsim --version` take (the launch alone:
   mpirun, MPI_Init, MPI_Finalize), which the whole command pays too.
2. Overhead per case beyond its own run (scheduling, reading the case's
   summary back, recording it): the sweep's wall time on one thread minus
   the sum of its cases' own wall times (the index's /wall_time: set-up to
   file closed), per case; by --threads 1 and by mpirun -n 2 (where rank
   0's second thread runs cases while its main thread hands them out).
3. Many short cases: --many cases of the weight release cut to
   time.duration = --many-duration (a few steps), by --threads 2: the
   index's size, that it is made once at its final size (size and inode
   the same at the start and at the end), and the bytes written into it
   (strace's pwrite64 calls on its descriptor) per case against its size.
4. Weak scaling by oversubscription: 1 to 64 ranks under mpirun
   --oversubscribe, each with --per-rank cases of 0.5 s of the weight
   release (work per rank fixed): the wall time against the one-rank time
   and against what 2 cores can do at best (ranks / 2 times it).

The machine's load average is printed beside each figure: on a busy
machine the ratios say less than on an idle one.

Usage: sweep_scaling.py [--rodsim build/rodsim] [--out DIR] [--repeat N]
       [--many N] [--many-duration S] [--per-rank N] [--max-ranks N]
Writes DIR/sweep_scaling.md, .csv and .png (default validation/out).
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

SCEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                    "scenarios", "weight_release.ini")
MASSES = "tip.mass=0.005:0.036:32"


def mpirun(n):
    cmd = ["mpirun", "-n", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def sweep(rodsim, out, args, prefix=(), strace=None, cpu=None):
    """Run a sweep into out (removed first); its wall time in s (the whole
    command, process start included) and its summary line; the CPU time
    (user + system) of all its processes appended to cpu."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = list(prefix) + [rodsim, "sweep", SCEN, "-o", out] + list(args)
    if strace:
        cmd = ["strace", "-f", "-qq", "-e", "trace=openat,pwrite64,write",
               "-o", strace] + cmd
    c0, t0 = children_cpu(), time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if cpu is not None:
        cpu.append(children_cpu() - c0)
    if p.returncode != 0:
        sys.exit("sweep_scaling.py: %s: exit %d: %s" %
                 (" ".join(cmd), p.returncode, p.stderr.strip()))
    return wall, p.stdout.strip()


def own_time(line):
    """The sweep's own wall time from its summary line ('run now in T s')."""
    m = re.search(r"run now in ([0-9.e+-]+) s", line)
    return float(m.group(1))


def index_walls(out):
    with h5py.File(os.path.join(out, "index.h5")) as f:
        assert (f["status"][:] == 2).all(), "a case not complete"
        return f["wall_time"][:]


def load():
    return os.getloadavg()[0]


def speedup(a, tmp, rows):
    """Best of a.repeat wall times, with the CPU time of that run: on a
    machine others load, the share of the cores a run gets (CPU / wall)
    decides its wall time as much as the sweep does."""
    best = {}
    runs = [("threads", 1, [], ["--threads", "1"]),
            ("threads", 2, [], ["--threads", "2"]),
            ("mpirun", 1, mpirun(1), []),
            ("mpirun", 2, mpirun(2), [])]
    launch = {}
    for _ in range(a.repeat):
        for how, n, prefix, extra in runs:
            cpu = []
            w, line = sweep(a.rodsim, os.path.join(tmp, "s"),
                            ["--vary", MASSES] + extra, prefix, cpu=cpu)
            key = (how, n)
            if key not in best or w < best[key][0]:
                best[key] = (w, cpu[0], load(), own_time(line))
            if how == "mpirun":
                # the launch alone: mpirun, MPI_Init and MPI_Finalize of
                # rodsim doing nothing else
                t0 = time.perf_counter()
                subprocess.run(prefix + [a.rodsim, "--version"], check=True,
                               capture_output=True)
                t = time.perf_counter() - t0
                launch[n] = min(launch.get(n, t), t)
    out = []
    for how in ("threads", "mpirun"):
        t1, c1, l1, o1 = best[(how, 1)]
        t2, c2, l2, o2 = best[(how, 2)]
        rows.append(("speedup", how, 2, 32, t2, t2 / t1, l2))
        rows.append(("speedup", how, 1, 32, t1, 1.0, l1))
        out.append("| %s | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %.2f | "
                   "%.2f | %.2f | %.2f | %s | %.1f |" %
                   ("`--threads N`" if how == "threads" else "`mpirun -n N`",
                    t1, t2, t2 / t1, o1, o2, o2 / o1, c1, c2, c1 / t1,
                    c2 / t2, "%.2f, %.2f" % (launch[1], launch[2])
                    if how == "mpirun" else "",
                    max(l1, l2)))
    return out


def overhead(a, tmp, rows):
    out = []
    for how, prefix, extra, cases in (
            ("threads 1", [], ["--threads", "1"], a.overhead_cases),
            ("mpirun -n 2", mpirun(2), [], a.overhead_cases)):
        d = os.path.join(tmp, "o")
        args = ["--vary", "tip.mass=0.005:0.036:%d" % cases, "--set",
                "time.duration=%g" % a.many_duration] + extra
        _, line = sweep(a.rodsim, d, args, prefix)
        T = own_time(line)
        walls = index_walls(d)
        threads = 1 if how == "threads 1" else 2  # cores running cases
        per = (threads * T - walls.sum()) / cases
        rows.append(("overhead", how, threads, cases, T, per, load()))
        out.append("| %s | %d | %.3f | %.2f | %.2f | %.1f |" %
                   (how, cases, T, 1e3 * walls.mean(), 1e3 * per, load()))
    return out


def index_writes(trace, index):
    """Bytes and calls of pwrite64 into the index by any process of the
    trace: {"made": into index.part (its creation), "records": into index
    (opened under its final name, after the rename)}."""
    fds, total = {}, {"made": [0, 0], "records": [0, 0]}
    op = re.compile(r'^(\d+)\s+openat\(.*"([^"]+)".*\)\s+=\s+(\d+)')
    pw = re.compile(r'^(\d+)\s+pwrite64\((\d+),.*\)\s+=\s+(\d+)')
    with open(trace) as f:
        for line in f:
            m = op.match(line)
            if m:
                pid, path, fd = m.groups()
                name = os.path.basename(path)
                fds[(pid, fd)] = ("made" if name == index + ".part" else
                                  "records" if name == index else None)
                continue
            m = pw.match(line)
            if m and fds.get((m.group(1), m.group(2))):
                t = total[fds[(m.group(1), m.group(2))]]
                t[0] += int(m.group(3))
                t[1] += 1
    return total


def many(a, tmp, rows):
    d = os.path.join(tmp, "m")
    args = ["--vary", "tip.mass=0.005:0.036:%d" % a.many, "--set",
            "time.duration=%g" % a.many_duration, "--threads", "2"]
    trace = os.path.join(tmp, "trace.txt")
    # the index's size and inode as soon as it is there, then at the end
    shutil.rmtree(d, ignore_errors=True)
    cmd = ["strace", "-f", "-qq", "-e", "trace=openat,pwrite64", "-o",
           trace, a.rodsim, "sweep", SCEN, "-o", d] + args
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    path = os.path.join(d, "index.h5")
    first = None
    while first is None and p.poll() is None:
        try:
            st = os.stat(path)
            first = (st.st_size, st.st_ino)
        except FileNotFoundError:
            time.sleep(0.01)
    outs, errs = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("sweep_scaling.py: many: exit %d: %s" % (p.returncode, errs))
    st = os.stat(path)
    last = (st.st_size, st.st_ino)
    walls = index_walls(d)
    w = index_writes(trace, "index.h5")
    rows.append(("many", "threads 2", 2, a.many, wall, st.st_size, load()))
    return ["| %d | %.2f | %.1f | %.2f | %s | %.2f | %.0f | %.1f | %.2f | "
            "%.1f |" %
            (a.many, 1e3 * walls.mean(), wall, st.st_size / 1e6,
             "yes" if first == last else "no (%s -> %s)" % (first, last),
             w["made"][0] / 1e6, w["records"][0] / a.many,
             w["records"][1] / a.many, w["records"][0] / st.st_size,
             load())]


def weak(a, tmp, rows):
    out, t1 = [], None
    n = 1
    while n <= a.max_ranks:
        cases = a.per_rank * n
        args = ["--vary", "tip.mass=0.005:0.036:%d" % cases, "--set",
                "time.duration=0.5"]
        w, line = sweep(a.rodsim, os.path.join(tmp, "w"), args, mpirun(n))
        t1 = t1 or w
        best = t1 * max(1.0, n / 2.0)
        rows.append(("weak", "mpirun", n, cases, w, w / t1, load()))
        out.append("| %d | %d | %.2f | %.2f | %.2f | %.2f | %.1f |" %
                   (n, cases, w, own_time(line), w / t1, best / w, load()))
        n *= 2
    return out


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    w = [r for r in rows if r[0] == "weak"]
    n = np.array([r[2] for r in w], float)
    t = np.array([r[4] for r in w])
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(n, t, "o-", label="measured (mpirun --oversubscribe)")
    ax.loglog(n, t[0] * np.maximum(1, n / 2), "k--",
              label="2 cores' best: t1 max(1, n/2)")
    ax.loglog(n, t[0] * np.ones_like(n), "k:", label="ideal weak scaling")
    ax.set_xlabel("ranks (cases per rank fixed)")
    ax.set_ylabel("wall time of the sweep (s)")
    ax.set_title("rodsim sweep, weak scaling on 2 cores")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rodsim", default=os.environ.get("RODSIM",
                                                      "build/rodsim"))
    p.add_argument("--out", default="validation/out")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--overhead-cases", type=int, default=400)
    p.add_argument("--many", type=int, default=10000)
    p.add_argument("--many-duration", type=float, default=0.01)
    p.add_argument("--per-rank", type=int, default=4)
    p.add_argument("--max-ranks", type=int, default=64)
    p.add_argument("--only", default="speedup,overhead,many,weak")
    a = p.parse_args()
    a.rodsim = os.path.abspath(a.rodsim)
    if not os.access(a.rodsim, os.X_OK):
        sys.exit("sweep_scaling.py: %s: no rodsim there (--rodsim)" %
                 a.rodsim)
    if shutil.which("mpirun") is None:
        sys.exit("sweep_scaling.py: mpirun not found (OpenMPI)")
    os.makedirs(a.out, exist_ok=True)
    rows, md = [], ["# rodsim sweep: cost and scaling", "",
                    "%s, %d cores, %s" % (os.uname().nodename,
                                          os.cpu_count(),
                                          time.strftime("%Y-%m-%d %H:%M")),
                    ""]
    only = a.only.split(",")
    with tempfile.TemporaryDirectory(prefix="sweep_scaling") as tmp:
        if "speedup" in only:
            mark = len(md)
            md += ["## 32 weight-release cases, best of %d" % a.repeat, "",
                   "| how | wall 1 (s) | wall 2 (s) | 2 / 1 | sweep's own "
                   "1 (s) | own 2 (s) | own 2 / 1 | CPU 1 (s) | CPU 2 (s) | "
                   "cores used at 1 | at 2 | launch alone 1, 2 (s) | load |",
                   "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + speedup(a, tmp, rows) + [""]
            print("\n".join(md[mark:]), flush=True)
        if "overhead" in only:
            mark = len(md)
            md += ["## Overhead per case (time.duration = %g s)" %
                   a.many_duration, "",
                   "| how | cases | sweep (s) | case's own (ms) | "
                   "overhead a case (ms) | load |",
                   "|---|---|---|---|---|---|"] + overhead(a, tmp, rows)
            md.append("")
            print("\n".join(md[mark:]), flush=True)
        if "many" in only:
            mark = len(md)
            md += (["## Many short cases (time.duration = %g s, --threads 2,"
                   " under strace)" % a.many_duration, "",
                   "| cases | case's own (ms) | sweep (s) | index (MB) | "
                   "made once at its size | written making it (MB) | "
                   "bytes written a case | writes a case | "
                   "records written / size | load |",
                   "|---|---|---|---|---|---|---|---|---|---|"] +
                   many(a, tmp, rows))
            md.append("")
            print("\n".join(md[mark:]), flush=True)
        if "weak" in only:
            mark = len(md)
            md += ["## Weak scaling, %d cases of 0.5 s a rank" % a.per_rank,
                   "",
                   "| ranks | cases | wall (s) | sweep's own (s) | "
                   "t / t1 | 2 cores' best / t | load |",
                   "|---|---|---|---|---|---|---|"] + weak(a, tmp, rows)
            md.append("")
            print("\n".join(md[mark:]), flush=True)
    with open(os.path.join(a.out, "sweep_scaling.csv"), "w") as f:
        f.write("part,how,ranks,cases,wall_s,figure,load\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")
    with open(os.path.join(a.out, "sweep_scaling.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    if any(r[0] == "weak" for r in rows):
        plot(rows, os.path.join(a.out, "sweep_scaling.png"))


if __name__ == "__main__":
    main()

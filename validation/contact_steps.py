"""The contact_steps section of the validation report (validation/report.py
--only contact_steps): the Kirchhoff rod's time steps with contact
(docs/contact.md, "Time steps of the Kirchhoff / Cosserat rod") on
cantilever_table.ini. Where the mechanical energy goes, by the kind of
step (an impact, the restart after it, a release, persistent contact, free
flight) against dt, beside the chain's loss against its elements; and the
first rebound's apex with restitution 0.5 against the chain's.
"""
import matplotlib.pyplot as plt
import numpy as np

CANT = "data/scenarios/cantilever_table.ini"
ROD = ["solver.backend=kirchhoff"]
NODRAG = ["rod.drag=0", "time.duration=0.3"]
TABLE_Z = -0.05 + 0.71e-3  # m: the tip's axis on the table


def energy(run):
    return (run["/energy/kinetic"] + run["/energy/elastic"]
            + run["/energy/gravity"])


def classes(run):
    """The energy lost (J), the contacts' work in it and the steps by the
    kind of step: an impact (a node pressed that was not; the step's
    scheme), the restart after it (backward Euler), a release (nodes leave,
    none arrives; BDF2), persistent contact (the same nodes pressed; BDF2),
    free (BDF-alpha)."""
    act = run["/contact/active"].astype(bool)
    dE = np.diff(energy(run))
    dD = np.diff(run["/energy/dissipated_contact"])
    struck = (act[1:] & ~act[:-1]).any(axis=1)
    left = (act[:-1] & ~act[1:]).any(axis=1)
    kind = np.full(len(dE), 4)
    for i in range(len(kind)):
        if struck[i]:
            kind[i] = 0
        elif i > 0 and struck[i - 1]:
            kind[i] = 1
        elif left[i]:
            kind[i] = 2
        elif act[i + 1].any():
            kind[i] = 3
    return [(-dE[kind == c].sum(), dD[kind == c].sum(), int((kind == c).sum()))
            for c in range(5)]


def apex(run):
    """The first rebound's apex above the table (m) and its time (s): the
    tip's highest point after the first impact, once it is 10 mm above the
    table, before the next contact (parabola through the top samples)."""
    t, z = run["/time"], run["/tip/position"][:, 2] - TABLE_Z
    act = run["/contact/active"].astype(bool).any(axis=1)
    i0 = int(np.argmax(act))
    up = i0 + int(np.argmax(z[i0:] > 0.01))
    nxt = up + int(np.argmax(act[up:])) if act[up:].any() else len(t)
    j = up + int(np.argmax(z[up:nxt]))
    a, b, c = np.polyfit(t[j - 1:j + 2] - t[j], z[j - 1:j + 2], 2)
    return c - b * b / (4 * a), t[j] - b / (2 * a)


def study_contact_steps(rs, out, quick, save):
    md = ["## Contact: the Kirchhoff rod's time steps\n",
          "`cantilever_table.ini` on the Kirchhoff rod "
          "([docs/contact.md](../../docs/contact.md)): impacts by the "
          "step's scheme, the step after them by backward Euler, "
          "releases and persistent contact by BDF2, free flight by "
          "BDF-alpha.\n",
          "### Where the energy goes\n",
          "Without air drag, restitution 0, 0.3 s; the energy lost (J) by "
          "the kind of step, the contacts' work (`/energy/dissipated_"
          "contact`) in brackets, the rest the integrator's.\n",
          "| dt (ms) | nodes | impact | restart | release | pressed | free "
          "| total |",
          "|---|---|---|---|---|---|---|---|"]
    dts = (2e-3, 1e-3) if quick else (2e-3, 1e-3, 5e-4, 2.5e-4)
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    for dt in dts:
        run, _ = rs.run(CANT, ROD + NODRAG + [f"time.dt={dt}"],
                        name=f"steps_{dt}")
        c = classes(run)
        E = energy(run)
        md.append(f"| {dt * 1e3:g} | {run['/rod/s'].size} | "
                  f"{c[0][0]:.2e} ({c[0][1]:.1e}) | {c[1][0]:.2e} | "
                  f"{c[2][0]:.2e} ({c[2][1]:.1e}) | {c[3][0]:.2e} | "
                  f"{c[4][0]:.1e} | {E[0] - E[-1]:.2e} |")
        ax[0].plot(run["/time"], E * 1e3, label=f"rod, dt = {dt * 1e3:g} ms")
    for n in ((20,) if quick else (20, 40, 80)):
        run, _ = rs.run(CANT, NODRAG + [f"rfem.segments={n}"],
                        name=f"steps_chain_{n}")
        E = energy(run)
        D = run["/energy/dissipated_contact"]
        md.append(f"\nThe chain (RK4) on {n} elements: {E[0] - E[-1]:.2e} J "
                  f"lost, its contacts' work {D[-1]:.2e} J.")
        ax[0].plot(run["/time"], E * 1e3, "k", lw=0.6 + 0.3 * n / 20,
                   label=f"chain, {n} elements")
    for dt in dts:  # the chain damping its high modes as the rod does
        run, _ = rs.run(CANT, NODRAG + ["rfem.integrator=genalpha",
                                        f"time.dt={dt}"],
                        name=f"steps_chain_ga_{dt}")
        E = energy(run)
        md.append(f"\nThe chain (generalized-alpha, 20 elements) at dt = "
                  f"{dt * 1e3:g} ms: {E[0] - E[-1]:.2e} J lost.")
    ax[0].set_xlabel("time (s)")
    ax[0].set_ylabel("mechanical energy (mJ)")
    ax[0].set_title("cantilever_table.ini, no drag, restitution 0",
                    fontsize=10)
    ax[0].legend(fontsize=8)
    ax[0].grid(alpha=0.3)
    md.append("\n### Restitution against the chain\n")
    md.append("With air drag, restitution 0.5: the first rebound's apex "
              "above the table.\n")
    md.append("| model | step or elements | apex (mm) | time (s) |")
    md.append("|---|---|---|---|")
    e05 = ["plane.restitution=0.5", "time.duration=0.2"]
    ref = None
    for n in ((20,) if quick else (20, 40, 80)):
        run, _ = rs.run(CANT, e05 + [f"rfem.segments={n}"],
                        name=f"rebound_chain_{n}")
        h, ta = apex(run)
        ref = ref or h
        md.append(f"| chain | {n} elements | {h * 1e3:.1f} | {ta:.4f} |")
        if n == 20:
            ax[1].plot(run["/time"], (run["/tip/position"][:, 2] - TABLE_Z)
                       * 1e3, "k", label="chain, 20 elements")
    for dt in dts:
        run, _ = rs.run(CANT, ROD + e05 + [f"time.dt={dt}"],
                        name=f"rebound_{dt}")
        h, ta = apex(run)
        md.append(f"| rod | dt = {dt * 1e3:g} ms | {h * 1e3:.1f} "
                  f"({h / ref - 1:+.1%}) | {ta:.4f} |")
        ax[1].plot(run["/time"], (run["/tip/position"][:, 2] - TABLE_Z)
                   * 1e3, label=f"rod, dt = {dt * 1e3:g} ms")
    ax[1].set_xlabel("time (s)")
    ax[1].set_ylabel("tip above the table (mm)")
    ax[1].set_title("restitution 0.5", fontsize=10)
    ax[1].legend(fontsize=8)
    ax[1].grid(alpha=0.3)
    md.append("\n" + save(fig, out, "contact_steps.png") + "\n")
    return "\n".join(md)

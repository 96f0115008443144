"""The contact section of the validation report (validation/report.py
--only contact): the rod resting on a frictionless table against the
heavy elastica (small deflection in closed form, large deflection by an
independent shooting solution; the chain and the Kirchhoff rod), impacts
on a table (penetration, forces, energy) and the real-time ratio of the
shipped contact scenarios on both backends (the chain under
generalized-alpha and RK4).
"""
import math

import matplotlib.pyplot as plt
import numpy as np

SCEN = "data/scenarios"
TABLE = f"{SCEN}/rod_on_table.ini"


def heavy_on_table(EI, q, h, n=4000):
    """Planar heavy elastica clamped horizontally at height h over a
    frictionless table, lying flat on it from s = a: no horizontal force
    anywhere, the vertical internal force P - q (a - s) with P the
    touchdown's point force, EI theta'' = -cos(theta) (P - q (a - s)),
    theta = theta' = z = 0 at a and theta = 0, z = h at the clamp. Shooting
    from the touchdown back to the clamp (RK4 on n steps), Newton on (P, a)
    from the small-deflection answer. Returns a, P, the clamp moment, the
    vertical clamp force and the lifted shape (x, z) from the clamp."""
    def shoot(P, a, keep=False):
        du = a / n
        st = np.zeros(4)  # theta, theta', z, x measured back from a

        def f(y, u):
            th, k = y[0], y[1]
            return np.array([-k, math.cos(th) * (P - q * u) / EI,
                             -math.sin(th), -math.cos(th)])
        path = [st.copy()]
        for i in range(n):
            u = i * du
            k1 = f(st, u)
            k2 = f(st + du / 2 * k1, u + du / 2)
            k3 = f(st + du / 2 * k2, u + du / 2)
            k4 = f(st + du * k3, u + du)
            st = st + du / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            if keep:
                path.append(st.copy())
        return (st, np.array(path)) if keep else st

    a = (72 * EI * h / q) ** 0.25
    P = q * a / 3
    for _ in range(40):
        r = shoot(P, a)
        F = np.array([r[0], r[2] - h])
        if abs(F[0]) < 1e-14 and abs(F[1]) < 1e-14 * h:
            break
        J = np.zeros((2, 2))
        for j, (dP, da) in enumerate(((1e-6 * q * a, 0.0), (0.0, 1e-6 * a))):
            rp, rm = shoot(P + dP, a + da), shoot(P - dP, a - da)
            J[:, j] = (rp[[0, 2]] - rm[[0, 2]]) / (2 * (dP + da))
        d = np.linalg.solve(J, -F)
        P += d[0]
        a += d[1]
    r, path = shoot(P, a, keep=True)
    x = path[::-1, 3] - r[3]  # from the clamp
    z = path[::-1, 2]
    return a, P, abs(EI * r[1]), q * a - P, x, z


def weight(sets):
    """q = rho A g (N/m) of rod_on_table.ini with sets."""
    d, rho, g = 1.42e-3, 7621.0, 9.81
    return rho * math.pi * d * d / 4 * g


def resting(rs, sets, n, rod=False):
    """The static state of rod_on_table.ini with sets on the chain of n
    elements, or (rod) the Kirchhoff rod on n nodes: clamp moment, vertical
    clamp force, first pushed point and the run."""
    grid = ["solver.backend=kirchhoff", f"space.nodes={n}"] if rod else \
        [f"rfem.segments={n}"]
    run, _ = rs.run(TABLE, sets + grid, static=True,
                    name=f"table_{'rod' if rod else 'chain'}_{n}")
    act = np.nonzero(run["/contact/active"][0])[0]
    return (run["/rod/moment"][0, 0, 1], -run["/rod/force"][0, 0, 2],
            run["/rod/s"][act[0]] if len(act) else float("nan"), run)


def _largest_diff(r1, r2, key, tmax=None):
    """The largest difference of r1[key] and r2[key] (first index time; of
    /rod/moment the clamp's about y) at their common sample times up to
    tmax."""
    t1, t2 = np.round(r1["/time"], 9), np.round(r2["/time"], 9)
    tt = np.intersect1d(t1, t2)
    if tmax is not None:
        tt = tt[tt <= tmax]
    a, b = r1[key][np.isin(t1, tt)], r2[key][np.isin(t2, tt)]
    if key == "/rod/moment":
        a, b = a[:, 0, 1], b[:, 0, 1]
    return np.abs(a - b).max()


def grid_in_time(rs, quick):
    """The grid's error against the time step's on the Kirchhoff rod: impacts
    (cantilever_table.ini, 0.3 s) and a slowly moving touchdown
    (rod_on_table.ini, the clamp turned up 3 mrad over 1 s, then at rest):
    does a grid node following the touchdown pay?"""
    md = ["### The grid in time (Kirchhoff rod)\n",
          "The static state's grid kept through the run "
          "(`space.follow_contact = false`): the touchdown moves off its "
          "node. Differences between runs on other grids and time steps "
          "(clamp moment relative to its largest value; the node following "
          "the touchdown: [contact.md](../../docs/contact.md)):\n",
          "| case | compared | tip (m) | clamp moment |", "|---|---|---|---|"]
    ct = f"{SCEN}/cantilever_table.ini"
    base = ["solver.backend=kirchhoff", "time.duration=0.3",
            "space.follow_contact=false"]
    runs = {}
    for n, dt in ((49, 2e-3), (196, 2e-3), (49, 5e-4)):
        runs[n, dt], _ = rs.run(ct, base + [f"space.nodes={n}",
                                            f"time.dt={dt}"],
                                name=f"ct_grid_{n}_{dt}")
    for (a, b, what) in (((49, 2e-3), (196, 2e-3), "grid: 49 / 196 nodes"),
                         ((49, 2e-3), (49, 5e-4), "time step: 2 / 0.5 ms")):
        r1, r2 = runs[a], runs[b]
        tip = _largest_diff(r1, r2, "/tip/position")
        mm = _largest_diff(r1, r2, "/rod/moment") / np.abs(
            r2["/rod/moment"][:, 0, 1]).max()
        md.append(f"| impacts | {what} | {tip:.1e} | {mm:.1e} |")
    turn = ["solver.backend=kirchhoff", "motor.angle=-0.003", "motor.ramp=1",
            "time.duration=2", "space.follow_contact=false"]
    # the 192-node run takes minutes (600 integrations a step on 96 nodes,
    # the compliance of every lying node)
    cases = [(48, 2e-3), (96, 2e-3), (96, 4e-3)] if quick else \
        [(48, 2e-3), (96, 2e-3), (192, 2e-3), (96, 4e-3), (96, 1e-3)]
    tr = {}
    for n, dt in cases:
        tr[n, dt], _ = rs.run(TABLE, turn + [f"space.nodes={n}",
                                             f"time.dt={dt}"],
                              name=f"turn_{n}_{dt}")
    # the static state of the turned clamp, node at the touchdown
    th = 0.003
    ref, _ = rs.run(TABLE, ["solver.backend=kirchhoff", "space.nodes=192",
                            f"base.direction={math.cos(th)} 0 "
                            f"{math.sin(th)}"], static=True, name="turn_ref")
    Mref = ref["/rod/moment"][0, 0, 1]
    pairs = [((48, 2e-3), (96, 2e-3), "grid: 48 / 96 nodes"),
             ((96, 4e-3), (96, 2e-3), "time step: 4 / 2 ms")]
    if not quick:
        pairs += [((96, 2e-3), (192, 2e-3), "grid: 96 / 192 nodes"),
                  ((48, 2e-3), (192, 2e-3), "grid: 48 / 192 nodes"),
                  ((96, 2e-3), (96, 1e-3), "time step: 2 / 1 ms")]
    for a, b, what in pairs:
        d = _largest_diff(tr[a], tr[b], "/rod/moment", tmax=1.2)
        md.append(f"| turning clamp | {what} | | {d / abs(Mref):.1e} |")
    md.append("")
    md.append(f"At rest after the turn (t = 2 s) against the static state "
              f"of the turned clamp on 192 nodes ({Mref:.9e} N m):")
    for (n, dt), r in sorted(tr.items()):
        md.append(f"{n} nodes, {dt * 1e3:g} ms: "
                  f"{r['/rod/moment'][-1, 0, 1] / Mref - 1:+.1e};")
    md.append("\nImpacts: the time step's error dwarfs the grid's, a node "
              "following the touchdown cannot pay. A slowly moving "
              "persistent contact: the grid's error is several times the "
              "time step's ([contact.md](../../docs/contact.md)).\n")
    return md


def _zero_of_moment(r, i):
    """The touchdown of sample i: the zero of the clamp-side moment's
    quadratic through the last three points before the first active one's
    successor (the free span's end), nearest that point."""
    act = np.nonzero(r["/contact/active"][i])[0]
    a, s, m = act[0], r["/rod/s"], r["/rod/moment"][i, :, 1]
    xs, ms = s[a - 2:a + 1], m[a - 2:a + 1]
    roots = np.roots(np.polyfit(xs - xs[-1], ms, 2))
    roots = roots[np.isreal(roots)].real
    return xs[-1] + roots[np.argmin(abs(roots))]


def moving_node(rs, quick):
    """The node following the touchdown (space.follow_contact) against the
    static state's grid kept: rod_on_table.ini's clamp turned up 3 mrad
    over 1 s, damped (retardation 0.01 s), at rest to 2 s."""
    th = 0.003
    turn = ["solver.backend=kirchhoff", "motor.angle=-0.003", "motor.ramp=1",
            "time.duration=2", "rod.bending_damping=3.8e-4"]
    ns = (50, 100) if quick else (50, 100, 200, 400)
    ref, _ = rs.run(TABLE, ["solver.backend=kirchhoff", "space.nodes=400",
                            f"base.direction={math.cos(th)} 0 "
                            f"{math.sin(th)}"], static=True, name="mv_ref")
    Mref = ref["/rod/moment"][0, 0, 1]
    aref = ref["/rod/s"][np.nonzero(ref["/contact/active"][0])[0][0]]
    runs = {}
    for n in ns:
        for f in ("false", "true"):
            runs[n, f], _ = rs.run(TABLE, turn + [f"space.nodes={n}",
                                                  f"space.follow_contact={f}"],
                                   name=f"mv_{n}_{f}")
    fine = runs[ns[-1], "true"]
    md = ["### A node following the touchdown (Kirchhoff rod)\n",
          f"`rod_on_table.ini`, the clamp turned up 3 mrad over 1 s "
          f"(damped, at rest to 2 s). During the turn: the median (largest) "
          f"difference of the clamp moment (relative) from the moving node "
          f"on {ns[-1]} nodes; at rest (t = 2 s): against the static state "
          f"on 400 nodes ({Mref:.8e} N m, touchdown {aref:.7f} m), the "
          f"touchdown the zero of the output's moment:\n",
          "| nodes | turn: fixed grid | moving node | rest: fixed grid | "
          "moving node | touchdown: fixed | moving |",
          "|---|---|---|---|---|---|---|"]
    mov = (fine["/time"] > 0) & (fine["/time"] <= 1.0)
    for n in ns:
        row = [f"| {n} "]
        for f in ("false", "true"):
            r = runs[n, f]
            d = np.abs(r["/rod/moment"][mov, 0, 1] -
                       fine["/rod/moment"][mov, 0, 1]) / abs(Mref)
            row.append(f"| {np.median(d):.1e} ({d.max():.1e}) ")
        for f in ("false", "true"):
            r = runs[n, f]
            row.append(f"| {r['/rod/moment'][-1, 0, 1] / Mref - 1:+.1e} ")
        for f in ("false", "true"):
            r = runs[n, f]
            td = _zero_of_moment(r, len(r["/time"]) - 1) - aref
            row.append(f"| {td:+.1e} ")
        md.append("".join(row) + "|")
    md.append("")
    return md


def study_contact(rs, out, quick, save):
    md = ["## Contact\n",
          "The chain (RFEM) and the Kirchhoff rod against a rigid "
          "frictionless table and posts "
          "([docs/contact.md](../../docs/contact.md)).\n"]
    EI0, q = 0.03803, weight([])
    # small deflection
    h = 2e-3
    a = (72 * EI0 * h / q) ** 0.25
    M, F = q * a * a / 6, 2 * q * a / 3
    md.append("### The rod resting on a table, small deflection\n")
    md.append(f"`rod_on_table.ini`: 0.8 m, EI = {EI0} N m^2, q = rho A g = "
              f"{q:.5f} N/m, h = 2 mm: a = (72 EI h / q)^(1/4) = {a:.5f} m, "
              f"clamp moment q a^2 / 6 = {M:.6e} N m, vertical clamp force "
              f"2 q a / 3 = {F:.6e} N.\n")
    md.append("| elements | clamp moment (N m) | error | clamp force (N) | "
              "error | first pushed node (m) |")
    md.append("|---|---|---|---|---|---|")
    for n in ((40, 80) if quick else (40, 80, 160)):
        m, f, s0, _ = resting(rs, [], n)
        md.append(f"| {n} | {m:.6e} | {m / M - 1:+.1e} | {f:.6e} | "
                  f"{f / F - 1:+.1e} | {s0:.4g} |")
    ref = heavy_on_table(EI0, q, h)
    md.append(f"\nThe Kirchhoff rod (the table's force at its nodes) against "
              f"the nonlinear heavy elastica (a = {ref[0]:.6f} m, moment "
              f"{ref[2]:.6e} N m, force {ref[3]:.6e} N; the small-deflection "
              f"formulas are 1e-5 off it):\n")
    md.append("| nodes | clamp moment (N m) | error | clamp force (N) | "
              "error | first pushed node (m) | its distance from a (m) |")
    md.append("|---|---|---|---|---|---|---|")
    for n in ((50, 100) if quick else (50, 100, 200)):
        m, f, s0, _ = resting(rs, [], n, rod=True)
        md.append(f"| {n} | {m:.6e} | {m / ref[2] - 1:+.1e} | {f:.6e} | "
                  f"{f / ref[3] - 1:+.1e} | {s0:.9g} | "
                  f"{abs(s0 - ref[0]):.1e} |")
    md.append("\nThe static state has a grid node at the touchdown (the free "
              "span's moment zero): third order in the interval.\n")
    # large deflection
    EI = EI0 / 10
    md.append("\n### Large deflection\n")
    md.append(f"The same wire 2 m long and ten times softer (EI = {EI:g} N "
              "m^2), clamped at h above the table, against the nonlinear "
              "heavy elastica on a frictionless table (independent "
              "shooting: `validation/contact.py`).\n")
    md.append("| h (m) | a nonlinear (m) | a linear (m) | elements | clamp "
              "moment (N m) | reference | error | clamp force (N) | "
              "reference | error |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    fig.suptitle("A rod resting on a frictionless table: the chain against "
                 "the heavy elastica", fontsize=11)
    for h in ((0.3,) if quick else (0.1, 0.3)):
        ref = heavy_on_table(EI, q, h)
        al = (72 * EI * h / q) ** 0.25
        sets = ["rod.length=2", f"rod.bending_stiffness={EI}",
                f"base.position=0 0 {h + 0.71e-3}"]
        for n in ((50, 100) if quick else (50, 100, 200)):
            m, f, _, run = resting(rs, sets, n)
            md.append(f"| {h} | {ref[0]:.5f} | {al:.5f} | {n} | {m:.6e} | "
                      f"{ref[2]:.6e} | {m / ref[2] - 1:+.1e} | {f:.6e} | "
                      f"{ref[3]:.6e} | {f / ref[3] - 1:+.1e} |")
        for n in (50, 100):  # the Kirchhoff rod's nodes
            m, f, _, _ = resting(rs, sets, n, rod=True)
            md.append(f"| {h} | {ref[0]:.5f} | {al:.5f} | rod, {n} nodes | "
                      f"{m:.6e} | {ref[2]:.6e} | {m / ref[2] - 1:+.1e} | "
                      f"{f:.6e} | {ref[3]:.6e} | {f / ref[3] - 1:+.1e} |")
        p = run["/rod/position"][0]
        ax[0].plot(p[:, 0], (p[:, 2] - 0.71e-3) * 1e3, ".", ms=3,
                   label=f"chain, {n} elements, h = {h} m")
        ax[0].plot(ref[4], ref[5] * 1e3, "k-", lw=0.8)
        xl = np.linspace(0, al, 200)
        zl = h * (1 - 6 * (xl / al) ** 2 + 8 * (xl / al) ** 3
                  - 3 * (xl / al) ** 4)
        ax[0].plot(xl, zl * 1e3, "k--", lw=0.8)
    ax[0].plot([], [], "k-", lw=0.8, label="nonlinear heavy elastica")
    ax[0].plot([], [], "k--", lw=0.8, label="small deflection")
    ax[0].set_xlabel("x (m)")
    ax[0].set_ylabel("height of the lowest fibre (mm)")
    ax[0].set_title("resting shapes (EI = 3.803e-3 N m^2)", fontsize=10)
    ax[0].legend(fontsize=8)
    ax[0].grid(alpha=0.3)
    # impacts
    run, summary = rs.run(f"{SCEN}/cantilever_table.ini",
                          ["time.duration=0.5"] if quick else [],
                          name="cantilever_table")
    t = run["/time"]
    E = (run["/energy/kinetic"] + run["/energy/elastic"]
         + run["/energy/gravity"])
    g = run["/contact/gap_min"]
    D = run["/energy/dissipated_contact"]
    Fc = run["/contact/force"]
    ax[1].plot(t, run["/tip/position"][:, 2] * 1e3, label="tip z (mm)")
    ax[1].axhline(-50 + 0.71, color="k", lw=0.8,
                  label="table (tip axis at rest on it)")
    ax2 = ax[1].twinx()
    ax2.plot(t, (E - E[0]) * 1e3, "C1", label="mechanical energy - E(0)")
    ax2.plot(t, -D * 1e3, "C2", label="- energy taken by the contacts")
    ax2.set_ylabel("energy (mJ)")
    ax[1].set_xlabel("time (s)")
    ax[1].set_ylabel("tip height (mm)")
    ax[1].set_title("cantilever_table.ini: released onto a table 50 mm "
                    "below the clamp", fontsize=10)
    ax[1].legend(fontsize=8, loc="upper right")
    ax2.legend(fontsize=8, loc="lower right")
    ax[1].grid(alpha=0.3)
    md.append("\n" + save(fig, out, "contact.png") + "\n")
    md.append("### Impacts\n")
    md.append(f"`{summary.strip()}`\n")
    md.append(f"Deepest point over the run {max(0.0, -g.min()):.2e} m "
              f"(contact tolerance solver.tolerance x L = 4.08e-9 m); "
              f"smallest normal force {Fc[..., 2].min():.1e} N (forces only "
              f"push); largest rise of the mechanical energy between "
              f"samples {np.diff(E).max():+.2e} J (restitution 0, no "
              f"friction: it never grows); energy taken by the contacts "
              f"{D[-1] * 1e3:.3f} mJ of {(E[0] - E[-1]) * 1e3:.3f} mJ lost "
              f"(the rest to air drag).\n")
    md += grid_in_time(rs, quick)
    md += moving_node(rs, quick)
    # speed
    md.append("### Speed\n")
    md.append("| scenario | chain, genalpha: real-time ratio | dynamics "
              "evaluations per step | chain, rk4: real-time ratio | "
              "evaluations per step | Kirchhoff rod: real-time ratio | "
              "integrations per step | deepest node (m) |")
    md.append("|---|---|---|---|---|---|---|---|")
    for ini in ("rod_on_table.ini", "cantilever_table.ini",
                "pendulum_post.ini"):
        if quick and ini == "pendulum_post.ini":
            continue
        row = f"| `{ini}` |"
        deepest = 0.0
        for sets in (["rfem.integrator=genalpha"], ["rfem.integrator=rk4"],
                     ["solver.backend=kirchhoff"]):
            tag = sets[0].split("=")[1]
            run, summ = rs.run(f"{SCEN}/{ini}", sets,
                               name=ini[:-4] + "_" + tag)
            ratio = summ.split("real-time ratio ")[1].split(")")[0]
            ev = summ.split("integrations/step ")[1].split(",")[0]
            row += f" {ratio} | {ev} |"
            deepest = max(deepest, -run["/contact/gap_min"].min())
        row += f" {deepest:.1e} |"
        md.append(row)
    return "\n".join(md)

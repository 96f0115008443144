/* The library's warnings about a scenario (rod_scenario_warnings,
 * rod/scenario.h; docs/commands.md#warnings): the unit slips
 * (scenario_units.c), then the advice on the static state (the chain's
 * elements, Euler in arclength) and on time stepping (the step against
 * the rod's first bending mode and an impulse, the 3D chain's torsion
 * joints under generalized-alpha's damping, the grid against the
 * step's length scale k, the history of the Runge-Kutta stages). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/model.h"
#include "integrators/bdf.h"
#include "integrators/genalpha.h"
#include "scenario_warn.h"

/* Steps an impulse should span: loads are sampled at step times, so a hat
 * of fewer steps delivers its momentum poorly (and none at all once dt
 * reaches its duration). */
enum { IMPULSE_STEPS = 4 };

/* Largest k h a Kirchhoff/Cosserat run is warned about: beyond it the
 * grid does not resolve the step's length scale 1/k (rod_model_step_kh)
 * and shooting fails or the motion blows up. Measured over the shipped
 * scenarios with 20 to 150 nodes, dt 5 to 0.2 ms, alpha -0.48 and 0: RK4
 * failed from k h = 1.6 and converged at 0.5; Euler with alpha -0.48
 * created energy until it failed from k h = 0.26 (0.23 and 0.25 ran
 * well), with alpha = 0 it held to 0.5. The advice aims at k h = 0.3, or
 * lower where the limit is (README, Numerics). */
static const double kh_rk4 = 1.0, kh_euler = 0.5, kh_euler_undamped = 0.25,
                    kh_good = 0.3;

/* alpha below which BDF-alpha's numerical damping is too weak to hold a
 * coarse Euler grid */
static const double alpha_undamped = -0.4;

/* k h beyond which auto history leaves stage records for cubic Hermite
 * (Kirchhoff, RK4; kirchhoff_backend.c), and the k h to advise for them */
static const double kh_stage = 0.3, kh_stage_aim = 0.2;

/* BDF-alpha's step must follow the rod's first bending mode: its error on
 * that mode (damping or phase lag, as a fraction of the amplitude) over
 * mode_periods periods (or the run, if shorter) at most
 * mode_error_most, else it is warned about. Over a long run the phase lag grows
 * on (as with any integrator); this catches a step too coarse for the motion at
 * all. */
static const double mode_error_most = 0.05, mode_periods = 2.0;

/* The error BDF-alpha makes on a mode of omega (1/s) over a time span at
 * step dt: the amplitude lost (or gained) or the phase lag (rad). */
static double mode_error(double alpha, double dt, double omega, double span) {
  if (omega * dt > 0.5 * M_PI) /* fewer than 4 steps a period */
    return INFINITY;
  double gain, phase;
  rod_bdf_alpha_mode(alpha, dt, omega, &gain, &phase);
  const double n = ceil(span / dt - 1e-9);
  return fmax(fabs(1.0 - pow(gain, n)), n * fabs(phase - omega * dt));
}

/* The error of the run's time scheme on a mode of omega over span:
 * BDF-alpha, or the chain's generalized-alpha (rfem.integrator =
 * genalpha); -1 for a scheme that controls its own step or is not
 * watched. */
static double scheme_mode_error(const rod_scenario *sc, double dt, double omega,
                                double span) {
  if (sc->solver.backend == ROD_BACKEND_RFEM)
    return sc->rfem.integrator == ROD_RFEM_GENALPHA
               ? rod_genalpha_mode_error(
                     rod_genalpha_params_from_radius(sc->rfem.spectral_radius),
                     dt, omega, span)
               : -1.0;
  if (sc->time.scheme != ROD_SCHEME_BDF_ALPHA || sc->time.has_tolerance)
    return -1.0;
  return mode_error(sc->time.alpha, dt, omega, span);
}

/* Warn when a run's step cannot follow the rod's first bending mode, with
 * the step that would. */
static void warn_time_step(const rod_scenario *sc, rod_warning_list *w) {
  if (sc->time.duration <= 0)
    return;
  rod_model m;
  rod_model_init(&m, sc);
  const double omega =
      rod_model_first_omega(&m, sc->tip.release ? 0.0 : sc->tip.mass);
  const double span =
      fmin(sc->time.duration, mode_periods * 2.0 * M_PI / omega);
  const double e = scheme_mode_error(sc, sc->time.dt, omega, span);
  if (e <= mode_error_most)
    return;
  double lo = 0.0, hi = sc->time.dt; /* the largest step that would do */
  for (int i = 0; i < 60; i++) {
    const double mid = 0.5 * (lo + hi);
    if (scheme_mode_error(sc, mid, omega, span) <= mode_error_most)
      lo = mid;
    else
      hi = mid;
  }
  const double p = pow(10.0, floor(log10(lo)) - 1);
  char scheme[64];
  if (sc->solver.backend == ROD_BACKEND_RFEM)
    snprintf(scheme, sizeof scheme,
             "generalized-alpha with rfem.spectral_radius = %g",
             sc->rfem.spectral_radius);
  else
    snprintf(scheme, sizeof scheme, "BDF-alpha with alpha = %g",
             sc->time.alpha);
  rod_warning_add(
      w, "time.dt",
      "a step of %g s cannot follow the rod's "
      "first bending mode (about %.3g Hz, %.3g steps a period): "
      "%s errs by %s%.2g of its amplitude "
      "(damping and phase lag) within t = %.3g s: use time.dt = %.2g s "
      "or less",
      sc->time.dt, omega / (2 * M_PI), 2 * M_PI / (omega * sc->time.dt), scheme,
      isfinite(e) ? "" : "more than ", isfinite(e) ? e : 1.0, span,
      floor(lo / p) * p);
}

/* A 3D chain under generalized-alpha whose loads twist it: the numerical
 * damping (rho_inf < 1) on the stiff torsion joints, omega_t = sqrt(GJ /
 * rho J) n / L, moves the out-of-plane swing by an amount that grows with
 * the elements, about as (omega_t dt)^2.4 dt (1 - rho_inf). Measured on
 * the weight-release rod carrying a body offset across the bending plane
 * (docs/numerics.md, "The 3D chain: twist and the out-of-plane swing"):
 * the chain's tip y converged with the elements up to 80 at 1 ms and 160
 * at 0.5 ms (index 0.33, 0.16) and grew with them at 2 ms from 80 and at
 * 1 ms at 160 (3.5, 1.7); at the index 1 (1.3 ms on 80, 0.85 ms on 160)
 * the 160 elements moved again, at 0.5 (0.69 ms on 160) the differences
 * from half the elements fell, 0.047, 0.014, 0.012 mm at 40, 80, 160.
 * Watched where a body off the rod's axis twists it. */
static const double torsion_index_most = 0.5;

static double torsion_index(const rod_scenario *sc, double omega_t, double dt) {
  return pow(omega_t * dt / 1000.0, 2.4) * (dt / 1e-3) *
         (1.0 - sc->rfem.spectral_radius) / 0.1;
}

static void warn_chain_torsion(const rod_scenario *sc, rod_warning_list *w) {
  if (sc->solver.backend != ROD_BACKEND_RFEM || sc->rfem.planar ||
      sc->rfem.integrator != ROD_RFEM_GENALPHA ||
      !(sc->rfem.spectral_radius < 1.0) || sc->time.duration <= 0 ||
      sc->tip.release || !(sc->tip.mass > 0) ||
      hypot(sc->tip.offset[0], sc->tip.offset[1]) == 0.0)
    return;
  rod_model m;
  rod_model_init(&m, sc);
  const double omega_t = sqrt(m.K[2] / (sc->rod.density * m.polar_moment)) *
                         sc->rfem.segments / m.length;
  if (torsion_index(sc, omega_t, sc->time.dt) <= torsion_index_most)
    return;
  double lo = 0.0, hi = sc->time.dt; /* the largest step that would do */
  for (int i = 0; i < 60; i++) {
    const double mid = 0.5 * (lo + hi);
    if (torsion_index(sc, omega_t, mid) <= torsion_index_most)
      lo = mid;
    else
      hi = mid;
  }
  const double p = pow(10.0, floor(log10(lo)) - 1);
  rod_warning_add(
      w, "time.dt",
      "a step of %g s lets generalized-alpha's numerical damping "
      "(rfem.spectral_radius = %g) on the %d torsion joints (omega_t dt = "
      "%.3g) move the twisted body's swing with the element count: use "
      "time.dt = %.2g s or less, or rfem.spectral_radius = 1",
      sc->time.dt, sc->rfem.spectral_radius, sc->rfem.segments,
      omega_t * sc->time.dt, floor(lo / p) * p);
}

/* The chain's static tip error, second order in its elements: at most
 * chain_static_c G L / n^2, G the growth of the static solutions
 * along the rod (rod_model_static_growth; the robustness study measured
 * 0.08 G to 0.22 G against the continuous rod, docs/validation.md). Warned
 * above static_error_most of L, with the elements for a tenth. */
static const double chain_static_c = 0.25, static_error_most = 1e-2;

static void warn_chain_statics(const rod_scenario *sc, rod_warning_list *w) {
  rod_model m;
  rod_model_init(&m, sc);
  const double G = rod_model_static_growth(&m, sc), n = sc->rfem.segments;
  const double e = chain_static_c * G / (n * n);
  if (!(e > static_error_most)) /* NaN: no load the growth knows */
    return;
  rod_warning_add(
      w, "rfem.segments",
      "%d elements may place the static "
      "tip %.2g of the rod's length from the continuous rod's (second "
      "order in the elements under these loads): use about %d "
      "elements for %.2g",
      sc->rfem.segments, e,
      (int)ceil(sqrt(chain_static_c * G / (0.1 * static_error_most))),
      0.1 * static_error_most);
}

/* Euler in arclength is first order: the static tip within
 * euler_static_c kappa h L of the converged one, kappa the bound on
 * the static curvature (the robustness study: 0.24 kappa h L for w L^3 /
 * EI = 10 and a tip force P L^2 / EI = 1 on 118, 236 and 472 nodes,
 * 1.2 %, 0.6 %, 0.3 % of L, docs/validation.md). Warned above
 * static_error_most of L, with rk4 or the nodes for a tenth. */
static const double euler_static_c = 0.25;

static void warn_euler_statics(const rod_scenario *sc, const rod_model *m,
                               rod_warning_list *w) {
  rod_scenario st = *sc; /* the static loads: no strike */
  st.impulse.enabled = false;
  const double kappa = rod_model_curvature_bound(m, &st), L = m->length;
  const int n = rod_model_nodes(m, sc);
  const double e = euler_static_c * kappa * L / (n - 1);
  if (e <= static_error_most)
    return;
  rod_warning_add(
      w, "space.integrator",
      "euler is first order: on %d "
      "nodes the static tip may lie %.2g of the rod's length from the "
      "converged one: use rk4, or about %d nodes for %.2g",
      n, e,
      (int)ceil(euler_static_c * kappa * L / (0.1 * static_error_most)) + 1,
      0.1 * static_error_most);
}

int rod_scenario_warnings(const rod_scenario *sc, int what, rod_warning *out,
                          int max) {
  rod_warning_list list = {out, max > 0 && out ? max : 0, 0}, *w = &list;
  const bool statics = what & ROD_WARN_STATICS, time = what & ROD_WARN_TIME;
  if (what & ROD_WARN_UNITS)
    rod_scenario_warn_units(sc, w);
  if (time) {
    warn_time_step(sc, w);
    warn_chain_torsion(sc, w);
  }
  if (time && sc->impulse.enabled &&
      sc->impulse.duration < IMPULSE_STEPS * sc->time.dt)
    rod_warning_add(w, "impulse.duration",
                    "%g s spans fewer than %d steps "
                    "of dt = %g s; the force is sampled at step times, so its "
                    "momentum is not delivered accurately",
                    sc->impulse.duration, IMPULSE_STEPS, sc->time.dt);
  if (statics && sc->solver.backend == ROD_BACKEND_RFEM)
    warn_chain_statics(sc, w);
  if (sc->solver.backend != ROD_BACKEND_KIRCHHOFF)
    return list.count;
  rod_model m;
  rod_model_init(&m, sc);
  const bool euler = sc->space.integrator == ROD_SPACE_EULER;
  if (statics && euler)
    warn_euler_statics(sc, &m, w);
  if (!time)
    return list.count;
  if (sc->space.nodes == 0) { /* auto: resolved unless capped */
    int needed, n = rod_model_auto_nodes(&m, sc, &needed);
    if (needed > n)
      rod_warning_add(w, "space.nodes",
                      "auto would need %d nodes for the "
                      "length scale of a step of dt = %g s and the static "
                      "curvature; the run takes %d (k h = %.2g): use a larger "
                      "time.dt or set space.nodes",
                      needed, sc->time.dt, n, rod_model_step_kh(sc));
    return list.count;
  }
  const double limit = !euler                            ? kh_rk4
                       : sc->time.alpha < alpha_undamped ? kh_euler_undamped
                                                         : kh_euler;
  const double kh = rod_model_step_kh(sc);
  if (kh <= limit) {
    /* the Runge-Kutta schemes' auto history is their stage records */
    if (!euler && sc->space.history == ROD_HISTORY_AUTO &&
        sc->time.scheme == ROD_SCHEME_BDF_ALPHA &&
        m.kind == ROD_MODEL_KIRCHHOFF && sc->time.alpha > -0.5 && kh > kh_stage)
      rod_warning_add(
          w, "space.history",
          "at k h = %.2g (%d nodes, dt = "
          "%g s) auto takes cubic Hermite history, whose error "
          "~(k h)^4 grows as dt shrinks on a fixed grid (stage "
          "records, 100 times more accurate, grow beyond k h = %g): "
          "use about %d nodes, or space.nodes = auto",
          kh, sc->space.nodes, sc->time.dt, kh_stage,
          (int)ceil(kh / kh_stage_aim * (sc->space.nodes - 1)) + 1);
    return list.count;
  }
  const double aim = fmin(kh_good, 0.8 * limit);
  const int advice = (int)ceil(kh / aim * (sc->space.nodes - 1)) + 1;
  rod_warning_add(
      w, "space.nodes",
      "%d nodes do not resolve the length "
      "scale of a step of dt = %g s (k h = %.2g, k^4 = rhoA c0^2 / EI); "
      "%s errs like (k h)%s, the shooting may fail and the motion blow "
      "up: use about %d nodes or more, or space.nodes = auto",
      sc->space.nodes, sc->time.dt, kh, euler ? "Euler" : "RK4",
      euler ? "" : "^4", advice);
  return list.count;
}

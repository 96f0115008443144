/* The free step of the RFEM chain: its integrators without contact
 * handling, inside one smooth segment of the forcing. Generalized-alpha
 * with Newton iterations on the accelerations (the iteration matrix
 * M + gamma' D + beta' K solved in O(n) by the articulated-body pass with
 * the joint terms as armature, its factorisation kept across iterations
 * and steps while the corrections contract), Dormand-Prince RK45 with error
 * control, and classic RK4 with substeps chosen for stability; a step's start
 * kept and restored, the integrators' restart after a jump of the forcing and
 * their continuation after an impulse. The contact steps (rfem_contact_step.h)
 * integrate through these. */
#include <math.h>
#include <string.h>

#include "core/loads.h"
#include "rfem/rfem_base.h"
#include "rfem/rfem_free_step.h"
#include "rfem/rfem_joints.h"
#include "rfem/rfem_loads.h"
#include "rfem/rfem_tendon.h"

/* ---- generalized-alpha ---------------------------------------------------
 * The iteration matrix's factorisation (the ABA's inward pass, the larger
 * part of a solve) is kept across Newton iterations and steps while each
 * correction divides the residual by 1000 or more: made fresh, the
 * chain's quasi-Newton corrections divide it by about 1e4 (the matrix
 * lacks the loads' and velocities' terms), so one from an earlier q serves
 * until the configuration has moved on, and a correction that contracts
 * less has it made again at once. */
static const double GA_CONTRACTION = 1e-3;

/* Newton's tolerance on the scaled residual: half solver.tolerance, so
 * that the steps solved with a kept factorisation (whose last correction
 * contracts less) lie closer to the steps' exact solution than fresh ones
 * at solver.tolerance did (the chain's weight release: 1.9e-9 against
 * 3.4e-9 m). */
static double ga_tolerance(const rod_rfem *r) {
  return 0.5 * r->sc.solver.tolerance;
}

/* Residual r = M qdd + h(q, v) - tau(q, v) = RNEA(q, v, qdd) - tau on the
 * free links; Maxwell torques follow the step's rates (rfem_maxwell_update)
 * so the element stays exact within the implicit step. */
static int ga_residual(double t, const double *qf, const double *vf,
                       const double *qddf, double *res, void *user) {
  rod_rfem *r = user;
  const int f0 = r->first_free;
  rfem_unpack(r, t, qf, vf, qddf, r->q, r->v, r->qdd);
  if (r->maxwell)
    rfem_maxwell_update(r, r->h, r->Q, r->v_start, r->v, r->Q_new);
  rod_chain_update(r->chain, r->q, r->v);
  rfem_external_forces(r, t, false, r->fext);
  rfem_joint_torques(r, t, r->q, r->v, r->maxwell ? r->Q_new : r->Q, r->tau);
  rod_chain_rnea(r->chain, r->qdd, r->fext, r->tau2);
  r->evaluations++;
  double norm = 0;
  for (int a = 0; a < r->nfree; a++) {
    res[a] = r->tau2[f0 + a] - r->tau[f0 + a];
    norm = fmax(norm, fabs(res[a]));
  }
  /* a kept factorisation that contracts a correction's residual by less
   * than GA_CONTRACTION is made again at the next solve */
  norm *= r->L / r->EI;
  if (r->ga_last_norm >= 0 && norm > ga_tolerance(r) &&
      !(norm <= GA_CONTRACTION * r->ga_last_norm))
    r->ga_stale = true;
  r->ga_last_norm = norm;
  return 0;
}

/* The correction dx = S^-1 b with the iteration matrix's factorisation at
 * an earlier q of this step or an earlier one (modified Newton), made again
 * when none is kept (another pass of the chain wrote over it, a step of
 * another size) or the last correction contracted too little. */
static int ga_solve(double t, double beta_p, double gamma_p, const double *b,
                    double *dx, void *user) {
  (void)t;
  rod_rfem *r = user;
  const int f0 = r->first_free;
  /* steps of one size differ in the last digits of h (t_end - t) */
  const bool kept =
      r->ga_keep && r->ga_factor > 0 && !r->ga_stale &&
      r->ga_factor == rod_chain_factor_count(r->chain) &&
      fabs(beta_p - r->ga_factor_beta) <= 1e-9 * r->ga_factor_beta &&
      fabs(gamma_p - r->ga_factor_gamma) <= 1e-9 * r->ga_factor_gamma;
  if (!kept) {
    rfem_iteration_extras(r, r->h, beta_p, gamma_p, r->extra);
    int st = rod_chain_mass_factor(r->chain, r->extra);
    if (st != ROD_OK)
      return st;
    if (r->tendons) /* displacement control's springs, by Woodbury */
      rfem_tendon_factor(r, beta_p, f0);
    r->ga_factor = rod_chain_factor_count(r->chain);
    r->ga_factor_beta = beta_p;
    r->ga_factor_gamma = gamma_p;
    r->ga_stale = false;
  }
  r->ga_reused |= kept;
  if (f0)
    r->full[0] = 0.0;
  memcpy(r->full + f0, b, (size_t)r->nfree * sizeof(double));
  rod_chain_mass_solve(r->chain, r->full, r->full);
  if (r->tendons)
    rfem_tendon_correct(r, r->full);
  r->evaluations++;
  memcpy(dx, r->full + f0, (size_t)r->nfree * sizeof(double));
  return ROD_OK;
}

static const rod_genalpha_system ga_system = {ga_residual, ga_solve};

/* Save / restore the generalized-alpha state and the Maxwell torques into
 * buf (4 nfree + nlinks doubles), so a step that fails can be retried in
 * substeps. */
static void ga_save(rod_rfem *r, double *buf, double *t0) {
  const size_t nf = (size_t)r->nfree, bytes = nf * sizeof(double);
  *t0 = rod_genalpha_time(r->ga);
  memcpy(buf, rod_genalpha_q(r->ga), bytes);
  memcpy(buf + nf, rod_genalpha_v(r->ga), bytes);
  memcpy(buf + 2 * nf, rod_genalpha_qdd(r->ga), bytes);
  memcpy(buf + 3 * nf, rod_genalpha_a(r->ga), bytes);
  memcpy(buf + 4 * nf, r->Q, (size_t)r->nlinks * sizeof(double));
}

static void ga_restore(rod_rfem *r, const double *buf, double t0) {
  const size_t nf = (size_t)r->nfree;
  rod_genalpha_init(r->ga, t0, buf, buf + nf, buf + 2 * nf, buf + 3 * nf);
  memcpy(r->Q, buf + 4 * nf, (size_t)r->nlinks * sizeof(double));
}

static int ga_substeps(rod_rfem *r, double t_end, int m,
                       rod_genalpha_stats *gs) {
  /* the scaled residual of ga_tolerance, or corrections below 1e-14 rad
   * where round-off in large cancelling torques (a stiff PD drive) keeps the
   * residual above it */
  rod_genalpha_options o = {r->sc.solver.max_iterations, ga_tolerance(r),
                            r->L / r->EI, 1e-14};
  const double t0 = rod_genalpha_time(r->ga), h = (t_end - t0) / m;
  for (int i = 0; i < m; i++) {
    const double ts = rod_genalpha_time(r->ga);
    r->h = i + 1 == m ? t_end - ts : h;
    int st = ROD_ENOCONV;
    /* a step that fails with a kept factorisation is tried again with a
     * fresh one (the state stays as it was) */
    r->ga_reused = true;
    for (int attempt = 0; attempt < 2 && st != ROD_OK && r->ga_reused;
         attempt++) {
      r->ga_stale |= attempt > 0;
      r->ga_reused = false;
      r->ga_last_norm = -1;
      rfem_unpack(r, ts, rod_genalpha_q(r->ga), rod_genalpha_v(r->ga), NULL,
                  r->full, r->v_start, NULL);
      st = rod_genalpha_step(r->ga, &ga_system, r->h, &o, gs, r);
    }
    if (st != ROD_OK)
      return st;
    if (r->maxwell)
      memcpy(r->Q, r->Q_new, (size_t)r->nlinks * sizeof(double));
  }
  return ROD_OK;
}

int rfem_ga_step(rod_rfem *r, double t1, const double *dq, const double *dv,
                 rod_step_stats *st) {
  rod_genalpha_stats gs = {0, 0, 0};
  rod_genalpha_set_offsets(r->ga, dq, dv);
  int status = ga_substeps(r, t1, 1, &gs);
  rod_genalpha_set_offsets(r->ga, NULL, NULL);
  if (!dq && status != ROD_OK) {
    /* a step without offsets whose Newton iteration fails: in 2, 4, ...
     * 64 substeps, as ga_advance (a free step of cantilever_table.ini on
     * 20 elements, no drag, from 0.064 to 0.06545 s diverged where the
     * steps to 0.06544 and 0.0656 s converged) */
    double t0; /* the failed step left the state as it was */
    ga_save(r, r->ga_save, &t0);
    for (int m = 2; m <= 64 && status != ROD_OK; m *= 2) {
      ga_restore(r, r->ga_save, t0);
      status = ga_substeps(r, t1, m, &gs);
    }
  }
  st->iterations += gs.iterations;
  st->residual = fmax(st->residual, gs.residual);
  if (status != ROD_OK)
    return status;
  rfem_unpack(r, t1, rod_genalpha_q(r->ga), rod_genalpha_v(r->ga),
              rod_genalpha_qdd(r->ga), r->q, r->v, r->qdd);
  r->t = t1;
  return ROD_OK;
}

/* Local error of a step of h just taken (time.tolerance), in metres at
 * the tip: the displacement error of Newmark-type schemes,
 * h^2 (beta - 1/6) (qdd1 - qdd0) (Zienkiewicz & Xie 1991), on every
 * joint angle, each moving the tip by at most the rod's length. */
static double ga_error(const rod_rfem *r, double h) {
  const size_t nf = (size_t)r->nfree;
  const double *qdd0 = r->ga_save + 2 * nf, *qdd1 = rod_genalpha_qdd(r->ga);
  const double beta = r->ga_beta;
  double sum = 0;
  for (size_t i = 0; i < nf; i++)
    sum += fabs(qdd1[i] - qdd0[i]);
  return h * h * fabs(beta - 1.0 / 6.0) * sum * r->L;
}

void rfem_save(rod_rfem *r) {
  const size_t N = (size_t)r->nlinks * sizeof(double);
  r->saved_t = r->t;
  memcpy(r->saved_q, r->q, N);
  memcpy(r->saved_v, r->v, N);
  memcpy(r->saved_qdd, r->qdd, N);
  memcpy(r->saved_Q, r->Q, N);
  if (r->sc.rfem.integrator == ROD_RFEM_GENALPHA) {
    double t0;
    ga_save(r, r->saved_ga, &t0);
  } else {
    memcpy(r->saved_y, r->y, (size_t)r->ny * sizeof(double));
  }
}

void rfem_restore(rod_rfem *r) {
  const size_t N = (size_t)r->nlinks * sizeof(double);
  r->t = r->saved_t;
  memcpy(r->q, r->saved_q, N);
  memcpy(r->v, r->saved_v, N);
  memcpy(r->qdd, r->saved_qdd, N);
  memcpy(r->Q, r->saved_Q, N);
  if (r->sc.rfem.integrator == ROD_RFEM_GENALPHA) {
    ga_restore(r, r->saved_ga, r->saved_t);
  } else {
    memcpy(r->y, r->saved_y, (size_t)r->ny * sizeof(double));
    rod_rk45_invalidate(r->rk45); /* the forcing may have changed */
  }
}

/* One output step; a step whose Newton iteration fails is retried in 2, 4,
 * ... 64 substeps from the saved state. */
static int ga_advance(rod_rfem *r, double t_end, rod_step_stats *st) {
  double t0;
  ga_save(r, r->ga_save, &t0);
  rod_genalpha_stats gs = {0, 0, 0};
  int status = ROD_ENOCONV;
  /* from the substeps an earlier attempt at this step needed (contact
   * integrates a step again: its end state then stays a smooth function
   * of the contact forces) */
  const int m0 = r->ga_substeps > 1 ? r->ga_substeps : 1;
  for (int m = m0; m <= 64 && status != ROD_OK; m *= 2) {
    if (m > m0)
      ga_restore(r, r->ga_save, t0);
    status = ga_substeps(r, t_end, m, &gs);
    if (status == ROD_OK && r->contact)
      r->ga_substeps = m;
  }
  st->iterations += gs.iterations;
  st->residual = fmax(st->residual, gs.residual);
  if (status != ROD_OK)
    return status;
  if (isfinite(r->step_tolerance)) {
    st->error = fmax(st->error, ga_error(r, t_end - t0));
    if (st->error > r->step_tolerance) {
      ga_restore(r, r->ga_save, t0);
      st->rejected = 1;
      return ROD_OK;
    }
  }
  rfem_unpack(r, t_end, rod_genalpha_q(r->ga), rod_genalpha_v(r->ga),
              rod_genalpha_qdd(r->ga), r->q, r->v, r->qdd);
  return ROD_OK;
}

/* ---- explicit integrators on y = (q_free, v_free, Q_spring) ------------ */

static int ode_rhs(double t, const double *y, double *dy, void *user) {
  rod_rfem *r = user;
  const int nf = r->nfree, f0 = r->first_free;
  rfem_unpack(r, t, y, y + nf, NULL, r->q, r->v, r->qdd);
  if (r->maxwell)
    memcpy(r->Q + 1, y + 2 * nf, (size_t)(r->nlinks - 1) * sizeof(double));
  rod_chain_update(r->chain, r->q, r->v);
  rfem_external_forces(r, t, false, r->fext);
  rfem_joint_torques(r, t, r->q, r->v, r->Q, r->tau);
  int st = rod_chain_aba(r->chain, r->tau, r->fext, r->qdd);
  r->evaluations++;
  memcpy(dy, y + nf, (size_t)nf * sizeof(double));
  memcpy(dy + nf, r->qdd + f0, (size_t)nf * sizeof(double));
  if (r->maxwell) /* Q' = k dq - Q / T (Iwamura et al., eq. 6 differentiated) */
    for (int i = 1; i < r->nlinks; i++)
      dy[2 * nf + i - 1] = r->k[i] * r->v[i] - r->Q[i] / r->relax;
  return st;
}

static void pack_state(rod_rfem *r) {
  const int nf = r->nfree, f0 = r->first_free;
  memcpy(r->y, r->q + f0, (size_t)nf * sizeof(double));
  memcpy(r->y + nf, r->v + f0, (size_t)nf * sizeof(double));
  if (r->maxwell)
    memcpy(r->y + 2 * nf, r->Q + 1, (size_t)(r->nlinks - 1) * sizeof(double));
}

static void unpack_state(rod_rfem *r, double t) {
  /* one more evaluation leaves q, v, Q and qdd of y at time t */
  ode_rhs(t, r->y, r->ode_work, r);
}

/* Largest |eigenvalue| of the Jacobian of ode_rhs at y by power iteration
 * on J^2 with forward differences (J^2 has the modulus squared of a
 * conjugate pair as a real eigenvalue, so the ratio converges without
 * oscillating). */
static double spectral_bound(rod_rfem *r, double t) {
  const int ny = r->ny;
  double *f0 = r->ode_work + ny, *x = r->ode_work + 2 * ny;
  double *yp = r->ode_work + 3 * ny, *jx = r->ode_work + 4 * ny;
  ode_rhs(t, r->y, f0, r);
  for (int i = 0; i < ny; i++) /* a start with every mode in it */
    x[i] = (i % 2 ? 1.0 : -1.0) * (1.0 + 0.37 * (i % 7));
  double lambda = 0;
  for (int it = 0; it < 60; it++) {
    double ratio = 1;
    for (int pass = 0; pass < 2; pass++) {
      double ny2 = 0, ys = 0;
      for (int i = 0; i < ny; i++) {
        ny2 += x[i] * x[i];
        ys += r->y[i] * r->y[i];
      }
      double eps = 1e-7 * (1.0 + sqrt(ys)) / sqrt(ny2);
      for (int i = 0; i < ny; i++)
        yp[i] = r->y[i] + eps * x[i];
      ode_rhs(t, yp, jx, r);
      double nj = 0;
      for (int i = 0; i < ny; i++) {
        x[i] = (jx[i] - f0[i]) / eps;
        nj += x[i] * x[i];
      }
      ratio *= sqrt(nj / ny2);
    }
    lambda = sqrt(ratio);
    double s = 0;
    for (int i = 0; i < ny; i++)
      s += x[i] * x[i];
    s = 1.0 / sqrt(s);
    for (int i = 0; i < ny; i++)
      x[i] *= s;
  }
  return lambda;
}

/* Accelerations at the current state from the right of r->t (after the
 * release, or after a jump of the motor's acceleration), and a fresh start
 * of the integrator there: generalized-alpha's algorithmic acceleration and
 * RK45's stored derivative would carry the value from before the jump. */
int rfem_restart(rod_rfem *r) {
  const int f0 = r->first_free;
  const double t = r->t;
  r->seg_lo = t;
  r->seg_hi = INFINITY;
  if (r->prescribed) {
    rod_motor_reference(&r->sc, t, &r->q[0], &r->v[0]);
    r->qdd[0] = rfem_motor_accel(r, t);
  }
  rfem_place_base(r, t, false);
  rod_chain_update(r->chain, r->q, r->v);
  rfem_external_forces(r, t, false, r->fext);
  rfem_joint_torques(r, t, r->q, r->v, r->Q, r->tau);
  int st = rod_chain_aba(r->chain, r->tau, r->fext, r->qdd);
  r->evaluations++;
  if (st != ROD_OK)
    return st;
  if (r->sc.rfem.integrator == ROD_RFEM_GENALPHA) {
    rod_genalpha_init(r->ga, t, r->q + f0, r->v + f0, r->qdd + f0, NULL);
  } else {
    pack_state(r);
    rod_rk45_reset(r->rk45);
  }
  return ROD_OK;
}

int rfem_velocity_jump(rod_rfem *r) {
  const int f0 = r->first_free;
  if (r->sc.rfem.integrator != ROD_RFEM_GENALPHA) {
    pack_state(r);
    rod_rk45_invalidate(r->rk45);
    return ROD_OK;
  }
  /* the accelerations (true and algorithmic) go on: an impulse changes the
   * velocities, and recomputing the accelerations would hand the chain's
   * stiff, under-resolved modes accelerations the step cannot follow */
  double *qdd = r->full, *a = r->tau2;
  memcpy(qdd, rod_genalpha_qdd(r->ga), (size_t)r->nfree * sizeof(double));
  memcpy(a, rod_genalpha_a(r->ga), (size_t)r->nfree * sizeof(double));
  rod_genalpha_init(r->ga, r->t, r->q + f0, r->v + f0, qdd, a);
  return ROD_OK;
}

int rfem_start_dynamics(rod_rfem *r) {
  rfem_base_jump(r, r->t, true); /* the table's clamp moves from 0+ */
  int st = rfem_restart(r);      /* at 0+: the tip mass and preload are gone */
  if (st != ROD_OK || r->sc.rfem.integrator != ROD_RFEM_RK4)
    return st;
  /* RK4 is stable to |lambda| h = 2.78 (real) .. 2.83 (imaginary); 2.0
   * leaves room for an estimate from below by power iteration */
  double lambda = spectral_bound(r, r->t);
  double n = ceil(r->sc.time.dt * lambda / 2.0);
  r->rk4_substeps = n < 1 ? 1 : (n > 1e8 ? 100000000 : (int)n);
  unpack_state(r, r->t);
  return ROD_OK;
}

int rfem_advance_free(rod_rfem *r, double t_end, rod_step_stats *st) {
  int status = ROD_OK;
  rod_ivp_stats is = {0, 0, 0};
  switch (r->sc.rfem.integrator) {
  case ROD_RFEM_GENALPHA:
    status = ga_advance(r, t_end, st);
    break;
  case ROD_RFEM_RK45: {
    rod_rk45_options o = {r->sc.rfem.rtol, r->atol, 0, 10000000};
    double tt = r->t;
    status = rod_rk45_advance(r->rk45, ode_rhs, &tt, t_end, r->y, &o, &is, r);
    if (status == ROD_OK)
      unpack_state(r, t_end);
    break;
  }
  case ROD_RFEM_RK4: {
    /* the stability substep, also on a shortened segment */
    double m = ceil(r->rk4_substeps * (t_end - r->t) / r->sc.time.dt - 1e-9);
    status = rod_rk4_advance(ode_rhs, r->t, t_end, m < 1 ? 1 : (int)m, r->ny,
                             r->y, r->ode_work, &is, r);
    if (status == ROD_OK)
      unpack_state(r, t_end);
    break;
  }
  }
  if (status == ROD_OK && !st->rejected)
    r->t = t_end;
  return status;
}

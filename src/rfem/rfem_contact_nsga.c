/* Contact of the RFEM chain under generalized-alpha: the nonsmooth
 * generalized-alpha scheme (Chen, Acary, Virlez and Bruls 2013) with the
 * constraints kept at the position and velocity levels (Bruls, Acary and
 * Cardona 2014). A step of size h from (q0, v0, a0, qdd0) on the free
 * joints:
 *
 *   q1 = q0 + h v0 + h^2 (1/2 - beta) a0 + h^2 beta a1 + U,  M U = J^T nu
 *   v1 = v0 + h (1 - gamma) a0 + h gamma a1 + W,             M W = J^T lam
 *   (1 - alpha_m) a1 + alpha_m a0 = (1 - alpha_f) qdd1 + alpha_f qdd0
 *   M(q1) qdd1 = f(t1, q1, v1)        (the smooth forces: no contact)
 *
 * M and J at q1, with the contact conditions at the step's end:
 * - positions, every contact near the rod: 0 <= g(q1) _|_ nu_n >= 0, and
 *   with friction Coulomb's law between nu and the point's slip over the
 *   step (a sticking point keeps its place);
 * - velocities, the contacts closed at the end:
 *   0 <= J_n v1 + e min(J_n v0, 0) _|_ lam_n >= 0 (Newton's restitution),
 *   and with friction Coulomb's law between lam and the sliding velocity.
 * The accelerations carry no impulse: the smooth part is generalized-alpha
 * as without contact. A resting contact is an exact fixed point:
 * qdd = a = -M^-1 J^T f, nu = h^2/2 f, lam = h f, f the statics' forces.
 * The forces reported are lam / h; the contacts' work over a step is
 * lam . J (v0 + v1) / 2 (exact for an impulse at fixed positions).
 *
 * The multipliers come from a Newton-like iteration on the whole step:
 * integrate the step with the current offsets, then solve both contact
 * problems on the step's linear response. A change dnu moves the end
 * positions by S^-1 J^T dnu (S = M + gamma' D + beta' K, generalized-
 * alpha's Newton matrix, whose iteration undoes the stiff joints' share of
 * the offset) and the end velocities by -(gamma'/beta') (M^-1 - S^-1) J^T
 * dnu; a change dlam moves the end velocities by M^-1 J^T dlam. The step
 * is taken when the next change would move no point by more than the
 * contact tolerance (the velocities: within the step). */
#include <math.h>
#include <string.h>

#include "core/v3.h"
#include "rfem/rfem_contact.h"
#include "rfem/rfem_contact_step.h"
#include "rfem/rfem_free_step.h"
#include "rfem/rfem_joints.h"

enum { NSGA_MAX_ITERATIONS = 100, NSGA_MAX_HALVINGS = 6 };

static int find(const rfem_contact *list, int n, int obstacle, int slot) {
  for (int k = 0; k < n; k++)
    if (list[k].obstacle == obstacle && list[k].slot == slot)
      return k;
  return -1;
}

/* out = Y x (nfree): M^-1 J^T x for the rows of the last Delassus matrix. */
static void back_map(const rod_rfem *r, int rows, const double *x,
                     double *out) {
  const rfem_contacts *c = r->contact;
  const int nf = r->nfree;
  memset(out, 0, (size_t)nf * sizeof(double));
  for (int i = 0; i < rows; i++)
    if (x[i] != 0.0)
      for (int j = 0; j < nf; j++)
        out[j] += c->Y[j + (size_t)i * nf] * x[i];
}

/* The step's contacts: the candidates closed at its start (gap within the
 * tolerance), with the last step's multipliers for this step's h (the
 * forces 2 nu / h^2 and lam / h kept per slot), and the offsets they give
 * there. *g_open: the smallest gap of the other candidates (the margin if
 * none). Returns the status; *n_out the count, *offsets whether any. */
static int begin(rod_rfem *r, double h, int *n_out, bool *offsets,
                 double *g_open) {
  rfem_contacts *c = r->contact;
  const int R = c->rows;
  const bool current = rfem_contact_current(r);
  if (!current) {
    rod_chain_update(r->chain, r->q, r->v);
    rfem_contact_detect(r, c->margin);
  }
  int n = 0;
  bool any = false;
  *g_open = c->margin;
  for (int k = 0; k < c->count; k++) {
    const rfem_contact *ct = &c->c[k];
    if (ct->gap > c->tol) {
      *g_open = fmin(*g_open, ct->gap);
      continue;
    }
    const size_t s = 3 * ((size_t)ct->obstacle * c->nslots + ct->slot);
    c->list[n] = *ct;
    for (int q = 0; q < R; q++) {
      const double *fr = ct->frame + 3 * q;
      c->nu[R * n + q] = 0.5 * h * h * v3_dot(fr, c->slot_pos + s);
      c->lam[R * n + q] = h * v3_dot(fr, c->slot_force + s);
      any = any || c->nu[R * n + q] != 0 || c->lam[R * n + q] != 0;
    }
    n++;
  }
  *n_out = n;
  *offsets = any;
  if (!any)
    return ROD_OK;
  if (current) /* the kinematics of the state, for the rows */
    rod_chain_update(r->chain, r->q, r->v);
  const int rows = rfem_contact_jacobian(r, c->list, n, R);
  int st = rfem_contact_delassus(r, rows, NULL);
  if (st != ROD_OK)
    return st;
  back_map(r, rows, c->nu, c->U);
  back_map(r, rows, c->lam, c->W);
  return ROD_OK;
}

/* At the step's end (the chain's kinematics there: generalized-alpha's
 * last residual was evaluated at its accepted state): the step's contacts
 * evaluated there, and the smallest gap of the candidates that are not
 * among them (INFINITY if none). */
static double end_contacts(rod_rfem *r, int n) {
  rfem_contacts *c = r->contact;
  rfem_contact_detect(r, c->margin);
  c->fresh = true;
  c->fresh_t = r->t;
  memcpy(c->fresh_q, r->q, (size_t)r->nlinks * sizeof(double));
  double g = INFINITY;
  for (int k = 0; k < c->count; k++)
    if (find(c->list, n, c->c[k].obstacle, c->c[k].slot) < 0)
      g = fmin(g, c->c[k].gap);
  for (int k = 0; k < n; k++)
    rfem_contact_eval(r, c->list[k].obstacle, c->list[k].slot, &c->list[k]);
  return g;
}

/* The points of the contacts list at the step's start into c->xstart. */
static void start_points(rod_rfem *r, const rfem_contact *list, int n) {
  rfem_contacts *c = r->contact;
  rod_chain_update(r->chain, r->saved_q, r->saved_v);
  for (int k = 0; k < n; k++)
    rod_chain_point(r->chain, list[k].link, list[k].r, c->xstart + 3 * k, NULL);
  rod_chain_update(r->chain, r->q, r->v);
}

/* Whether the solution c->l of w = G l + b (rows) keeps every normal
 * condition, w_n >= 0 to the contact tolerance. */
static bool normal_conditions_hold(const rfem_contacts *c, int n, int rows) {
  for (int k = 0; k < n; k++) {
    const int i = c->rows * k;
    double w = c->b[i];
    for (int j = 0; j < rows; j++)
      w += c->G[i + (size_t)j * rows] * c->l[j];
    if (w < -c->tol)
      return false;
  }
  return true;
}

/* The position problem at the end state: nu' from the gaps and slips with
 * the response S^-1 J^T (into c->l); c->dnu = nu' - nu, c->l1 = the moves
 * G_p dnu. Returns the largest move (m). */
static double position_problem(rod_rfem *r, int n, double h, int *status) {
  rfem_contacts *c = r->contact;
  const int R = c->rows;
  const int rows = rfem_contact_jacobian(r, c->list, n, R);
  const rod_genalpha_params p =
      rod_genalpha_params_from_radius(r->contact->rho);
  const double ratio = (1.0 - p.alpha_f) / (1.0 - p.alpha_m);
  rfem_iteration_extras(r, h, h * h * p.beta * ratio, h * p.gamma * ratio,
                        r->extra);
  *status = rfem_contact_delassus(r, rows, r->extra);
  if (*status != ROD_OK)
    return 0;
  if (R == 3) /* the points at the step's start, for their slip */
    start_points(r, c->list, n);
  for (int k = 0; k < n; k++) {
    double slip[3] = {0, 0, 0};
    if (R == 3)
      v3_sub(slip, c->list[k].x, c->xstart + 3 * k);
    for (int q = 0; q < R; q++) {
      const int i = R * k + q;
      c->b[i] =
          q == 0 ? c->list[k].gap : v3_dot(c->list[k].frame + 3 * q, slip);
      for (int j = 0; j < rows; j++)
        c->b[i] -= c->G[i + (size_t)j * rows] * c->nu[j];
    }
  }
  memcpy(c->l, c->nu, (size_t)rows * sizeof(double));
  *status = rfem_contact_solve(r, c->list, n);
  if (*status != ROD_OK)
    return 0;
  if (R == 3 && !normal_conditions_hold(c, n, rows)) {
    /* Coulomb's problem found no force that keeps every gap (a contact's
     * sliding mode without a solution, its sticking force projected on
     * the cone): this iteration keeps the gaps without friction */
    for (int a = 0; a < n; a++) {
      c->bn[a] = c->b[R * a];
      c->ln[a] = c->nu[R * a];
      for (int k = 0; k < n; k++)
        c->Gn[a + (size_t)k * n] = c->G[R * a + (size_t)(R * k) * rows];
    }
    *status = rod_contact_dual(c->solver, n, c->Gn, c->bn, c->ln, NULL);
    if (*status != ROD_OK)
      return 0;
    memset(c->l, 0, (size_t)rows * sizeof(double));
    for (int a = 0; a < n; a++)
      c->l[R * a] = c->ln[a];
  }
  double move = 0;
  for (int i = 0; i < rows; i++)
    c->dnu[i] = c->l[i] - c->nu[i];
  for (int i = 0; i < rows; i++) {
    double s = 0;
    for (int j = 0; j < rows; j++)
      s += c->G[i + (size_t)j * rows] * c->dnu[j];
    c->l1[i] = s;
    move = fmax(move, fabs(s));
  }
  return move;
}

/* The velocity problem on the contacts closed at the end (gap after the
 * position change within the tolerance: their indices into c->index,
 * their contacts into c->ilist, *ni of them): lam' into c->l, with
 * G_v = J M^-1 J^T in c->G and M^-1 J^T in c->Y for their rows, the end
 * velocities as they will be after dnu, and c->u0 = J v0. Returns the
 * largest move of a point over the step (m). */
static double velocity_problem(rod_rfem *r, int n, double h, int *ni,
                               int *status) {
  rfem_contacts *c = r->contact;
  const int R = c->rows;
  int m = 0;
  for (int k = 0; k < n; k++)
    if (c->list[k].gap + c->l1[R * k] <= c->tol) {
      c->index[m] = k;
      c->ilist[m++] = c->list[k];
    }
  *ni = m;
  *status = ROD_OK;
  if (m == 0)
    return 0;
  const int rows = rfem_contact_jacobian(r, c->ilist, m, R);
  *status = rfem_contact_delassus(r, rows, NULL);
  if (*status != ROD_OK)
    return 0;
  const rod_genalpha_params p =
      rod_genalpha_params_from_radius(r->contact->rho);
  const double gb = p.gamma / (h * p.beta); /* gamma' / beta' */
  double *dnu = c->l0, *u1 = c->b;
  rfem_contact_rates(r, rows, r->saved_v, c->u0);
  rfem_contact_rates(r, rows, r->v, u1);
  for (int a = 0; a < m; a++)
    for (int q = 0; q < R; q++) {
      const int li = R * c->index[a] + q;
      c->l[R * a + q] = c->lam[li];
      dnu[R * a + q] = c->dnu[li];
    }
  for (int i = 0; i < rows; i++) {
    const int li = R * c->index[i / R] + i % R;
    double gv = 0, gl = 0;
    for (int j = 0; j < rows; j++) {
      gv += c->G[i + (size_t)j * rows] * dnu[j];
      gl += c->G[i + (size_t)j * rows] * c->l[j];
    }
    /* the end velocity after dnu, less what lam already gives */
    u1[i] += -gb * (gv - c->l1[li]) - gl;
  }
  for (int a = 0; a < m; a++) /* w_n = u_n+ + e min(u_n-, 0) >= 0 */
    u1[R * a] += c->ilist[a].e * fmin(c->u0[R * a], 0.0);
  memcpy(c->l1, c->l, (size_t)rows * sizeof(double)); /* lam on the rows */
  *status = rfem_contact_solve(r, c->ilist, m);
  if (*status != ROD_OK)
    return 0;
  double move = 0;
  for (int i = 0; i < rows; i++) {
    double s = 0;
    for (int j = 0; j < rows; j++)
      s += c->G[i + (size_t)j * rows] * (c->l[j] - c->l1[j]);
    move = fmax(move, fabs(s) * h);
  }
  return move;
}

/* Keep the step: the forces lam / h of the closed contacts for the output
 * and the next step's start, 2 nu / h^2 per slot, and the forces' work,
 * f . (x1 - x0) over the step. */
static void finish(rod_rfem *r, int n, int ni, double h) {
  rfem_contacts *c = r->contact;
  const int R = c->rows;
  const size_t slots = 3 * (size_t)c->world.count * c->nslots;
  for (int a = 0; a < ni; a++) {
    double *f = c->fbuf + 3 * a;
    v3_set(f, 0, 0, 0);
    for (int q = 0; q < R; q++)
      v3_axpy(f, c->lam[R * c->index[a] + q] / h, c->ilist[a].frame + 3 * q);
  }
  rfem_contact_set_forces(r, c->ilist, ni, c->fbuf);
  memset(c->slot_pos, 0, slots * sizeof(double));
  for (int k = 0; k < n; k++) {
    double *s = c->slot_pos +
                3 * ((size_t)c->list[k].obstacle * c->nslots + c->list[k].slot);
    for (int q = 0; q < R; q++)
      v3_axpy(s, 2.0 * c->nu[R * k + q] / (h * h), c->list[k].frame + 3 * q);
  }
  if (ni) {
    start_points(r, c->ilist, ni);
    double work = 0;
    for (int a = 0; a < ni; a++) {
      double dx[3];
      v3_sub(dx, c->ilist[a].x, c->xstart + 3 * a);
      work += v3_dot(c->fbuf + 3 * a, dx);
    }
    c->dissipated -= work;
  }
  /* the output's accelerations: the smooth ones and the jump's mean */
  for (int j = 0; j < r->nfree; j++)
    r->qdd[r->first_free + j] += c->W[j] / h;
}

/* The sum of the contacts' forces (N) of the multipliers nu, lam on the
 * step's list: per contact the larger of 2 |nu| / h^2 and |lam| / h. */
static double force_sum(const rfem_contacts *c, int n, double h) {
  double sum = 0;
  for (int k = 0; k < n; k++) {
    double p = 0, v = 0;
    for (int q = 0; q < c->rows; q++) {
      p += c->nu[c->rows * k + q] * c->nu[c->rows * k + q];
      v += c->lam[c->rows * k + q] * c->lam[c->rows * k + q];
    }
    sum += fmax(2.0 * sqrt(p) / (h * h), sqrt(v) / h);
  }
  return sum;
}

/* One step from the current state to t1. *g_open0, *g_open1: the smallest
 * gap of the candidates that were open at the start, there and at t1.
 * *force: the larger of the sums of its contacts' forces at the start and
 * the end (N), -1 if it had no contacts. */
static int nsga_step(rod_rfem *r, double t1, rod_step_stats *st,
                     double *g_open0, double *g_open1, double *force) {
  rfem_contacts *c = r->contact;
  const int R = c->rows;
  const double h = t1 - r->t;
  int n = 0;
  bool offsets = false;
  memset(c->U, 0, (size_t)r->nfree * sizeof(double));
  memset(c->W, 0, (size_t)r->nfree * sizeof(double));
  int status = begin(r, h, &n, &offsets, g_open0);
  if (status != ROD_OK)
    return status;
  *force = n > 0 ? force_sum(c, n, h) : -1;
  rfem_save(r);
  for (int it = 0;; it++) {
    if (it > 0) {
      rfem_restore(r);
      c->corrections++;
    }
    status =
        rfem_ga_step(r, t1, offsets ? c->U : NULL, offsets ? c->W : NULL, st);
    if (status != ROD_OK)
      return status;
    *g_open1 = end_contacts(r, n);
    if (n == 0) { /* nothing closed: no forces */
      finish(r, 0, 0, h);
      return ROD_OK;
    }
    const double mp = position_problem(r, n, h, &status);
    if (status != ROD_OK)
      return status;
    int ni = 0;
    const double mv = velocity_problem(r, n, h, &ni, &status);
    if (status != ROD_OK)
      return status;
    double deepest = INFINITY; /* of the step's contacts at its end */
    for (int k = 0; k < n; k++)
      deepest = fmin(deepest, c->list[k].gap);
    if (mp <= c->tol && mv <= c->tol && deepest >= -c->tol) {
      finish(r, n, ni, h);
      if (n > 0)
        *force = fmax(*force, force_sum(c, n, h));
      return ROD_OK;
    }
    if (it >= NSGA_MAX_ITERATIONS)
      return ROD_ENOCONV;
    /* the new multipliers: nu' on the list, lam' on the closed contacts
     * (0 elsewhere), and their offsets at the end state */
    const int rows = n * R;
    for (int i = 0; i < rows; i++)
      c->nu[i] += c->dnu[i];
    memset(c->lam, 0, (size_t)rows * sizeof(double));
    for (int a = 0; a < ni; a++)
      for (int q = 0; q < R; q++) {
        c->lam[R * c->index[a] + q] = c->l[R * a + q];
        c->l0[R * a + q] = c->nu[R * c->index[a] + q];
      }
    back_map(r, ni * R, c->l0, c->U);
    back_map(r, ni * R, c->l, c->W);
    offsets = true;
  }
}

/* locate_impact's trial: the step from the saved start T to t. */
typedef struct {
  double d0; /* J, the contacts' energy at T */
  rod_step_stats *st;
  double *force; /* the trial's contact force (nsga_step) */
} impact_trial;

static int nsga_trial(rod_rfem *r, double t, void *user, double *gap) {
  impact_trial *a = user;
  rfem_restore(r);
  r->contact->dissipated = a->d0;
  double ga;
  return nsga_step(r, t, a->st, &ga, gap, a->force);
}

/* The time in (t0, t1] where the smallest gap of the candidates open at
 * the step's start (T, the saved start) reaches zero, to the tolerance,
 * each trial a step from T; leaves the state there. d0: the contacts'
 * energy at T; *force: the last trial's (nsga_step). */
static int locate_impact(rod_rfem *r, double t0, double g0, double t1,
                         double g1, double d0, rod_step_stats *st,
                         double *force) {
  impact_trial a = {d0, st, force};
  return rfem_locate_zero_gap(r, t0, g0, t1, g1, nsga_trial, &a);
}

/* One step toward t_end from the saved start: to t_end, or to the
 * impact's time with the impulse there (*impact), a step whose smooth
 * Newton iteration or multipliers do not converge taken again over half
 * the span, down to 1/64. d0: the contacts' energy at the start; *force:
 * nsga_step's. */
static int advance_once(rod_rfem *r, double t_end, double d0,
                        rod_step_stats *st, double *force, bool *impact) {
  rfem_contacts *c = r->contact;
  const double t0 = r->t;
  double te = t_end, g0 = 0, g1 = 0;
  int status;
  *impact = false;
  for (int k = 0;; k++) {
    status = nsga_step(r, te, st, &g0, &g1, force);
    if ((status != ROD_ENOCONV && status != ROD_ENONFINITE) ||
        k == NSGA_MAX_HALVINGS)
      break;
    rfem_restore(r);
    c->dissipated = d0;
    te = t0 + 0.5 * (te - t0);
  }
  if (status != ROD_OK || g1 >= -c->tol)
    return status;
  /* a point that was apart entered a body: the impact's time, its impulse
   * there (the candidates are current), and the rest anew */
  *impact = true;
  status = locate_impact(r, t0, g0, te, g1, d0, st, force);
  if (status == ROD_OK)
    status = rfem_contact_impulse(r);
  if (status == ROD_OK)
    status = rfem_velocity_jump(r);
  return status;
}

/* The mechanical energy (J: kinetic, elastic and gravity's) of the saved
 * start of the last step, the chain's kinematics left at the current
 * state. */
static double start_energy(rod_rfem *r) {
  rod_chain_update(r->chain, r->saved_q, r->saved_v);
  double e =
      rod_chain_kinetic_energy(r->chain) + rod_chain_gravity_energy(r->chain);
  double *q = r->q, *Q = r->Q; /* rfem_elastic_energy reads r->q, r->Q */
  r->q = r->saved_q;
  r->Q = r->saved_Q;
  e += rfem_elastic_energy(r);
  r->q = q;
  r->Q = Q;
  rod_chain_update(r->chain, r->q, r->v);
  return e;
}

static double current_energy(rod_rfem *r) {
  rod_chain_update(r->chain, r->q, r->v);
  return rod_chain_kinetic_energy(r->chain) + rfem_elastic_energy(r) +
         rod_chain_gravity_energy(r->chain);
}

/* The spectral radii a step with contacts is retaken with, in turn, while
 * its mechanical energy grew by more than its forces may do (the energy
 * law of an impact with restitution 0 and no friction, which
 * generalized-alpha's own energy error on the modes the impacts excite,
 * damped by 10 % a step at the radius 0.9, can break). */
static const double guard_radii[] = {0.5, 0.0};

/* Generalized-alpha's spectral radius for the next step. */
static void set_radius(rod_rfem *r, double rho) {
  r->contact->rho = rho;
  rod_genalpha_set_params(r->ga, rod_genalpha_params_from_radius(rho));
}

/* The lag of generalized-alpha's algorithmic acceleration at the radius
 * rho, in steps: a_n = qdd(t_n + lag h) + O(h^2), lag = alpha_m - alpha_f
 * = (rho - 1) / (rho + 1) (0.9: -0.053; 0.5: -1/3; 0: -1). */
static double lag(double rho) { return (rho - 1.0) / (rho + 1.0); }

/* The generalized-alpha state with the algorithmic acceleration of the
 * radius rho for a step of h: a = qdd + lag h s, s (rad/s^3, nfree) the
 * slope of the true accelerations. A change of the radius that kept a
 * would leave it (lag' - lag) h s off (0.9 to 0: 0.95 h s), a velocity
 * error of about h^2 s in the next step. */
static void set_lag(rod_rfem *r, double rho, double h, const double *slope) {
  const int nf = r->nfree;
  const size_t bytes = (size_t)nf * sizeof(double);
  const double *qdd = rod_genalpha_qdd(r->ga);
  double *q = r->contact->U, *v = r->contact->W; /* free between steps */
  double *acc = r->full, *a = r->tau2;
  memcpy(q, rod_genalpha_q(r->ga), bytes);
  memcpy(v, rod_genalpha_v(r->ga), bytes);
  memcpy(acc, qdd, bytes);
  for (int i = 0; i < nf; i++)
    a[i] = qdd[i] + lag(rho) * h * slope[i];
  rod_genalpha_init(r->ga, rod_genalpha_time(r->ga), q, v, acc, a);
}

/* Back to the saved start (the contacts' energy d0 and the impulses'
 * count impacts0 there), to be stepped over h with the spectral radius
 * rho: a radius other than the scenario's starts from the algorithmic
 * acceleration of its own lag, with the slope of qdd over the last step
 * (before there is one, the saved acceleration stands). */
static void restart(rod_rfem *r, double rho, double d0, long impacts0,
                    double h) {
  rfem_contacts *c = r->contact;
  rfem_restore(r);
  c->dissipated = d0;
  c->impacts = impacts0;
  set_radius(r, rho);
  if (rho == r->sc.rfem.spectral_radius || c->history < 2 ||
      !(c->t_now > c->t_last))
    return;
  double *slope = r->extra; /* nlinks >= nfree */
  for (int i = 0; i < r->nfree; i++)
    slope[i] = (c->qdd_now[i] - c->qdd_last[i]) / (c->t_now - c->t_last);
  set_lag(r, rho, h, slope);
}

/* After a step retaken with another radius (from the saved start to the
 * current state): the scenario's radius rho again, with its lag and the
 * slope of qdd over that step. */
static void back_to_radius(rod_rfem *r, double rho) {
  set_radius(r, rho);
  const double span = r->t - r->saved_t;
  if (r->contact->history < 2 || !(span > 0))
    return;
  const double *qdd1 = rod_genalpha_qdd(r->ga);
  const double *qdd0 = r->saved_ga + 2 * (size_t)r->nfree;
  double *slope = r->extra;
  for (int i = 0; i < r->nfree; i++)
    slope[i] = (qdd1[i] - qdd0[i]) / span;
  set_lag(r, rho, span, slope);
}

/* The true accelerations at the start of a guarded step, kept with the
 * last one's for restart's slope. */
static void record_start(rod_rfem *r) {
  rfem_contacts *c = r->contact;
  if (c->history > 0 && r->t == c->t_now) /* a half of the same step */
    return;
  double *t = c->qdd_last;
  c->qdd_last = c->qdd_now;
  c->qdd_now = t;
  c->t_last = c->t_now;
  memcpy(c->qdd_now, rod_genalpha_qdd(r->ga),
         (size_t)r->nfree * sizeof(double));
  c->t_now = r->t;
  if (c->history < 2)
    c->history++;
}

/* advance_once from the saved start with the spectral radius rho. */
static int retake(rod_rfem *r, double rho, double t_end, double d0,
                  long impacts0, rod_step_stats *st, double *force,
                  bool *impact) {
  restart(r, rho, d0, impacts0, t_end - r->saved_t);
  return advance_once(r, t_end, d0, st, force, impact);
}

/* J: how far the mechanical energy rose above e0 beyond what the contact
 * forces F (N) may give while their points stay within the contact
 * tolerance of the bodies, 2 tol F. */
static double energy_excess(rod_rfem *r, double e0, double force) {
  return current_energy(r) - e0 - 2.0 * r->contact->tol * fmax(force, 0.0);
}

/* advance_once on a closed rod, a step that had contacts or an impact and
 * whose mechanical energy grew by more than its forces F may do while
 * their points stay within the contact tolerance of the bodies, 2 tol F,
 * taken again from its start with the radii of guard_radii below the
 * scenario's in turn (the algorithmic accelerations kept: restarting them
 * from the true ones made the retaken steps gain more, docs/contact.md).
 * If every radius breaks the law (or fails), the attempt that broke it
 * least stands. */
static int guarded_once(rod_rfem *r, double t_end, int depth,
                        rod_step_stats *st) {
  rfem_contacts *c = r->contact;
  const double rho = r->sc.rfem.spectral_radius, d0 = c->dissipated;
  const long impacts0 = c->impacts;
  double force;
  bool impact;
  if (c->closed && !r->drive.tip)
    record_start(r);
  int status = advance_once(r, t_end, d0, st, &force, &impact);
  if (!c->closed || r->drive.tip || status != ROD_OK || (force < 0 && !impact))
    return status;
  const double e0 = start_energy(r);
  double excess = energy_excess(r, e0, force);
  double best = excess, best_rho = rho, last_rho = rho;
  const int radii = sizeof guard_radii / sizeof guard_radii[0];
  for (int i = 0; i < radii && excess > 0; i++) {
    if (guard_radii[i] >= rho)
      continue;
    last_rho = guard_radii[i];
    status = retake(r, last_rho, t_end, d0, impacts0, st, &force, &impact);
    if (i == 0)
      c->retaken_half++;
    else
      c->retaken_zero++;
    excess = status == ROD_OK ? energy_excess(r, e0, force) : INFINITY;
    if (excess < best) {
      best = excess;
      best_rho = last_rho;
    }
  }
  if (excess > 0 && depth < 3) {
    /* half the span, each half guarded */
    restart(r, rho, d0, impacts0, t_end - r->saved_t);
    c->halved++;
    return guarded_once(r, r->t + 0.5 * (t_end - r->t), depth + 1, st);
  }
  if (excess > 0 && best_rho != last_rho) /* the least breach stands */
    status = retake(r, best_rho, t_end, d0, impacts0, st, &force, &impact);
  if (c->rho != rho)
    back_to_radius(r, rho);
  return status;
}

int rfem_contact_nsga_advance(rod_rfem *r, double t_end, rod_step_stats *st) {
  const double eps = 1e-12 * r->sc.time.dt;
  while (r->t < t_end - eps) {
    const int status = guarded_once(r, t_end, 0, st);
    if (status != ROD_OK)
      return status;
  }
  return ROD_OK;
}

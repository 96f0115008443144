/* The static equilibrium of the RFEM chain with contact (the resting rod):
 * the joint angles that minimise the potential (springs, gravity, static
 * loads) with every gap >= 0, i.e. K q - G(q) = J^T f, f >= 0, gap >= 0,
 * f gap = 0 (frictionless: the zero friction force lies in every cone, so
 * the frictionless equilibrium is an equilibrium with friction too).
 *
 * Sequential quadratic programming: at the iterate q with contact forces f
 * (dead loads, their stiffness in the Jacobian H = K - dG/dq), the Newton
 * step of the contact problem
 *   min 1/2 dq^T H dq + r^T dq  subject to  gap + J dq >= 0,
 * r = K q - G - J^T f, in its dual form with the Delassus matrix
 * J H^-1 J^T (H dense: the load stiffness couples every joint; LAPACKE
 * Cholesky), from the straight rod until the residual meets
 * solver.tolerance and the gaps the contact tolerance. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "core/v3.h"
#include "rfem/rfem_contact.h"
#include "rfem/rfem_contact_static.h"
#include "rfem/rfem_static_residual.h"

/* H (scaled Jacobian / scale) into c->H, factored; a shift of growing
 * multiples of its largest diagonal where it is not positive definite. */
static int factor_jacobian(rod_rfem *r, const double *Jac, double scale) {
  rfem_contacts *c = r->contact;
  const int nf = r->nfree;
  double dmax = 0;
  for (int i = 0; i < nf; i++)
    dmax = fmax(dmax, fabs(Jac[i + (size_t)i * nf]) / scale);
  for (double shift = 0; shift <= 1e3 * dmax;
       shift = shift > 0 ? 10 * shift : 1e-10 * dmax) {
    for (int i = 0; i < nf * nf; i++)
      c->H[i] = Jac[i] / scale;
    for (int i = 0; i < nf; i++)
      c->H[i + (size_t)i * nf] += shift;
    lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', nf, c->H, nf);
    if (info == 0)
      return ROD_OK;
    if (info < 0)
      return ROD_EINVAL;
  }
  return ROD_ESING;
}

/* True when the applied forces and the candidates meet the contact
 * conditions: no gap below -tol, a pushed point within tol of its body. */
static bool complementary(const rfem_contacts *c) {
  if (c->gap_min < -c->tol)
    return false;
  for (int k = 0; k < c->napplied; k++) {
    const rfem_contact *a = &c->applied[k];
    if (v3_norm(c->applied_force + 3 * k) == 0)
      continue;
    bool found = false;
    for (int j = 0; j < c->count && !found; j++)
      if (c->c[j].obstacle == a->obstacle && c->c[j].slot == a->slot) {
        found = true;
        if (fabs(c->c[j].gap) > c->tol)
          return false;
      }
    if (!found)
      return false;
  }
  return true;
}

int rfem_contact_static(rod_rfem *r, bool free_solved, rod_step_stats *st) {
  rfem_contacts *c = r->contact;
  const int nf = r->nfree;
  const double scale = r->L / r->EI;
  double *x = r->xs, *res = r->rs, *Jac = r->kbuf;
  /* the contact-free equilibrium (current) may touch nothing */
  if (free_solved) {
    rfem_contact_detect(r, c->margin);
    if (c->gap_min >= -c->tol)
      return ROD_OK;
  }
  /* from the unloaded shape */
  memcpy(x, r->q0 + r->first_free, (size_t)nf * sizeof(double));
  const int max_it = r->sc.solver.max_iterations;
  for (int it = 0;; it++) {
    rfem_static_residual(x, res, Jac, r);
    rfem_contact_detect(r, INFINITY); /* every point may touch */
    double rmax = 0;
    for (int i = 0; i < nf; i++)
      rmax = fmax(rmax, fabs(res[i]));
    st->residual = rmax;

    if (rmax <= r->sc.solver.tolerance && complementary(c))
      break;
    if (it >= max_it)
      return ROD_ENOCONV;
    st->iterations++;
    int status = factor_jacobian(r, Jac, scale);
    if (status != ROD_OK)
      return status;
    /* the candidates, their forces so far (normal components) */
    const int n = c->count;
    const int rows = rfem_contact_jacobian(r, c->c, n, 1);
    for (int k = 0; k < n; k++) {
      const double *f =
          c->slot_force +
          3 * ((size_t)c->c[k].obstacle * c->nslots + c->c[k].slot);
      c->l0[k] = v3_dot(f, c->c[k].frame);
    }
    /* Y = H^-1 J^T, z = H^-1 r (unscaled), G = J Y */
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < nf; j++)
        c->Y[j + (size_t)i * nf] = c->J[i + (size_t)j * rows];
    for (int j = 0; j < nf; j++)
      c->dq[j] = res[j] / scale;
    if (rows > 0 && LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', nf, rows, c->H, nf,
                                   c->Y, nf) != 0)
      return ROD_EINVAL;
    if (LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', nf, 1, c->H, nf, c->dq, nf) != 0)
      return ROD_EINVAL;
    for (int i = 0; i < rows; i++) {
      for (int k = 0; k <= i; k++) {
        double s = 0;
        for (int j = 0; j < nf; j++)
          s += c->J[i + (size_t)j * rows] * c->Y[j + (size_t)k * nf];
        c->G[i + (size_t)k * rows] = c->G[k + (size_t)i * rows] = s;
      }
    }
    /* gap + J dq >= 0 with dq = Y (f - f0) - z: b = gap - J z - G f0 */
    for (int i = 0; i < rows; i++) {
      double s = c->c[i].gap;
      for (int j = 0; j < nf; j++)
        s -= c->J[i + (size_t)j * rows] * c->dq[j];
      for (int k = 0; k < rows; k++)
        s -= c->G[i + (size_t)k * rows] * c->l0[k];
      c->b[i] = s;
    }
    if (rows > 0) {
      status = rod_contact_dual(c->solver, rows, c->G, c->b, c->l, NULL);
      if (status != ROD_OK)
        return status;
    }
    /* the step, at most 0.2 rad on any joint (the linearised gaps hold
     * near the iterate only) */
    double big = 0;
    for (int j = 0; j < nf; j++) {
      double s = -c->dq[j];
      for (int k = 0; k < rows; k++)
        s += c->Y[j + (size_t)k * nf] * (c->l[k] - c->l0[k]);
      c->dq[j] = s;
      big = fmax(big, fabs(s));
    }
    const double cut = big > 0.2 ? 0.2 / big : 1.0;
    for (int j = 0; j < nf; j++)
      x[j] += cut * c->dq[j];
    for (int k = 0; k < n; k++)
      v3_scale(c->fbuf + 3 * k, c->l[k], c->c[k].frame);
    rfem_contact_set_forces(r, c->c, n, c->fbuf);
  }
  /* the state at the solution: q and Maxwell torques, the forces applied;
   * the first step after the release may change them at once */
  rfem_static_residual(x, res, NULL, r);
  return ROD_OK;
}

/* The contact problem of the RFEM chain on the rows of c->J, shared by both
 * contact steps (rfem_contact_step.c, rfem_contact_nsga.c): its solve on the
 * Delassus matrix (the dual active-set method without friction, Gauss-Seidel
 * on the cones with), the contact velocities J v, the impulse of an impact
 * (Newton's restitution, Coulomb's law; the dual problem on J M^-1 J^T or,
 * for the tests' cross-check, the primal one on M), and the time where the
 * smallest gap reaches zero (the Illinois variant of regula falsi). */
#include <math.h>
#include <string.h>

#include "rfem/rfem_contact.h"

enum { RFEM_MAX_LOCATE = 60 };

/* Solve w = G l + b on the rows of c->J for the n contacts of list (c->l
 * holds a warm start): the dual active-set method without friction,
 * Gauss-Seidel on the cones with. */
int rfem_contact_solve(rod_rfem *r, const rfem_contact *list, int n) {
  rfem_contacts *c = r->contact;
  if (c->rows == 1)
    return rod_contact_dual(c->solver, n, c->G, c->b, c->l, NULL);
  for (int k = 0; k < n; k++)
    c->mu[k] = list[k].mu;
  int st = rod_contact_coulomb(c->solver, n, c->G, c->b, c->mu, 1e-12, 2000,
                               c->l, NULL);
  return st == ROD_ENOCONV ? ROD_OK : st; /* the last sweep's forces */
}

/* The contact velocities J v (rows) of the current state. */
void rfem_contact_rates(const rod_rfem *r, int rows, const double *v,
                        double *u) {
  const rfem_contacts *c = r->contact;
  const int f0 = r->first_free;
  for (int i = 0; i < rows; i++) {
    double s = f0 > 0 ? c->Jp[i] * v[0] : 0.0;
    for (int j = 0; j < r->nfree; j++)
      s += c->J[i + (size_t)j * rows] * v[f0 + j];
    u[i] = s;
  }
}

/* The frictionless impulse by the primal problem: v+ closest to v- in the
 * metric of the mass matrix M (composite-rigid-body algorithm, the free
 * joints' block) with J v+ >= -e min(J v-, 0). */
static int impulse_primal(rod_rfem *r, int n, const double *u) {
  rfem_contacts *c = r->contact;
  const int nl = r->nlinks, nf = r->nfree, f0 = r->first_free;
  rod_chain_crba(r->chain, c->M);
  for (int b = 0; b < nf; b++) /* pack the free block in place */
    for (int a = 0; a < nf; a++)
      c->M[a + (size_t)b * nf] = c->M[(f0 + a) + (size_t)(f0 + b) * nl];
  for (int k = 0; k < n; k++) /* J v+ + Jp v0 >= -e min(u-, 0) */
    c->b[k] = -c->c[k].e * fmin(u[k], 0.0) - (f0 > 0 ? c->Jp[k] * r->v[0] : 0);
  double *v = c->vbuf;
  const double before = rod_chain_kinetic_energy(r->chain);
  int st = rod_contact_primal(c->solver, nf, n, c->M, r->v + f0, c->J, c->b, v,
                              c->l, NULL);
  if (st != ROD_OK)
    return st;
  memcpy(r->v + f0, v, (size_t)nf * sizeof(double));
  rod_chain_update(r->chain, r->q, r->v);
  c->dissipated += before - rod_chain_kinetic_energy(r->chain);
  c->impacts++;
  return ROD_OK;
}

int rfem_contact_impulse(rod_rfem *r) {
  rfem_contacts *c = r->contact;
  c->fresh = false; /* the candidates are filtered here */
  int n = 0;
  for (int k = 0; k < c->count; k++)
    if (c->c[k].gap <= c->tol)
      c->c[n++] = c->c[k];
  c->count = n;
  if (n == 0)
    return ROD_OK;
  const int rows = rfem_contact_jacobian(r, c->c, n, c->rows);
  double *u = c->l0;
  rfem_contact_rates(r, rows, r->v, u);
  bool approaching = false;
  for (int k = 0; k < n; k++)
    approaching = approaching || u[c->rows * k] < 0;
  if (!approaching)
    return ROD_OK;
  if (c->use_primal && c->rows == 1)
    return impulse_primal(r, n, u);
  int st = rfem_contact_delassus(r, rows, NULL);
  if (st != ROD_OK)
    return st;
  for (int i = 0; i < rows; i++)
    c->b[i] = u[i];
  for (int k = 0; k < n; k++) /* w_n = u_n+ + e min(u_n-, 0) >= 0 */
    c->b[c->rows * k] += c->c[k].e * fmin(u[c->rows * k], 0.0);
  memset(c->l, 0, (size_t)rows * sizeof(double));
  st = rfem_contact_solve(r, c->c, n);
  if (st != ROD_OK)
    return st;
  const double before = rod_chain_kinetic_energy(r->chain);
  const int f0 = r->first_free;
  for (int j = 0; j < r->nfree; j++)
    for (int i = 0; i < rows; i++)
      r->v[f0 + j] += c->Y[j + (size_t)i * r->nfree] * c->l[i];
  rod_chain_update(r->chain, r->q, r->v);
  c->dissipated += before - rod_chain_kinetic_energy(r->chain);
  c->impacts++;
  return ROD_OK;
}

int rfem_locate_zero_gap(rod_rfem *r, double t0, double g0, double t1,
                         double g1, rfem_gap_trial trial, void *user) {
  const double tol = r->contact->tol;
  int side = 0;
  for (int it = 0; it < RFEM_MAX_LOCATE; it++) {
    double t = (t0 * g1 - t1 * g0) / (g1 - g0);
    if (!(t > t0 && t < t1))
      t = 0.5 * (t0 + t1);
    double g;
    int status = trial(r, t, user, &g);
    if (status != ROD_OK)
      return status;
    if (fabs(g) <= tol || t1 - t0 <= 1e-12 * r->sc.time.dt)
      return ROD_OK;
    if (g > 0) {
      t0 = t;
      g0 = g;
      if (side == 1)
        g1 *= 0.5;
      side = 1;
    } else {
      t1 = t;
      g1 = g;
      if (side == -1)
        g0 *= 0.5;
      side = -1;
    }
  }
  return ROD_ENOCONV;
}

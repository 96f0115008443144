/* The chain's workspace, links and forward kinematics: link transforms,
 * world poses, body velocities (Featherstone 2008, eq. 5.7-5.8) and the
 * quantities derived from them (point motion, energies, point forces). */
#include <stdlib.h>
#include <string.h>

#include "chain_internal.h"
#include "chain_spatial.h"
#include "rod/status.h"

void rod_chain_free(rod_chain *c) {
  if (!c)
    return;
  free(c->link);
  free(c->body_I);
  free(c->q);
  free(c->dq);
  free(c->E);
  free(c->R);
  free(c->p);
  free(c->v);
  free(c->c);
  free(c->IA);
  free(c->pA);
  free(c->U);
  free(c->D);
  free(c->u);
  free(c->acc);
  free(c->f);
  free(c->h);
  free(c->rhs);
  free(c->free_index);
  free(c);
}

rod_chain *rod_chain_alloc(int n) {
  if (n < 1)
    return NULL;
  rod_chain *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  const size_t N = (size_t)n;
  c->n = n;
  c->link = calloc(N, sizeof *c->link);
  c->body_I = calloc(36 * N, sizeof(double));
  c->q = calloc(N, sizeof(double));
  c->dq = calloc(N, sizeof(double));
  c->E = calloc(9 * N, sizeof(double));
  c->R = calloc(9 * N, sizeof(double));
  c->p = calloc(3 * N, sizeof(double));
  c->v = calloc(6 * N, sizeof(double));
  c->c = calloc(6 * N, sizeof(double));
  c->IA = calloc(36 * N, sizeof(double));
  c->pA = calloc(6 * N, sizeof(double));
  c->U = calloc(6 * N, sizeof(double));
  c->D = calloc(N, sizeof(double));
  c->u = calloc(N, sizeof(double));
  c->acc = calloc(6 * N, sizeof(double));
  c->f = calloc(6 * N, sizeof(double));
  c->h = calloc(N, sizeof(double));
  c->rhs = calloc(N, sizeof(double));
  c->free_index = calloc(N, sizeof(int));
  if (!c->link || !c->body_I || !c->q || !c->dq || !c->E || !c->R || !c->p ||
      !c->v || !c->c || !c->IA || !c->pA || !c->U || !c->D || !c->u ||
      !c->acc || !c->f || !c->h || !c->rhs || !c->free_index) {
    rod_chain_free(c);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    rod_chain_link *l = &c->link[i];
    l->rotation[0] = l->rotation[4] = l->rotation[8] = 1.0;
    l->axis[2] = 1.0;
  }
  rod_chain_update(c, c->q, NULL);
  return c;
}

int rod_chain_size(const rod_chain *c) { return c->n; }

int rod_chain_set_link(rod_chain *c, int i, const rod_chain_link *link) {
  if (i < 0 || i >= c->n || !(link->mass >= 0) || !(link->armature >= 0))
    return ROD_EINVAL;
  double a = v3_norm(link->axis);
  if (!(a > 0))
    return ROD_EINVAL;
  c->link[i] = *link;
  v3_scale(c->link[i].axis, 1.0 / a, link->axis);
  sp_body_matrix(c->body_I + 36 * (size_t)i, link->mass, link->com,
                 link->inertia);
  return ROD_OK;
}

const rod_chain_link *rod_chain_get_link(const rod_chain *c, int i) {
  return &c->link[i];
}

void rod_chain_set_gravity(rod_chain *c, const double g[3]) {
  v3_copy(c->gravity, g);
}

void rod_chain_set_base(rod_chain *c, const double R[9], const double p[3],
                        const double v[6], const double a[6]) {
  c->moving = R != NULL;
  if (!R)
    return;
  memcpy(c->base_R, R, sizeof c->base_R);
  for (int k = 0; k < 3; k++)
    c->base_p[k] = p ? p[k] : 0.0;
  for (int k = 0; k < 6; k++) {
    c->base_v[k] = v ? v[k] : 0.0;
    c->base_a[k] = a ? a[k] : 0.0;
  }
}

void rod_chain_update(rod_chain *c, const double *q, const double *dq) {
  const double zero6[6] = {0};
  for (int i = 0; i < c->n; i++) {
    const rod_chain_link *l = &c->link[i];
    c->q[i] = q[i];
    c->dq[i] = dq ? dq[i] : 0.0;
    double turn[9];
    double *E = c->E + 9 * i, *R = c->R + 9 * i, *p = c->p + 3 * i;
    /* x_body = turn^T x_joint = turn^T rotation (x_parent - offset) */
    sp_axis_rotation(turn, l->axis, q[i]);
    m3_mul_tn(E, turn, l->rotation);
    const double *Rp = i ? c->R + 9 * (i - 1) : NULL;
    const double *pp = i ? c->p + 3 * (i - 1) : NULL;
    const double *vp = i ? c->v + 6 * (i - 1) : zero6;
    if (!i && c->moving) { /* the moving base is link 0's parent */
      Rp = c->base_R;
      pp = c->base_p;
      vp = c->base_v;
    }
    if (Rp) { /* R_i = R_parent E_i^T, p_i = p_parent + R_parent offset */
      double off[3];
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          R[3 * a + b] = Rp[3 * a] * E[3 * b] + Rp[3 * a + 1] * E[3 * b + 1] +
                         Rp[3 * a + 2] * E[3 * b + 2];
      m3_mul_v(off, Rp, l->offset);
      v3_add(p, pp, off);
    } else {
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          R[3 * a + b] = E[3 * b + a];
      v3_copy(p, l->offset);
    }
    /* v_i = X_i v_parent + S dq_i; c_i = v_i x (S dq_i) (eq. 5.7) */
    double *v = c->v + 6 * i, Sdq[6] = {0};
    sp_xform_motion(v, E, l->offset, vp);
    v3_scale(Sdq, c->dq[i], l->axis);
    v3_add(v, v, Sdq);
    sp_cross_motion(c->c + 6 * i, v, Sdq);
  }
}

void rod_chain_pose(const rod_chain *c, int i, double R[9], double p[3]) {
  if (R)
    memcpy(R, c->R + 9 * i, 9 * sizeof(double));
  if (p)
    v3_copy(p, c->p + 3 * i);
}

const double *rod_chain_velocity(const rod_chain *c, int i) {
  return c->v + 6 * i;
}

void rod_chain_point(const rod_chain *c, int i, const double r[3], double p[3],
                     double v[3]) {
  const double *R = c->R + 9 * i;
  if (p) {
    m3_mul_v(p, R, r);
    v3_add(p, p, c->p + 3 * i);
  }
  if (v) { /* v_point = R (v_O + w x r) */
    const double *s = c->v + 6 * i;
    double t[3];
    v3_cross(t, s, r);
    v3_add(t, t, s + 3);
    m3_mul_v(v, R, t);
  }
}

double rod_chain_kinetic_energy(const rod_chain *c) {
  double T = 0;
  for (int i = 0; i < c->n; i++) {
    const rod_chain_link *l = &c->link[i];
    double Iv[6];
    const double *v = c->v + 6 * i;
    sp_body_apply(Iv, l->mass, l->com, l->inertia, v);
    for (int k = 0; k < 6; k++)
      T += 0.5 * v[k] * Iv[k];
  }
  return T;
}

double rod_chain_gravity_energy(const rod_chain *c) {
  double V = 0;
  for (int i = 0; i < c->n; i++) {
    double p[3];
    rod_chain_point(c, i, c->link[i].com, p, NULL);
    V -= c->link[i].mass * v3_dot(c->gravity, p);
  }
  return V;
}

void rod_chain_add_point_force(const rod_chain *c, int i, const double r[3],
                               const double F[3], double *fext) {
  double Fb[3], n[3];
  m3_mul_tv(Fb, c->R + 9 * i, F);
  v3_cross(n, r, Fb);
  double *f = fext + 6 * i;
  v3_add(f, f, n);
  v3_add(f + 3, f + 3, Fb);
}

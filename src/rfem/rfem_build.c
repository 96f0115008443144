/* The RFEM chain of a scenario (the RFEM tutorial "Modeling deformable
 * objects", 2022; rfem.* keys): element geometry of the two layouts, solid
 * cylinder mass and inertia, joint stiffness E I / l and G J / l, damping
 * with the retardation time B / EI, the motor link, and the output points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tendon_route.h"
#include "core/v3.h"
#include "rfem/rfem_build.h"

/* Normal of the bending plane of a planar chain: the plane of
 * base.direction d and gravity; without gravity (or with gravity along d)
 * the first load that bends the rod, then the first tendon's offset at its
 * start, then the motor axis, then d1. */
static void plane_normal(const rod_rfem *r, double a[3]) {
  const rod_scenario *sc = &r->sc;
  double d[3], cand[4][3];
  v3_copy(d, sc->base.direction);
  v3_normalize(d);
  if (!rod_model_straight(&r->model)) { /* the plane the rod curves in */
    double u[3], us[3];
    rod_model_precurvature(&r->model, 0.0, u, us);
    for (int i = 0; v3_norm(u) == 0 && i < r->model.precurvature_rows; i++)
      v3_copy(u, r->model.precurvature_table + 4 * i + 1);
    m3_mul_v(a, r->model.base_R, u);
    v3_normalize(a);
    return;
  }
  int nc = 0;
  v3_copy(cand[nc++], sc->environment.gravity);
  v3_add(cand[nc], sc->tip.force, sc->tip.preload);
  nc++;
  if (sc->impulse.enabled)
    v3_copy(cand[nc++], sc->impulse.direction);
  for (int i = 0; i < nc; i++) {
    v3_cross(a, d, cand[i]);
    if (v3_norm(a) > 1e-9 * v3_norm(cand[i])) {
      v3_normalize(a);
      return;
    }
  }
  for (int i = 0; i < sc->tendons.count; i++) { /* towards a tendon */
    double rt[6], off[3];
    rod_tendon_route(sc, r->inputs, i, sc->tendons.item[i].start, rt);
    v3_set(off, rt[0], rt[1], 0.0);
    m3_mul_v(cand[0], r->model.base_R, off);
    v3_cross(a, d, cand[0]);
    if (v3_norm(a) > 1e-9 * v3_norm(cand[0])) {
      v3_normalize(a);
      return;
    }
  }
  if (sc->motor.enabled) { /* the motor's plane of rotation */
    v3_copy(a, sc->motor.axis);
    v3_normalize(a);
    v3_axpy(a, -v3_dot(a, d), d);
    if (v3_norm(a) > 1e-9) {
      v3_normalize(a);
      return;
    }
  }
  v3_set(a, r->model.base_R[0], r->model.base_R[3], r->model.base_R[6]);
}

/* Cylinder (a tube of inner diameter d_i) of length len along d3 from the
 * body origin (the RFEM tutorial "Modeling deformable objects", 2022): m =
 * rho A len, I_33 = m (d^2 + d_i^2) / 8, I_11 = I_22 = m (3 (d^2 + d_i^2) + 4
 * len^2) / 48 about the centre of mass. The cross-section's rotary inertia
 * is always in: the torsion joint needs I_33. */
static void cylinder_body(const rod_rfem *r, double len, rod_chain_link *l) {
  const double dia = r->sc.rod.diameter, di = r->sc.rod.inner_diameter;
  l->mass = r->model.rho_area * len;
  v3_set(l->com, 0, 0, 0.5 * len);
  memset(l->inertia, 0, sizeof l->inertia);
  l->inertia[0] = l->inertia[4] =
      l->mass * (3 * dia * dia + 3 * di * di + 4 * len * len) / 48.0;
  l->inertia[8] = (l->mass * dia * dia + l->mass * di * di) / 8.0;
}

/* The attached tip body (tip.release = false) joins the last element's
 * body: mass m_b at the centre c_b = (0, 0, len) + tip.offset (the body
 * frame is the end's material frame), its inertia about c_b; the sum's
 * centre of mass and inertia by the parallel-axis theorem, I = sum I_k +
 * m_k (|d_k|^2 1 - d_k d_k^T), d_k = c_k - c. */
static void attach_tip_body(const rod_rfem *r, double len, rod_chain_link *l) {
  const rod_scenario *sc = &r->sc;
  const double mb = sc->tip.mass, m = l->mass + mb;
  if (!(m > 0))
    return;
  double cb[3], c[3];
  v3_set(cb, sc->tip.offset[0], sc->tip.offset[1], sc->tip.offset[2] + len);
  for (int i = 0; i < 3; i++)
    c[i] = (l->mass * l->com[i] + mb * cb[i]) / m;
  const double *ck[2] = {l->com, cb}, mk[2] = {l->mass, mb};
  double I[9];
  memcpy(I, l->inertia, sizeof I);
  for (int i = 0; i < 3; i++)
    I[4 * i] += sc->tip.inertia[i];
  for (int b = 0; b < 2; b++) {
    double d[3];
    v3_sub(d, ck[b], c);
    const double dd = v3_dot(d, d);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        I[3 * i + j] += mk[b] * ((i == j ? dd : 0.0) - d[i] * d[j]);
  }
  l->mass = m;
  v3_copy(l->com, c);
  memcpy(l->inertia, I, sizeof I);
}

static int allocate(rod_rfem *r) {
  const size_t N = (size_t)r->nlinks, E = (size_t)r->nelements;
  r->chain = rod_chain_alloc(r->nlinks);
  r->role = calloc(N, sizeof *r->role);
  r->k = calloc(N, sizeof(double));
  r->c = calloc(N, sizeof(double));
  r->q0 = calloc(N, sizeof(double));
  r->el = calloc(E, sizeof *r->el);
  r->q = calloc(N, sizeof(double));
  r->v = calloc(N, sizeof(double));
  r->qdd = calloc(N, sizeof(double));
  r->Q = calloc(N, sizeof(double));
  r->Q_new = calloc(N, sizeof(double));
  r->v_start = calloc(N, sizeof(double));
  r->fext = calloc(6 * N, sizeof(double));
  r->tau = calloc(N, sizeof(double));
  r->tau2 = calloc(N, sizeof(double));
  r->extra = calloc(N, sizeof(double));
  r->full = calloc(N, sizeof(double));
  r->xs = calloc(2 * N, sizeof(double));
  r->rs = calloc(N, sizeof(double));
  r->kbuf = calloc(N * N, sizeof(double));
  r->ct_acc = calloc(N, sizeof(double));
  r->ct_tau = calloc(N, sizeof(double));
  r->npoints = r->nelements + 1;
  const size_t P = (size_t)r->npoints;
  r->s_out = calloc(P, sizeof(double));
  r->out_pos = calloc(3 * P, sizeof(double));
  r->out_quat = calloc(4 * P, sizeof(double));
  r->out_vel = calloc(3 * P, sizeof(double));
  r->out_force = calloc(3 * P, sizeof(double));
  r->out_moment = calloc(3 * P, sizeof(double));
  if (!r->chain || !r->role || !r->k || !r->c || !r->q0 || !r->el || !r->q ||
      !r->v || !r->qdd || !r->Q || !r->Q_new || !r->v_start || !r->fext ||
      !r->tau || !r->tau2 || !r->extra || !r->full || !r->xs || !r->rs ||
      !r->kbuf || !r->ct_acc || !r->ct_tau || !r->s_out || !r->out_pos ||
      !r->out_quat || !r->out_vel)
    return ROD_ENOMEM;
  return ROD_OK;
}

/* Link 0: the motor joint about motor.axis through the base point, in the
 * clamp's material frame R(0). */
static void motor_link(rod_rfem *r, double first_length) {
  const rod_scenario *sc = &r->sc;
  const double *R0 = r->model.base_R;
  rod_chain_link l;
  memset(&l, 0, sizeof l);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      l.rotation[3 * a + b] = R0[3 * b + a]; /* world -> material */
  v3_copy(l.offset, sc->base.position);
  if (sc->motor.enabled)
    m3_mul_tv(l.axis, R0, sc->motor.axis);
  else
    v3_set(l.axis, 1, 0, 0);
  if (first_length > 0)
    cylinder_body(r, first_length, &l);
  r->prescribed = !(sc->motor.enabled && sc->motor.kp > 0);
  l.prescribed = r->prescribed;
  if (!r->prescribed) {
    l.armature = sc->motor.inertia;
    r->k[0] = sc->motor.kp;
    r->c[0] = sc->motor.kd;
  }
  r->role[0] = RFEM_MOTOR;
  rod_chain_set_link(r->chain, 0, &l);
}

/* Intrinsic x-y-z angles (a, b, c) of the rotation E (row-major): E =
 * Rx(a) Ry(b) Rz(c), the order of a 3D element's joints (d1, d2, d3). */
static void xyz_angles(const double E[9], double ang[3]) {
  ang[1] = asin(fmax(-1.0, fmin(1.0, E[2])));
  ang[0] = atan2(-E[5], E[8]);
  ang[2] = atan2(-E[1], E[0]);
}

/* Rest angles of the springs from the precurvature: the element of body e
 * turns from the previous body by theta = int u* ds between the bodies'
 * centres (a body fixed to the clamp counts from s = 0), the exact turn
 * of a rod of constant u* between them. ROD_EINVAL when a planar chain
 * would need a turn out of its plane. */
static int rest_angles(rod_rfem *r) {
  const int per = r->sc.rfem.planar ? 1 : 3;
  double axis[3];
  m3_mul_tv(axis, r->model.base_R, r->plane_axis);
  if (per == 1 && fabs(axis[2]) > 1e-12)
    return ROD_EINVAL; /* a twist (u*_3) turns out of any plane */
  for (int e = 0; e < r->nelements; e++) {
    const rfem_element *el = &r->el[e];
    if (el->link == 0)
      continue; /* fixed to the clamp */
    const double b = el->s0 + 0.5 * el->length;
    const double a = e == 0 || r->el[e - 1].link == 0
                         ? 0.0
                         : r->el[e - 1].s0 + 0.5 * r->el[e - 1].length;
    double theta[3];
    rod_model_precurvature_integral(&r->model, a, b, theta);
    const int first = el->link - per + 1;
    if (per == 1) {
      const double along = v3_dot(theta, axis);
      double off[3];
      v3_copy(off, theta);
      v3_axpy(off, -along, axis);
      if (v3_norm(off) > 1e-12 * (1.0 + fabs(along)))
        return ROD_EINVAL;
      r->q0[first] = along;
      continue;
    }
    double h[4], E[9], n = v3_norm(theta), unit[3] = {1, 0, 0};
    if (n > 0)
      v3_scale(unit, 1.0 / n, theta);
    quat_axis_angle(h, unit, n);
    quat_to_R(E, h);
    xyz_angles(E, r->q0 + first);
  }
  return ROD_OK;
}

/* The element holding the material point at arclength pos and the point's
 * distance x along it; -1 for a point on no element (the clamp of the
 * uniform layout, whose joint 1 sits at s = 0). */
static void locate(const rod_rfem *r, double pos, int *element, double *x) {
  int p = 0;
  while (p + 1 < r->nelements && pos >= r->el[p + 1].s0)
    p++;
  *element = -1;
  if (pos >= r->el[0].s0) { /* uniform: 0 is joint 1, an element start */
    *element = p;
    *x = pos - r->el[p].s0;
  }
}

int rfem_build(rod_rfem *r) {
  const rod_scenario *sc = &r->sc;
  const int n = sc->rfem.segments;
  const bool planar = sc->rfem.planar;
  const bool centered = sc->rfem.layout == ROD_LAYOUT_CENTERED;
  const int per = planar ? 1 : 3;
  const double L = r->L, l = L / n;
  r->nlinks = 1 + per * n;
  r->nelements = centered ? n + 1 : n;
  int st = allocate(r);
  if (st != ROD_OK)
    return st;
  rod_chain_set_gravity(r->chain, sc->environment.gravity);
  r->maxwell = sc->rfem.joint == ROD_JOINT_MAXWELL;
  r->relax = sc->rfem.maxwell_time;
  plane_normal(r, r->plane_axis);
  double plane_local[3]; /* the bending axis in the material frame */
  m3_mul_tv(plane_local, r->model.base_R, r->plane_axis);

  int e = 0;
  if (centered) /* the half element fixed to the clamp */
    r->el[e++] = (rfem_element){0.0, 0.5 * l, 0};
  motor_link(r, centered ? 0.5 * l : 0.0);
  r->first_free = r->prescribed ? 1 : 0;
  r->nfree = r->nlinks - r->first_free;

  const double k_bend = r->EI / l, k_twist = r->model.K[2] / l;
  const double tau_r = r->model.retardation; /* B / EI, s */
  double prev_length = centered ? 0.5 * l : 0.0;
  for (int j = 1; j <= n; j++) {
    const double s_j = centered ? (j - 0.5) * l : (j - 1) * l;
    const double len = (centered && j == n) ? 0.5 * l : l;
    for (int m = 0; m < per; m++) {
      const int i = 1 + per * (j - 1) + m;
      rod_chain_link lk;
      memset(&lk, 0, sizeof lk);
      lk.rotation[0] = lk.rotation[4] = lk.rotation[8] = 1.0;
      if (m == 0)
        v3_set(lk.offset, 0, 0, prev_length);
      if (planar)
        v3_copy(lk.axis, plane_local);
      else
        lk.axis[m] = 1.0; /* d1, d2 bending; d3 torsion */
      r->role[i] = (!planar && m == 2) ? RFEM_TORSION : RFEM_BEND;
      r->k[i] = r->role[i] == RFEM_TORSION ? k_twist : k_bend;
      r->c[i] = tau_r * r->k[i];
      if (m == per - 1) {
        cylinder_body(r, len, &lk);
        if (j == n && !sc->tip.release)
          attach_tip_body(r, len, &lk);
        r->el[e++] = (rfem_element){s_j, len, i};
      }
      rod_chain_set_link(r->chain, i, &lk);
    }
    prev_length = len;
  }

  for (int p = 0; p < r->nelements; p++)
    r->s_out[p] = r->el[p].s0;
  r->s_out[r->nelements] = L;
  r->tip_element = r->nelements - 1;
  if (!rod_model_straight(&r->model) && rest_angles(r) != ROD_OK)
    return ROD_EINVAL;
  r->impulse_element = -1;
  if (sc->impulse.enabled) {
    v3_copy(r->impulse_dir, sc->impulse.direction);
    v3_normalize(r->impulse_dir);
    locate(r, sc->impulse.position, &r->impulse_element, &r->impulse_x);
  }
  for (int i = 0; i < sc->loads.count; i++) {
    const rod_arclength *a = &sc->loads.item[i].position;
    if (a->tip || a->s >= L) { /* the tip load's very point */
      r->load_element[i] = r->tip_element;
      r->load_x[i] = r->el[r->tip_element].length;
    } else {
      locate(r, a->s, &r->load_element[i], &r->load_x[i]);
    }
  }
  return ROD_OK;
}

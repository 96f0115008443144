/* External loads on the RFEM chain: square-law drag integrated exactly
 * over each element, the point loads at the tip, the impulse's material
 * point and every [load.NAME], and the dead couples (docs/scenario.md);
 * the tendons' pull (rfem_tendon.h).
 * Gravity is the chain's own (a base acceleration); the joints' torques are
 * rfem_joints.c's. */
#include <math.h>
#include <string.h>

#include "core/loads.h"
#include "core/v3.h"
#include "rfem/rfem_loads.h"
#include "rfem/rfem_tendon.h"

/* Simpson's rule is exact for the cubic x^j u^2 on a piece where u keeps
 * its sign. */
static void drag_piece(double a, double b, double x0, double x1, double *i0,
                       double *i1) {
  double xm = 0.5 * (x0 + x1), h = x1 - x0;
  double u0 = a + b * x0, um = a + b * xm, u1 = a + b * x1;
  double sgn = um >= 0 ? 1.0 : -1.0;
  *i0 += sgn * h / 6.0 * (u0 * u0 + 4 * um * um + u1 * u1);
  *i1 += sgn * h / 6.0 * (x0 * u0 * u0 + 4 * xm * um * um + x1 * u1 * u1);
}

void rfem_drag_integrals(double a, double b, double l, double *i0, double *i1) {
  *i0 = *i1 = 0.0;
  double root = b != 0.0 ? -a / b : -1.0;
  if (root > 0.0 && root < l) { /* u changes sign inside: split there */
    drag_piece(a, b, 0.0, root, i0, i1);
    drag_piece(a, b, root, l, i0, i1);
  } else {
    drag_piece(a, b, 0.0, l, i0, i1);
  }
}

/* 5-point Gauss-Legendre on [-1, 1] */
static const double gl_x[5] = {-0.9061798459386640, -0.5384693101056831, 0.0,
                               0.5384693101056831, 0.9061798459386640};
static const double gl_w[5] = {0.2369268850561891, 0.4786286704993665,
                               0.5688888888888889, 0.4786286704993665,
                               0.2369268850561891};

/* int x^j |u| u dx (j = 0, 1) over [x0, x1] for the plane vector u = a + b
 * x, on a piece where |u| is smooth (Gauss-Legendre, 5 points). */
static void normal_piece(const double a[2], const double b[2], double x0,
                         double x1, double i0[2], double i1[2]) {
  const double m = 0.5 * (x0 + x1), h = 0.5 * (x1 - x0);
  for (int g = 0; g < 5; g++) {
    const double x = m + h * gl_x[g], w = h * gl_w[g];
    const double u0 = a[0] + b[0] * x, u1 = a[1] + b[1] * x;
    const double n = sqrt(u0 * u0 + u1 * u1);
    i0[0] += w * n * u0;
    i0[1] += w * n * u1;
    i1[0] += w * x * n * u0;
    i1[1] += w * x * n * u1;
  }
}

void rfem_normal_drag_integrals(const double a[2], const double b[2], double l,
                                double i0[2], double i1[2]) {
  i0[0] = i0[1] = i1[0] = i1[1] = 0.0;
  if (a[1] == 0 && b[1] == 0) { /* along one axis: the exact rule */
    rfem_drag_integrals(a[0], b[0], l, &i0[0], &i1[0]);
    return;
  }
  if (a[0] == 0 && b[0] == 0) {
    rfem_drag_integrals(a[1], b[1], l, &i0[1], &i1[1]);
    return;
  }
  /* |u| is smallest (a kink when it is 0) at x* = -a.b / b.b: split */
  const double bb = b[0] * b[0] + b[1] * b[1];
  const double xs = bb > 0 ? -(a[0] * b[0] + a[1] * b[1]) / bb : -1.0;
  if (xs > 0 && xs < l) {
    normal_piece(a, b, 0.0, xs, i0, i1);
    normal_piece(a, b, xs, l, i0, i1);
  } else {
    normal_piece(a, b, 0.0, l, i0, i1);
  }
}

/* Square-law drag per unit length, u the velocity in the material (body)
 * frame: u = v_O + w x (0, 0, x) along the element; paper: f = -C (u .*
 * |u|); normal: f = -C_n |u_perp| u_perp - C_t |u_3| u_3. */
static void element_drag(const rod_rfem *r, const rfem_element *e,
                         double *fext) {
  const double *C = r->model.drag;
  const double *s = rod_chain_velocity(r->chain, e->link);
  const double a[3] = {s[3], s[4], s[5]}, b[3] = {s[1], -s[0], 0.0};
  double I0[3], I1[3];
  if (r->model.drag_model == ROD_DRAG_NORMAL) {
    rfem_normal_drag_integrals(a, b, e->length, I0, I1);
    rfem_drag_integrals(a[2], b[2], e->length, &I0[2], &I1[2]);
  } else {
    for (int k = 0; k < 3; k++)
      rfem_drag_integrals(a[k], b[k], e->length, &I0[k], &I1[k]);
  }
  double *f = fext + 6 * e->link;
  /* moment about the origin: int (0, 0, x) x f dx = (-int x f2, int x f1) */
  f[0] += C[1] * I1[1];
  f[1] -= C[0] * I1[0];
  for (int k = 0; k < 3; k++)
    f[3 + k] -= C[k] * I0[k];
}

int rfem_point_loads(const rod_rfem *r, double t, bool static_state,
                     rod_chain_load *loads) {
  const rod_scenario *sc = &r->sc;
  const rfem_element *tip = &r->el[r->tip_element];
  int n = 0;
  rod_chain_load *ld = &loads[n++];
  ld->body = tip->link;
  v3_set(ld->point, 0, 0, tip->length);
  double moment[3]; /* a couple: rfem_couples */
  rod_tip_loads(sc, &r->drive, static_state, ld->force, moment);
  double F = rod_impulse_force(sc, t);
  if (r->impulse_element >= 0 && F != 0.0) {
    const rfem_element *e = &r->el[r->impulse_element];
    ld = &loads[n++];
    ld->body = e->link;
    v3_set(ld->point, 0, 0, r->impulse_x);
    v3_scale(ld->force, F, r->impulse_dir);
  }
  for (int i = 0; i < sc->loads.count; i++) {
    double Fi[3], Mi[3];
    rod_load_values(sc, r->inputs, &r->drive, i, t, Fi, Mi);
    if (Fi[0] == 0 && Fi[1] == 0 && Fi[2] == 0)
      continue;
    const rfem_element *e = &r->el[r->load_element[i]];
    ld = &loads[n++];
    ld->body = e->link;
    v3_set(ld->point, 0, 0, r->load_x[i]);
    v3_copy(ld->force, Fi);
  }
  return n;
}

int rfem_couples(const rod_rfem *r, double t, bool static_state,
                 rfem_couple *couples) {
  const rod_scenario *sc = &r->sc;
  int n = 0;
  double F[3], M[3];
  rod_tip_loads(sc, &r->drive, static_state, F, M);
  if (M[0] != 0 || M[1] != 0 || M[2] != 0) {
    couples[n].body = r->el[r->tip_element].link;
    couples[n].tip = true;
    v3_copy(couples[n++].moment, M);
  }
  for (int i = 0; i < sc->loads.count; i++) {
    rod_load_values(sc, r->inputs, &r->drive, i, t, F, M);
    if (M[0] == 0 && M[1] == 0 && M[2] == 0)
      continue;
    couples[n].body = r->el[r->load_element[i]].link;
    couples[n].tip = r->load_element[i] == r->tip_element &&
                     r->load_x[i] >= r->el[r->tip_element].length;
    v3_copy(couples[n++].moment, M);
  }
  return n;
}

void rfem_add_couples(const rod_rfem *r, int n, const rfem_couple *couples,
                      double *fext) {
  for (int c = 0; c < n; c++) {
    double R[9], Mb[3];
    const int link = couples[c].body;
    rod_chain_pose(r->chain, link, R, NULL);
    m3_mul_tv(Mb, R, couples[c].moment); /* body coordinates, as fext */
    v3_add(fext + 6 * link, fext + 6 * link, Mb);
  }
}

void rfem_couple_stiffness(const rod_rfem *r, int n, const rfem_couple *couples,
                           double *K, int ld) {
  for (int c = 0; c < n; c++) {
    const double *M = couples[c].moment;
    for (int i = 1; i <= couples[c].body; i++) {
      double Ri[9], ai[3];
      rod_chain_pose(r->chain, i, Ri, NULL);
      m3_mul_v(ai, Ri, rod_chain_get_link(r->chain, i)->axis);
      for (int j = 0; j < i; j++) {
        double Rj[9], aj[3], ajxai[3];
        rod_chain_pose(r->chain, j, Rj, NULL);
        m3_mul_v(aj, Rj, rod_chain_get_link(r->chain, j)->axis);
        v3_cross(ajxai, aj, ai);
        K[i + (size_t)j * ld] += v3_dot(M, ajxai);
      }
    }
  }
}

void rfem_external_forces(rod_rfem *r, double t, bool static_state,
                          double *fext) {
  memset(fext, 0, 6 * (size_t)r->nlinks * sizeof(double));
  if (!static_state && (r->sc.rod.drag > 0 || r->sc.rod.drag_tangential > 0))
    for (int e = 0; e < r->nelements; e++)
      element_drag(r, &r->el[e], fext);
  rod_chain_load loads[RFEM_MAX_LOADS];
  int n = rfem_point_loads(r, t, static_state, loads);
  for (int i = 0; i < n; i++)
    rod_chain_add_point_force(r->chain, loads[i].body, loads[i].point,
                              loads[i].force, fext);
  rfem_couple couples[RFEM_MAX_LOADS];
  n = rfem_couples(r, t, static_state, couples);
  rfem_add_couples(r, n, couples, fext);
  if (r->tendons) {
    rfem_tendon_forces(r, t, 1.0, fext);
    if (!static_state) /* the sliding tendons' friction */
      rfem_tendon_friction(r, fext);
  }
}

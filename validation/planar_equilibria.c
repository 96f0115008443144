/* Every equilibrium of a planar cantilever under dead loads, and its
 * stability: the independent reference of the robustness study
 * (validation/robustness.py). Nothing of rodsim is used.
 *
 * The rod lies in the x-z plane, clamped at the origin at the angle theta0
 * from +x toward +z, loaded by a force f per unit reference length (N/m,
 * gravity) and a tip force F (N). The internal force is statically
 * determinate, n(s) = F + f (L - s) (the force of the outer part on the
 * inner), so the angle form of Reissner's planar rod is a problem in
 * (theta, m) alone:
 *   theta' = m / EI,
 *   m'     = -(r' x n) = -(n1 + c n1 n3),  c = 1/EA - 1/(kGA),
 *   r'     = (1 + n3/EA) d3 + (n1/kGA) d1,
 * with d3 = (cos theta, sin theta), d1 = (-sin theta, cos theta),
 * n3 = n.d3, n1 = n.d1 (Kirchhoff's rod: 1/EA = 1/kGA = 0), theta(0) =
 * theta0, m(L) = 0. |m(0)| is bounded by the loads' largest moment about
 * the clamp, so a scan of m(0) over that interval brackets every solution
 * of m(L) = 0 that the scan's spacing separates; each is refined by
 * false position (Illinois).
 *
 * Stability in the plane: the second variation of the reduced energy
 * (strains eliminated by their complementary energy) is
 *   J[h] = integral of EI h'^2 + Q h^2,  Q = n3 + c (n3^2 - n1^2),
 * on h(0) = 0, h(L) free; its negative eigenvalues are counted by the
 * Pruefer angle of the Jacobi field from the clamp (Sturm), 0 is stable.
 *
 * Usage: planar_equilibria L EI EA kGA theta0 fx fz Fx Fz [steps]
 * (EA, kGA = 0: inextensible and unshearable). One line per equilibrium:
 * m0 tip_x tip_z tip_angle index change residual, change being how far
 * the tip moves on doubling the steps (RK4; stable states, else -1), residual
 * m(L) / max |m(0)|. m(L) is continuous in m(0), so every sign change is a
 * root. */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  double L, EI, iEA, ikGA, th0, f[2], F[2];
} rod;

/* n(s) in the frame (d3, d1) at angle th */
static void force(const rod *r, double s, double th, double *n3, double *n1) {
  double nx = r->F[0] + r->f[0] * (r->L - s);
  double nz = r->F[1] + r->f[1] * (r->L - s);
  double c = cos(th), sn = sin(th);
  *n3 = nx * c + nz * sn;
  *n1 = -nx * sn + nz * c;
}

/* y = (theta, m, x, z, h, p): the state and the Jacobi pair */
static void rhs(const rod *r, double s, const double *y, double *dy) {
  double n3, n1, c = r->iEA - r->ikGA;
  force(r, s, y[0], &n3, &n1);
  double ct = cos(y[0]), st = sin(y[0]);
  double v3 = 1 + n3 * r->iEA, v1 = n1 * r->ikGA;
  dy[0] = y[1] / r->EI;
  dy[1] = -(n1 + c * n1 * n3);
  dy[2] = v3 * ct - v1 * st;
  dy[3] = v3 * st + v1 * ct;
  dy[4] = y[5] / r->EI;
  dy[5] = (n3 + c * (n3 * n3 - n1 * n1)) * y[4];
}

static void rk4(const rod *r, double s, double h, double *y) {
  double k1[6], k2[6], k3[6], k4[6], t[6];
  rhs(r, s, y, k1);
  for (int i = 0; i < 6; i++)
    t[i] = y[i] + 0.5 * h * k1[i];
  rhs(r, s + 0.5 * h, t, k2);
  for (int i = 0; i < 6; i++)
    t[i] = y[i] + 0.5 * h * k2[i];
  rhs(r, s + 0.5 * h, t, k3);
  for (int i = 0; i < 6; i++)
    t[i] = y[i] + h * k3[i];
  rhs(r, s + h, t, k4);
  for (int i = 0; i < 6; i++)
    y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

/* From the clamp with m(0) = m0: the state at the tip */
static void shoot(const rod *r, double m0, int n, double *y) {
  double h = r->L / n;
  y[0] = r->th0;
  y[1] = m0;
  y[2] = y[3] = y[4] = y[5] = 0;
  for (int i = 0; i < n; i++)
    rk4(r, i * h, h, y);
}

/* Negative eigenvalues of J: the Jacobi field from the clamp, h(0) = 0,
 * EI h'(0) = 1, carried along the state itself; its Pruefer angle phi =
 * atan2(h, EI h' L / EI) (continuous) counts them as round(phi(L) / pi)
 * (phi passes pi/2 + k pi once for each eigenvalue of the problem with
 * h'(L) = 0 below zero). */
static int index_of(const rod *r, double m0, int n) {
  double h = r->L / n, y[6] = {r->th0, m0, 0, 0, 0.0, 1.0};
  double phi = 0.0, sc = r->L / r->EI;
  for (int i = 0; i < n; i++) {
    rk4(r, i * h, h, y);
    double a = atan2(y[4], y[5] * sc);
    phi += remainder(a - phi, 2 * M_PI);
    double g = fmax(fabs(y[4]), fabs(y[5] * sc));
    y[4] /= g;
    y[5] /= g;
  }
  return (int)floor(phi / M_PI + 0.5);
}

/* The root of m(L) in [a, b] by the Illinois variant of false position,
 * ga = m(L) at a (of the other sign than at b). */
static double root(const rod *r, double a, double b, double ga, int n) {
  double y[6], gb;
  shoot(r, b, n, y);
  gb = y[1];
  shoot(r, a, n, y);
  ga = y[1];
  int side = 0;
  for (int it = 0; it < 200 && b - a > 1e-15 * (fabs(a) + fabs(b)); it++) {
    double m = (a * gb - b * ga) / (gb - ga);
    if (!(m > a && m < b))
      m = 0.5 * (a + b);
    shoot(r, m, n, y);
    if (y[1] == 0)
      return m;
    if ((y[1] > 0) == (ga > 0)) {
      a = m, ga = y[1];
      if (side == -1)
        gb *= 0.5;
      side = -1;
    } else {
      b = m, gb = y[1];
      if (side == 1)
        ga *= 0.5;
      side = 1;
    }
    if (fabs(y[1]) < 1e-15 * (fabs(ga) + fabs(gb)) && it > 3)
      break;
  }
  return fabs(ga) < fabs(gb) ? a : b;
}

int main(int argc, char **argv) {
  if (argc < 10) {
    fprintf(stderr, "usage: planar_equilibria L EI EA kGA theta0 fx fz Fx "
                    "Fz [steps]\n");
    return 2;
  }
  rod r;
  r.L = atof(argv[1]);
  r.EI = atof(argv[2]);
  double EA = atof(argv[3]), kGA = atof(argv[4]);
  r.iEA = EA > 0 ? 1 / EA : 0;
  r.ikGA = kGA > 0 ? 1 / kGA : 0;
  r.th0 = atof(argv[5]);
  r.f[0] = atof(argv[6]);
  r.f[1] = atof(argv[7]);
  r.F[0] = atof(argv[8]);
  r.F[1] = atof(argv[9]);
  double fn = hypot(r.f[0], r.f[1]), Fn = hypot(r.F[0], r.F[1]);
  double nmax = Fn + fn * r.L;
  double stretch = 1 + nmax * (r.iEA + r.ikGA);
  /* the curvature scale: the largest moment over EI, steps per radian */
  double kmax = (Fn * r.L + 0.5 * fn * r.L * r.L) * stretch / r.EI;
  int n = argc > 10 ? atoi(argv[10]) : (int)(40 * kmax * r.L + 2000);
  double Mb = 1.02 * (Fn * r.L + 0.5 * fn * r.L * r.L) * stretch + 1e-300;
  const int K = 2001;
  int scan_n = n / 16 > 500 ? n / 16 : 500;
  double prev_m = 0, prev_g = 0, y[6], y2[6];
  for (int k = 0; k < K; k++) {
    double m0 = -Mb + 2 * Mb * k / (K - 1);
    shoot(&r, m0, scan_n, y);
    double g = y[1];
    if (k > 0 && (g > 0) != (prev_g > 0)) {
      /* classified on a quarter of the steps, stable ones refined */
      int nq = n / 4 > scan_n ? n / 4 : scan_n;
      double a = root(&r, prev_m, m0, prev_g, nq);
      int index = index_of(&r, a, nq);
      shoot(&r, a, nq, y);
      double change = -1; /* the same root on twice the steps: stable ones */
      if (index == 0) {
        a = root(&r, prev_m, m0, prev_g, n);
        shoot(&r, a, n, y);
        index = index_of(&r, a, n);
        double b = root(&r, prev_m, m0, prev_g, 2 * n);
        shoot(&r, b, 2 * n, y2);
        change = hypot(y2[2] - y[2], y2[3] - y[3]);
      }
      printf("%.17g %.17g %.17g %.17g %d %.3g %.3g\n", a, y[2], y[3], y[0],
             index, change, fabs(y[1]) / Mb);
    }
    prev_m = m0;
    prev_g = g;
  }
  return 0;
}

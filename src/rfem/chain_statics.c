/* Stiffness of dead point loads on a serial chain, for static Newton
 * solves.
 *
 * The generalised force of world-fixed forces F_k at points p_k distal to
 * joint i (world axis a_i through o_i) is G_i = a_i . sum (p_k - o_i) x F_k.
 * Turning joint j by dq_j rotates everything distal to j about a_j through
 * o_j. For j <= i that moves a_i, o_i and every p_k of G_i:
 *   dG_i/dq_j = (a_j x a_i) . M_i + a_i . X_i a_j - (a_i . a_j) tr X_i,
 * with M_i = sum (p_k - o_i) x F_k and X_i = sum (p_k - o_i) F_k^T (using
 * (a x r) x F = r (a . F) - a (r . F)). For j > i only the points beyond j
 * move, which gives the same expression with X_j and no first term; the
 * matrix is symmetric because dead loads are conservative. The suffix sums
 * S_i = sum F_k and P_i = sum p_k F_k^T make each entry O(1). */
#include <string.h>

#include "chain_internal.h"
#include "chain_spatial.h"

/* Accumulate force F at world point p into S (3) and P (9). */
static void add_load(double *S, double *P, const double *p, const double *F) {
  v3_add(S, S, F);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      P[3 * a + b] += p[a] * F[b];
}

void rod_chain_load_stiffness(rod_chain *c, int nloads,
                              const rod_chain_load *loads, double *K, int ld) {
  const int n = c->n;
  /* per link in the IA scratch: S (3), P (9), axis (3), M (3), X (9) */
  enum { S_ = 0, P_ = 3, A_ = 12, M_ = 15, X_ = 18, W_ = 36 };
  double *w = c->IA;
  memset(w, 0, (size_t)n * W_ * sizeof(double));
  for (int i = 0; i < n; i++) {
    const rod_chain_link *l = &c->link[i];
    double p[3], F[3];
    rod_chain_point(c, i, l->com, p, NULL);
    v3_scale(F, l->mass, c->gravity);
    add_load(w + W_ * i + S_, w + W_ * i + P_, p, F);
  }
  for (int k = 0; k < nloads; k++) {
    double p[3];
    int i = loads[k].body;
    rod_chain_point(c, i, loads[k].point, p, NULL);
    add_load(w + W_ * i + S_, w + W_ * i + P_, p, loads[k].force);
  }
  for (int i = n - 1; i >= 0; i--) {
    double *wi = w + W_ * i;
    if (i < n - 1)
      for (int k = 0; k < 12; k++)
        wi[k] += wi[W_ + k];
  }
  for (int i = 0; i < n; i++) {
    double *wi = w + W_ * i;
    const double *o = c->p + 3 * i, *S = wi + S_, *P = wi + P_;
    m3_mul_v(wi + A_, c->R + 9 * i, c->link[i].axis);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        wi[X_ + 3 * a + b] = P[3 * a + b] - o[a] * S[b];
    /* M = sum p x F - o x S: the antisymmetric part of P */
    double oS[3];
    v3_cross(oS, o, S);
    wi[M_ + 0] = P[5] - P[7] - oS[0];
    wi[M_ + 1] = P[6] - P[2] - oS[1];
    wi[M_ + 2] = P[1] - P[3] - oS[2];
  }
  for (int i = 0; i < n; i++) {
    const double *wi = w + W_ * i, *ai = wi + A_, *X = wi + X_;
    const double trX = X[0] + X[4] + X[8];
    for (int j = 0; j <= i; j++) {
      const double *aj = w + W_ * j + A_;
      double ajxai[3], Xaj[3];
      v3_cross(ajxai, aj, ai);
      m3_mul_v(Xaj, X, aj);
      double Kij =
          v3_dot(ajxai, wi + M_) + v3_dot(ai, Xaj) - v3_dot(ai, aj) * trX;
      K[i + (size_t)j * ld] = Kij;
      K[j + (size_t)i * ld] = Kij;
    }
  }
}

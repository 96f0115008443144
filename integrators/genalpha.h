/* Generalized-alpha time integration of second-order systems
 * M(q) qdd = f(t, q, v) (Chung & Hulbert 1993, in the form of Arnold &
 * Bruls 2007, as used by Iwamura et al.), with Newton iterations on the
 * accelerations.
 *
 * One step of size h from (q0, v0, a0, qdd0), a the algorithmic
 * acceleration and qdd the true one:
 *   q1 = q0 + h v0 + h^2 (1/2 - beta) a0 + h^2 beta a1
 *   v1 = v0 + h (1 - gamma) a0 + h gamma a1
 *   (1 - alpha_m) a1 + alpha_m a0 = (1 - alpha_f) qdd1 + alpha_f qdd0
 * and the equations of motion hold at t1 for qdd1. Newton's unknown is qdd1;
 * with beta' = h^2 beta (1 - alpha_f)/(1 - alpha_m) and
 * gamma' = h gamma (1 - alpha_f)/(1 - alpha_m) the iteration matrix is
 * S = dr/dqdd + gamma' dr/dv + beta' dr/dq. Second order for every spectral
 * radius rho_inf in [0, 1]; rho_inf = 1 is the trapezoidal rule (no
 * numerical damping), smaller values damp the highest frequencies, whose
 * amplification tends to rho_inf as h omega -> infinity.
 *
 * The workspace is allocated once; a step never allocates. */
#ifndef ROD_GENALPHA_H
#define ROD_GENALPHA_H

typedef struct {
  double alpha_m, alpha_f, beta, gamma;
} rod_genalpha_params;

/* Chung-Hulbert parameters for spectral radius at infinity rho_inf in
 * [0, 1]: alpha_m = (2 rho - 1)/(rho + 1), alpha_f = rho/(rho + 1),
 * gamma = 1/2 - alpha_m + alpha_f, beta = (1 - alpha_m + alpha_f)^2 / 4. */
rod_genalpha_params rod_genalpha_params_from_radius(double rho_inf);

/* The error of these steps on an undamped mode q'' = -omega^2 q started
 * from q = 1 at rest: the largest |q_n - cos(omega t_n)| over the steps
 * within span (s), as a fraction of the amplitude (the phase lag and the
 * numerical damping together). Steps of dt (s), omega in 1/s. */
double rod_genalpha_mode_error(rod_genalpha_params p, double dt, double omega,
                               double span);

/* The system. residual: r = M(q) qdd - f(t, q, v) (n entries, generalised
 * forces). solve: dx = S^-1 b, exactly or approximately, with S the
 * iteration matrix at the point of the last residual call (the solver
 * always calls it right after residual). Both return 0 or a status; a
 * non-zero status fails the step. */
typedef struct {
  int (*residual)(double t, const double *q, const double *v, const double *qdd,
                  double *r, void *user);
  int (*solve)(double t, double beta_p, double gamma_p, const double *b,
               double *dx, void *user);
} rod_genalpha_system;

typedef struct {
  int max_iterations;    /* Newton corrections per step */
  double tolerance;      /* on max_i |r_i| * residual_scale */
  double residual_scale; /* 1 / (unit of the generalised forces) */
  /* Converged also when a correction moves q by at most this,
   * max_i beta' |dx_i| (units of q): for residuals that round-off in large
   * cancelling terms keeps above tolerance. 0 disables. */
  double step_tolerance;
} rod_genalpha_options;

typedef struct {
  int iterations;  /* Newton corrections (solve calls) */
  int evaluations; /* residual calls */
  double residual; /* final scaled residual */
} rod_genalpha_stats;

typedef struct rod_genalpha rod_genalpha;

/* n >= 1 unknowns; NULL if out of memory. */
rod_genalpha *rod_genalpha_alloc(int n);
void rod_genalpha_free(rod_genalpha *w);
void rod_genalpha_set_params(rod_genalpha *w, rod_genalpha_params p);

/* Start at time t with the true acceleration qdd and the algorithmic
 * acceleration a (NULL: a = qdd, the usual start). */
void rod_genalpha_init(rod_genalpha *w, double t, const double *q,
                       const double *v, const double *qdd, const double *a);

/* Offsets added to the step's end position and velocity,
 *   q1 = ... + dq,  v1 = ... + dv   (n entries each, or NULL: none),
 * held by pointer until set again: the position correction and velocity
 * jump of the nonsmooth generalized-alpha scheme (Chen, Acary, Virlez and
 * Bruls 2013; Bruls, Acary and Cardona 2014), which the accelerations do
 * not carry. The equations of motion hold at the offset end state. */
void rod_genalpha_set_offsets(rod_genalpha *w, const double *dq,
                              const double *dv);

/* One step of size h. On ROD_ENOCONV (or a callback's status) the state is
 * left as it was, so the caller may retry with smaller steps. stats may be
 * NULL; they are added to. */
int rod_genalpha_step(rod_genalpha *w, const rod_genalpha_system *sys, double h,
                      const rod_genalpha_options *opt,
                      rod_genalpha_stats *stats, void *user);

double rod_genalpha_time(const rod_genalpha *w);
const double *rod_genalpha_q(const rod_genalpha *w);
const double *rod_genalpha_v(const rod_genalpha *w);
const double *rod_genalpha_qdd(const rod_genalpha *w); /* true acceleration */
const double *rod_genalpha_a(const rod_genalpha *w);   /* algorithmic */

#endif

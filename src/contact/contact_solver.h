/* Workspace of the contact problems (contact.h), shared by contact_dual.c,
 * contact_primal.c and contact_coulomb.c only. Sized once. */
#ifndef ROD_CONTACT_SOLVER_H
#define ROD_CONTACT_SOLVER_H

#include <lapacke.h>

#include "contact/contact.h"

struct rod_contact_solver {
  int mmax, nmax;
  /* dual */
  int *free_set; /* m: 1 for the contacts whose force is free */
  int *index;    /* m: the free contacts in order */
  double *z;     /* m: the free block's solution */
  double *w;     /* m: -(G l + b) */
  double *Gpp;   /* m x m: the free block, then its Cholesky factor */
  /* primal */
  double *kkt;      /* (n + m)^2: the KKT matrix of the active set */
  double *kkt_rhs;  /* n + m */
  double *kkt_work; /* kkt_lwork */
  int kkt_lwork;
  lapack_int *ipiv; /* n + m */
  int *active;      /* m: the active constraints in order */
  double *slack;    /* m: J v - lo */
};

#endif

/* The summary figures of a run file (docs/scale.md), read back from the
 * file itself, so that a case recorded after a restart (its file complete,
 * the index not told) gets the same figures as one recorded as it ran:
 * the tip at the end and its extremes, the dominant frequency (as
 * `compare` measures it), the drift of the mechanical energy, and the
 * file's own error estimate when it has one. */
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/h5attr.h"
#include "io/h5read.h"
#include "signal/signal.h"
#include "sweep_internal.h"

/* The first n values of a dataset along T (of width w per sample), NULL
 * when absent or unreadable. */
static double *read_series(hid_t f, const char *path, const char *name,
                           hsize_t n, int w) {
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0) /* a missing group too */
    return NULL;
  hsize_t dims[2] = {0, (hsize_t)w};
  double *v = NULL;
  rod_error err;
  if (rod_h5_read_rows(f, path, name, H5T_NATIVE_DOUBLE, sizeof(double),
                       w > 1 ? 2 : 1, n, dims, (void **)&v, &err) != ROD_OK)
    return NULL;
  return v;
}

/* The largest finite value of /error_estimate, whatever its shape; NaN. */
static double error_estimate(hid_t f) {
  if (H5Lexists(f, "/error_estimate", H5P_DEFAULT) <= 0)
    return NAN;
  hid_t ds = H5Dopen2(f, "/error_estimate", H5P_DEFAULT);
  if (ds < 0)
    return NAN;
  hid_t sp = H5Dget_space(ds);
  hssize_t n = H5Sget_simple_extent_npoints(sp);
  double best = NAN;
  double *v = n > 0 && n < (1 << 26) ? malloc((size_t)n * sizeof *v) : NULL;
  if (v &&
      H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)
    for (hssize_t i = 0; i < n; i++)
      if (isfinite(v[i]) && !(v[i] <= best))
        best = v[i];
  free(v);
  H5Sclose(sp);
  H5Dclose(ds);
  return best;
}

/* The file's status attribute as a case status. */
static int file_status(hid_t f) {
  char *text = rod_h5_get_text(f, "status");
  int status = !text                              ? ROD_CASE_FAILED
               : strcmp(text, "complete") == 0    ? ROD_CASE_COMPLETE
               : strcmp(text, "interrupted") == 0 ? ROD_CASE_INTERRUPTED
               : strcmp(text, "running") == 0     ? ROD_CASE_RUNNING
                                                  : ROD_CASE_FAILED;
  free(text);
  return status;
}

/* The dominant frequency of the tip coordinate that moves most after
 * t = 0 (the release makes the static sample a corner); NaN when it does
 * not oscillate. */
static double tip_frequency(const double *t, const double *tip, int n) {
  int first = n > 0 && t[0] <= 0.0 ? 1 : 0;
  int best = -1;
  double range = 0;
  for (int c = 0; c < 3; c++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int i = first; i < n; i++) {
      lo = fmin(lo, tip[3 * i + c]);
      hi = fmax(hi, tip[3 * i + c]);
    }
    if (hi - lo > range) {
      range = hi - lo;
      best = c;
    }
  }
  rod_signal_sine fit;
  if (best < 0 || n - first < 8 ||
      rod_signal_frequency(t + first, tip + 3 * first + best, 3, n - first,
                           &fit) != ROD_OK ||
      !isfinite(fit.frequency))
    return NAN;
  return fit.frequency;
}

int rod_sweep_summarize(const char *path, rod_case_record *rec) {
  hid_t f;
  rod_error err;
  if (rod_h5_open(path, &f, &err) != ROD_OK)
    return ROD_EIO;
  hsize_t n = 0;
  int st = rod_h5_samples(f, path, &n, &err);
  if (st == ROD_OK && n == 0)
    st = ROD_EIO; /* no whole sample */
  double *t = st == ROD_OK ? read_series(f, path, "/time", n, 1) : NULL;
  double *tip =
      st == ROD_OK ? read_series(f, path, "/tip/position", n, 3) : NULL;
  if (!t || !tip)
    st = ROD_EIO;
  rec->status = file_status(f);
  if (st == ROD_OK) {
    const int m = (int)n;
    rec->time = t[m - 1];
    for (int c = 0; c < 3; c++) {
      rec->tip_final[c] = tip[3 * (m - 1) + c];
      rec->tip_min[c] = INFINITY;
      rec->tip_max[c] = -INFINITY;
      for (int i = 0; i < m; i++) {
        rec->tip_min[c] = fmin(rec->tip_min[c], tip[3 * i + c]);
        rec->tip_max[c] = fmax(rec->tip_max[c], tip[3 * i + c]);
      }
    }
    rec->frequency = tip_frequency(t, tip, m);
    /* the energies, what the contacts took out, less the tendons' works
     * (the last three only when the file has them) */
    const char *parts[] = {
        "/energy/kinetic",     "/energy/elastic",
        "/energy/gravity",     "/energy/dissipated_contact",
        "/energy/tendon_work", "/energy/tendon_friction_work"};
    const double sign[] = {1, 1, 1, 1, -1, -1};
    int first = m > 0 && t[0] <= 0.0 ? 1 : 0;
    double drift = m - first >= 2 ? 0.0 : NAN;
    for (int k = 0; k < 6 && isfinite(drift); k++) {
      double *e = read_series(f, path, parts[k], n, 1);
      if (e)
        drift += sign[k] * (e[m - 1] - e[first]);
      else if (k < 3)
        drift = NAN;
      free(e);
    }
    rec->energy_drift = drift;
    rec->error_estimate = error_estimate(f);
  }
  free(t);
  free(tip);
  H5Fclose(f);
  return st;
}

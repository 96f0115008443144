/* The run file's making (io/logger_file.h). */
#include "io/logger_file.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "config.h"
#include "core/model.h"
#include "io/h5attr.h"
#include "rod/status.h"

/* The dataset /samples (scalar int64): how many whole samples the file
 * holds. It is made (0) with the file, its 8 bytes stored in place
 * (contiguous, allocated at once), and raised only by a flush after the
 * one that wrote those samples, so it never counts a sample whose data is
 * not on disk: a run killed during a flush may leave some datasets
 * extended past their data (HDF5 writes the datasets' headers and chunk
 * indices in no set order), and a reader takes the first `samples` of
 * each. The flush that raises it writes those 8 bytes and no metadata. A
 * dataset, not an attribute: a reader of a corrupt file then decodes no
 * attribute message (libhdf5 1.10.8 reads past its buffer on some). */
static hid_t make_count(hid_t file) {
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_layout(dcpl, H5D_CONTIGUOUS);
  H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
  hid_t ds = H5Dcreate2(file, "/samples", H5T_STD_I64LE, space, H5P_DEFAULT,
                        dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  const int64_t zero = 0;
  if (ds >= 0 &&
      (H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &zero) <
           0 ||
       rod_h5_put_text(ds, "units", "1") != ROD_OK ||
       rod_h5_put_text(ds, "description",
                       "whole samples along T: a run killed during a flush "
                       "may leave datasets longer, their last samples not "
                       "written") != ROD_OK)) {
    H5Dclose(ds);
    ds = -1;
  }
  return ds;
}

/* The text of a scenario key, or fallback when this build lacks the key. */
static void key_text(const rod_scenario *sc, const char *section,
                     const char *name, const char *fallback, char *buf,
                     size_t size) {
  if (rod_scenario_get_text(sc, section, name, buf, size) != ROD_OK)
    snprintf(buf, size, "%s", fallback);
}

/* The root attributes besides the scenario text, from sc: the main
 * parameters as numbers and names, so that a reader needs no INI parser
 * for them; the build that wrote the file and when. */
void rod_run_header_of(const rod_scenario *sc, const char *backend,
                       rod_run_header *h) {
  key_text(sc, "rod", "model", "kirchhoff", h->model, sizeof h->model);
  key_text(sc, "time", "scheme", "bdf-alpha", h->scheme, sizeof h->scheme);
  key_text(sc, "space", "integrator", "rk4", h->integrator,
           sizeof h->integrator);
  snprintf(h->backend, sizeof h->backend, "%s", backend);
  time_t t = time(NULL);
  struct tm utc;
  gmtime_r(&t, &utc);
  strftime(h->created, sizeof h->created, "%Y-%m-%dT%H:%M:%SZ", &utc);
  rod_model m; /* the grid of space.nodes = auto */
  rod_model_init(&m, sc);
  h->dt = sc->time.dt;
  h->duration = sc->time.duration;
  h->alpha = sc->time.alpha;
  h->length = sc->rod.length;
  h->nodes = rod_model_nodes(&m, sc);
  h->segments = sc->rfem.segments;
  h->output_every = sc->output.every;
  h->tolerance = sc->solver.tolerance;
}

static int write_root_attrs(hid_t file, const rod_run_header *h) {
  int st = rod_h5_put_text(file, "backend", h->backend);
  const struct {
    const char *name, *value;
  } texts[] = {{"rodsim_version", ROD_VERSION},
               {"revision", ROD_REVISION},
               {"created", h->created},
               {"model", h->model},
               {"scheme", h->scheme},
               {"integrator", h->integrator},
               {"units", "SI: m, s, kg, N, J; angles in rad"},
               {"quaternion_order", "w x y z"}};
  for (size_t i = 0; i < sizeof texts / sizeof texts[0] && st == ROD_OK; i++)
    st = rod_h5_put_text(file, texts[i].name, texts[i].value);
  const struct {
    const char *name;
    double value;
    bool is_int;
  } numbers[] = {{"dt", h->dt, false},
                 {"duration", h->duration, false},
                 {"alpha", h->alpha, false},
                 {"length", h->length, false},
                 {"nodes", h->nodes, true},
                 {"segments", h->segments, true},
                 {"output_every", h->output_every, true},
                 {"tolerance", h->tolerance, false}};
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0] && st == ROD_OK;
       i++)
    st = rod_h5_put_number(file, numbers[i].name, numbers[i].value,
                           numbers[i].is_int);
  return st;
}

/* Create the file of o so that what is on disk stays a consistent file
 * between flushes: HDF5 writes no metadata before H5Fflush (no evictions
 * from its metadata cache), never reuses the space a rewritten chunk
 * leaves (no free-space managers) and never splits a chunk index's node
 * (index_k), so a block written after the last flush only adds bytes
 * that the file on disk does not yet refer to, and a flush only rewrites
 * in place or adds what refers to bytes already written. A run killed at
 * any moment then leaves the samples of its last count whole. */
static hid_t create_file(const rod_outfile *o, unsigned ik) {
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_NONE, 0, (hsize_t)1);
  if (ik != 32)
    H5Pset_istore_k(fcpl, ik);
  H5AC_cache_config_t mdc;
  mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  if (H5Pget_mdc_config(fapl, &mdc) >= 0) {
    mdc.evictions_enabled = false;
    mdc.incr_mode = H5C_incr__off;
    mdc.flash_incr_mode = H5C_flash_incr__off;
    mdc.decr_mode = H5C_decr__off;
    H5Pset_mdc_config(fapl, &mdc);
  }
  hid_t f = rod_outfile_create_hdf5(o, fcpl, fapl);
  H5Pclose(fapl);
  H5Pclose(fcpl);
  return f;
}

int rod_run_file_make(const rod_outfile *o, const rod_run_header *h,
                      hid_t *file, hid_t *count) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the library never prints */
  *file = *count = 0;
  errno = 0;
  hid_t f = create_file(o, h->index_k);
  if (f < 0)
    return ROD_EIO;
  *file = f;
  int st = write_root_attrs(f, h);
  if (st == ROD_OK)
    st = rod_h5_put_text(f, "scenario", h->scenario);
  if (st == ROD_OK)
    st = rod_h5_put_text(f, "status", "running");
  hid_t c = st == ROD_OK ? make_count(f) : -1;
  if (c < 0)
    st = ROD_EIO;
  else
    *count = c;
  const char *groups[] = {"/tip", "/rod", "/energy", "/solver"};
  for (int i = 0; i < 4 && st == ROD_OK; i++) {
    hid_t g = H5Gcreate2(f, groups[i], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
      st = ROD_EIO;
    else
      H5Gclose(g);
  }
  if (st == ROD_OK && H5Fflush(f, H5F_SCOPE_GLOBAL) < 0)
    st = ROD_EIO;
  return st;
}

static void *h5_open(void *unused) {
  (void)unused;
  H5open();
  return NULL;
}

void rod_run_file_warm_up(void) {
  hbool_t threadsafe = false;
  H5is_library_threadsafe(&threadsafe);
  pthread_t thread;
  pthread_attr_t attr;
  if (!threadsafe || pthread_attr_init(&attr) != 0)
    return;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  sigset_t all, old; /* no signal handled on that thread */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  if (pthread_create(&thread, &attr, h5_open, NULL) != 0)
    (void)0; /* it starts with the first call, as usual */
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
}

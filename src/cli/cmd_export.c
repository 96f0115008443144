/* rodsim export: a run's HDF5 file for ParaView and VisIt, as an XDMF
 * description beside it or a copy in VTK files (rod/export.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "io/writers.h"
#include "rod/export.h"

static const char export_help[] =
    "usage: rodsim export RUN.h5 --xdmf [-o OUT.xdmf] [--force]\n"
    "       rodsim export RUN.h5 --vtk [-o DIR] [--force]\n\n"
    "Describes the rod of a run's file over time for ParaView and VisIt: a\n"
    "polyline at every whole sample with its positions, and as point data\n"
    "the radius, arclength s, velocities, forces, moments, orientations and\n"
    "contact forces (the file's datasets given per point); the tip, the\n"
    "energies and the contact's gap as field data (docs/hdf5.md).\n\n"
    "--xdmf  (re)writes RUN.xdmf beside RUN.h5 (-o: another name), an XDMF\n"
    "        file that points into RUN.h5 (no copy of the data); open it\n"
    "        with ParaView's \"Xdmf Reader\" or VisIt. run and static write\n"
    "        it themselves (output.xdmf); this makes it for a killed run's\n"
    "        file, which holds the samples flushed before the kill.\n"
    "--vtk   writes a copy as VTK XML files in DIR (default RUN_vtk):\n"
    "        RUN.pvd, the collection to open, and RUN_000000.vtp ... one\n"
    "        polyline a sample.\n\n"
    "OUT.xdmf and the files in DIR replace only files rodsim wrote\n"
    "(--force: any regular file; docs/files.md).\n\n"
    "Prints one line: samples, points, arrays and the file written.\n"
    "Exit status: 0 written, 1 a file could not be written, 2 bad input.\n";

/* The default folder of --vtk: RUN.h5 -> RUN_vtk beside it. */
static int vtk_dir(const char *h5, char *out, size_t size) {
  char xdmf[4096];
  if (rod_export_xdmf_name(h5, xdmf, sizeof xdmf) != ROD_OK)
    return ROD_EINVAL;
  size_t keep = strlen(xdmf) - strlen(".xdmf");
  if (keep + sizeof "_vtk" > size)
    return ROD_EINVAL;
  memcpy(out, xdmf, keep);
  memcpy(out + keep, "_vtk", sizeof "_vtk");
  return ROD_OK;
}

/* Exit status of a failed export: what was read is bad input, what could
 * not be written a failure. */
static int failed(int st, const rod_error *err, const char *input) {
  cli_print_error(err);
  return strcmp(err->file, input) == 0 || st == ROD_EINVAL ? CLI_BAD_INPUT
                                                           : CLI_FAILED;
}

int cmd_export(int argc, char **argv) {
  const char *input = NULL, *output = NULL;
  bool xdmf = false, vtk = false, force = false;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(export_help, stdout);
      return CLI_OK;
    }
    if (strcmp(argv[i], "--xdmf") == 0)
      xdmf = true;
    else if (strcmp(argv[i], "--force") == 0)
      force = true;
    else if (strcmp(argv[i], "--vtk") == 0)
      vtk = true;
    else if (strcmp(argv[i], "-o") == 0) {
      if (i + 1 >= argc) {
        cli_fail("export: -o needs a file or folder name");
        return CLI_BAD_INPUT;
      }
      output = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      cli_fail("export: unknown option '%s'", argv[i]);
      return CLI_BAD_INPUT;
    } else if (input) {
      cli_fail("export: one run file at a time (got %s and %s)", input,
               argv[i]);
      return CLI_BAD_INPUT;
    } else
      input = argv[i];
  }
  if (!input || xdmf == vtk) {
    cli_fail("export: usage: rodsim export RUN.h5 --xdmf|--vtk [-o PATH] "
             "(see rodsim export --help)");
    return CLI_BAD_INPUT;
  }
  char target[4096];
  if (output)
    snprintf(target, sizeof target, "%s", output);
  else if ((xdmf ? rod_export_xdmf_name(input, target, sizeof target)
                 : vtk_dir(input, target, sizeof target)) != ROD_OK) {
    cli_fail("%s: has no file name to name the output by; give -o", input);
    return CLI_BAD_INPUT;
  }
  rod_export_info info;
  rod_error err = {{0}, {0}, {0}, 0};
  /* the output refused (another writer's, not rodsim's, the input) or
   * unwritable: before the work */
  int st = xdmf ? rod_export_xdmf_check(input, target, force, "-o", &err)
                : rod_export_vtk_check(input, target, force, "-o", &err);
  if (st != ROD_OK)
    return failed(st, &err, input);
  st = xdmf ? rod_export_xdmf_with(input, target, force, &info, &err)
            : rod_export_vtk_with(input, target, force, &info, &err);
  if (st != ROD_OK)
    return failed(st, &err, input);
  char per_sample[64] = "";
  if (info.field_arrays)
    snprintf(per_sample, sizeof per_sample, " and %d per sample",
             info.field_arrays);
  printf("%s: %ld samples of %d points, %d arrays per point%s -> %s (%.3g "
         "MB)\n",
         input, info.samples, info.points, info.point_arrays, per_sample,
         target, info.bytes / 1e6);
  return CLI_OK;
}

/* rodsim replaces only its own outputs (io/outfile.h): a file it wrote
 * (its mark, extended attribute or root attribute), never a user's file,
 * an input, a planted link or a device; every writer takes the writer's
 * lock; an interrupted run removes only the file it made
 * (docs/files.md). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "filesutil.h"
#include "io/outfile.h"
#include "rod/image.h"
#include "rod/sim.h"

/* The file system of dir keeps user extended attributes. */
static bool xattrs_kept(void) {
  char path[600];
  in_dir(path, sizeof path, "probe");
  rod_test_write(dir, "probe", "");
  bool kept = setxattr(path, "user.probe", "1", 1, 0) == 0;
  unlink(path);
  return kept;
}

static rod_out_rules text_rules(void) {
  rod_out_rules r = {.kind = ROD_OUT_TEXT, .mark = "# rodsim", .key = "-o"};
  return r;
}

/* Write text through an outfile opened on dir/name with rules r. */
static int write_through(const char *name, const rod_out_rules *r,
                         const char *text, rod_error *err) {
  char path[600];
  in_dir(path, sizeof path, name);
  rod_outfile *o;
  int st = rod_outfile_open(path, r, &o, err);
  if (st != ROD_OK)
    return st;
  FILE *f = rod_outfile_stream(o);
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
  st = rod_outfile_commit(o, err);
  rod_outfile_close(o, st != ROD_OK);
  return st;
}

/* An output replaces only a file rodsim wrote (its mark), an empty one, or
 * any regular file with force; never an input. */
START_TEST(outputs_replace_only_rodsim_files) {
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(write_through("a.txt", &r, "# rodsim 1\n", &err), ROD_OK);
  ck_assert_int_eq(write_through("a.txt", &r, "# rodsim 2\n", &err), ROD_OK);
  char text[256];
  slurp("a.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim 2\n");
  rod_test_write(dir, "notes.txt", "my notes\n");
  ck_assert_int_eq(write_through("notes.txt", &r, "# rodsim\n", &err),
                   ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "not a file rodsim wrote"));
  slurp("notes.txt", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  rod_test_write(dir, "empty.txt", "");
  ck_assert_int_eq(write_through("empty.txt", &r, "# rodsim\n", &err), ROD_OK);
  /* an input, also under another name (a hard link) and with force */
  char in[600], other[600];
  in_dir(in, sizeof in, "in.ini");
  in_dir(other, sizeof other, "same.ini");
  rod_test_write(dir, "in.ini", "# rodsim looks like ours\n");
  ck_assert_int_eq(link(in, other), 0);
  r.force = true;
  rod_out_add_input(&r, in);
  ck_assert_int_eq(write_through("same.ini", &r, "x\n", &err), ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "which this command reads"));
  ck_assert_int_eq(write_through("notes.txt", &r, "# rodsim\n", &err), ROD_OK);
  slurp("in.ini", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim looks like ours\n");
  const char *keep[] = {"a.txt", "empty.txt", "in.ini", "notes.txt",
                        "same.ini"};
  expect_only(keep, 5);
}
END_TEST

/* Without a mark, a text file is rodsim's by the extended attribute
 * user.rodsim that every file it makes carries. */
START_TEST(text_outputs_recognised_by_xattr) {
  if (!xattrs_kept())
    return; /* this file system keeps none: --force needed, as documented */
  rod_out_rules r = {.kind = ROD_OUT_TEXT, .key = "-o"};
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(write_through("t.csv", &r, "t,x\n0,1\n", &err), ROD_OK);
  char path[600], value[16];
  in_dir(path, sizeof path, "t.csv");
  ck_assert_int_gt(getxattr(path, "user.rodsim", value, sizeof value), 0);
  ck_assert_int_eq(write_through("t.csv", &r, "t,x\n0,2\n", &err), ROD_OK);
  ck_assert_int_eq(removexattr(path, "user.rodsim"), 0); /* as by a copy */
  ck_assert_int_eq(write_through("t.csv", &r, "t,x\n0,3\n", &err), ROD_EINVAL);
  char text[64];
  slurp("t.csv", text, sizeof text);
  ck_assert_str_eq(text, "t,x\n0,2\n");
}
END_TEST

/* An HDF5 file is rodsim's by its root attribute rodsim_version. */
START_TEST(hdf5_outputs_recognised_by_attribute) {
  char path[600];
  in_dir(path, sizeof path, "x.h5");
  rod_out_rules r = {.kind = ROD_OUT_HDF5, .key = "output.file"};
  rod_error err = {{0}, {0}, {0}, 0};
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(f);
  rod_outfile *o;
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_EINVAL);
  f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(f, "rodsim_version", H5T_NATIVE_INT, space, H5P_DEFAULT,
                       H5P_DEFAULT);
  int one = 1;
  H5Awrite(a, H5T_NATIVE_INT, &one);
  H5Aclose(a);
  H5Sclose(space);
  H5Fclose(f);
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_OK);
  rod_outfile_close(o, true);
  /* text is not HDF5 */
  rod_test_write(dir, "x.ini", "[rod]\n");
  in_dir(path, sizeof path, "x.ini");
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_EINVAL);
  const char *keep[] = {"x.h5", "x.ini"};
  expect_only(keep, 2);
}
END_TEST

/* Of two writers of one path the second is refused, naming the first's
 * pid; after the first lets go, the path can be written again. */
START_TEST(writer_lock_names_the_holder) {
  char path[600], pid[64];
  in_dir(path, sizeof path, "out.txt");
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_outfile *first, *second;
  ck_assert_int_eq(rod_outfile_open(path, &r, &first, &err), ROD_OK);
  ck_assert_int_eq(rod_outfile_open(path, &r, &second, &err), ROD_EIO);
  snprintf(pid, sizeof pid, "rodsim, pid %ld on ", (long)getpid());
  ck_assert_msg(strstr(err.message, "another process is writing") &&
                    strstr(err.message, pid),
                "%s", err.message);
  rod_outfile_close(first, true);
  ck_assert_int_eq(rod_outfile_open(path, &r, &second, &err), ROD_OK);
  rod_outfile_close(second, true);
  expect_only(NULL, 0);
  /* a lock file that is not rodsim's is left as it is */
  rod_test_write(dir, "out.txt.lock", "someone's\n");
  ck_assert_int_eq(rod_outfile_open(path, &r, &first, &err), ROD_EINVAL);
  char text[64];
  slurp("out.txt.lock", text, sizeof text);
  ck_assert_str_eq(text, "someone's\n");
  /* a killed writer's lock file is taken over, and removed after */
  rod_test_write(dir, "out.txt.lock", "rodsim writer lock: pid 1 on x\n");
  ck_assert_int_eq(rod_outfile_open(path, &r, &first, &err), ROD_OK);
  rod_outfile_close(first, true);
  expect_only(NULL, 0);
}
END_TEST

/* A killed writer's PATH.part (rodsim's: its mark here; or empty, killed
 * as it made it) is removed and the name used again; anything else there
 * stays, and a fresh name is used. Before, each killed run of a sweep's
 * case left its .part behind. */
START_TEST(killed_writers_part_taken_over) {
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_test_write(dir, "out.txt.part", "# rodsim, killed\n");
  ck_assert_int_eq(write_through("out.txt", &r, "# rodsim 1\n", &err), ROD_OK);
  const char *keep[] = {"out.txt"};
  expect_only(keep, 1);
  rod_test_write(dir, "out.txt.part", ""); /* killed as it made it */
  ck_assert_int_eq(write_through("out.txt", &r, "# rodsim 1\n", &err), ROD_OK);
  expect_only(keep, 1);
  rod_test_write(dir, "out.txt.part", "my notes\n");
  ck_assert_int_eq(write_through("out.txt", &r, "# rodsim 2\n", &err), ROD_OK);
  char text[64];
  slurp("out.txt.part", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  slurp("out.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim 2\n");
  const char *both[] = {"out.txt", "out.txt.part"};
  expect_only(both, 2);
}
END_TEST

/* A symbolic link planted at PATH.part (or PATH.lock) is never followed:
 * its target stays as it was, the output is written under a fresh name
 * and moved into place, and the link stays. */
START_TEST(planted_part_link_not_followed) {
  char victim[600], link_path[600];
  in_dir(victim, sizeof victim, "victim.txt");
  in_dir(link_path, sizeof link_path, "out.txt.part");
  rod_test_write(dir, "victim.txt", "precious\n");
  ck_assert_int_eq(symlink(victim, link_path), 0);
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(write_through("out.txt", &r, "# rodsim\n", &err), ROD_OK);
  char text[64];
  slurp("victim.txt", text, sizeof text);
  ck_assert_str_eq(text, "precious\n");
  slurp("out.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim\n");
  const char *keep[] = {"out.txt", "out.txt.part", "victim.txt"};
  expect_only(keep, 3);
  /* the lock's name: refused, nothing written */
  in_dir(link_path, sizeof link_path, "new.txt.lock");
  ck_assert_int_eq(symlink(victim, link_path), 0);
  ck_assert_int_eq(write_through("new.txt", &r, "# rodsim\n", &err),
                   ROD_EINVAL);
  slurp("victim.txt", text, sizeof text);
  ck_assert_str_eq(text, "precious\n");
}
END_TEST

/* Outputs that are not regular files: a FIFO (refused at once, where it
 * blocked), a dangling link (refused), a link to a file (written through,
 * the link kept), /dev/null (written in place, never removed). */
START_TEST(special_outputs) {
  char path[600];
  in_dir(path, sizeof path, "pipe");
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_outfile *o;
  const double t0 = now();
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_EINVAL);
  ck_assert(now() - t0 < 1.0 * slowdown());
  ck_assert_ptr_nonnull(strstr(err.message, "FIFO"));
  char target[600];
  in_dir(target, sizeof target, "nowhere/x.txt");
  in_dir(path, sizeof path, "dangling");
  ck_assert_int_eq(symlink(target, path), 0);
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "link to nothing"));
  in_dir(target, sizeof target, "real.txt");
  rod_test_write(dir, "real.txt", "");
  in_dir(path, sizeof path, "link.txt");
  ck_assert_int_eq(symlink(target, path), 0);
  ck_assert_int_eq(write_through("link.txt", &r, "# rodsim via\n", &err),
                   ROD_OK);
  struct stat st;
  ck_assert_int_eq(lstat(path, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  char text[64];
  slurp("real.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim via\n");
  ck_assert_int_eq(rod_outfile_open("/dev/null", &r, &o, &err), ROD_OK);
  ck_assert_str_eq(rod_outfile_path_now(o), "/dev/null");
  rod_outfile_discard_now(o);
  rod_outfile_close(o, true);
  ck_assert_int_eq(stat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  const char *keep[] = {"dangling", "link.txt", "pipe", "real.txt"};
  expect_only(keep, 4);
}
END_TEST

/* Only the file this process created is removed: not when its name was
 * taken by another file meanwhile. HDF5 is handed the open file itself. */
START_TEST(discard_removes_only_our_file) {
  char path[600], part[700];
  in_dir(path, sizeof path, "out.txt");
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_outfile *o;
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_OK);
  snprintf(part, sizeof part, "%s.part", path);
  ck_assert_str_eq(rod_outfile_path_now(o), part);
  ck_assert_int_eq(strncmp(rod_outfile_name(o), "/proc/self/fd/", 14), 0);
  int fd = open(rod_outfile_name(o), O_RDWR);
  ck_assert(rod_outfile_is(o, fd));
  close(fd);
  ck_assert_int_eq(unlink(part), 0);
  rod_test_write(dir, "out.txt.part", "someone else's\n");
  ck_assert_int_eq(rod_outfile_commit(o, &err), ROD_EIO);
  ck_assert_ptr_nonnull(strstr(err.message, "no longer the file"));
  rod_outfile_close(o, true);
  char text[64];
  slurp("out.txt.part", text, sizeof text);
  ck_assert_str_eq(text, "someone else's\n");
  const char *keep[] = {"out.txt.part"};
  expect_only(keep, 1);
}
END_TEST

/* Frames of a dark rod along +x on a bright background, as dir/frames. */
static void write_frames(void) {
  char path[600];
  in_dir(path, sizeof path, "frames");
  ck_assert_int_eq(mkdir(path, 0700), 0);
  rod_image *img = rod_image_alloc(80, 40);
  for (int f = 0; f < 3; f++) {
    for (int i = 0; i < 80 * 40; i++)
      img->lum[i] = 1.0f;
    for (int x = 10; x < 50 + 5 * f; x++)
      img->lum[20 * 80 + x] = img->lum[21 * 80 + x] = 0.0f;
    snprintf(path, sizeof path, "%s/frames/f%d.png", dir, f);
    ck_assert_int_eq(rod_image_write_png(img, path, ROD_PNG_GRAY, 8, NULL),
                     ROD_OK);
  }
  rod_image_free(img);
}

/* rodsim's commands replace only their own outputs: track's tip CSV (its
 * extended attribute user.rodsim), calibrate's fitted scenario, bench's
 * table; a
 * foreign file is refused (exit 2, one line, before any work) unless
 * --force, an input always. Before, each was replaced. */
START_TEST(commands_replace_only_their_outputs) {
  write_frames();
  const char *track = "track frames --fps 100 --scale 1e-3 --origin 10,20 -q";
  char args[600], text[512];
  snprintf(args, sizeof args, "%s -o tip.csv", track);
  double wall;
  rod_cli_result r = run_in_dir(args, &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  slurp("tip.csv", text, sizeof text);
  ck_assert_msg(strncmp(text, "t,x,z\n", 6) == 0, "%s", text);
  r = run_in_dir(args, &wall); /* its own file: replaced (by its xattr) */
  ck_assert_msg(r.status == (xattrs_kept() ? 0 : 2), "%s", r.err);
  rod_test_write(dir, "notes.txt", "my notes\n");
  snprintf(args, sizeof args, "%s -o notes.txt", track);
  expect_refused(args, "notes.txt: -o: exists and is not a file rodsim wrote",
                 "--force");
  snprintf(args, sizeof args, "%s --shape frames/f0.png", track);
  expect_refused(args, "f0.png: --shape", "not a file rodsim wrote");
  slurp("notes.txt", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  snprintf(args, sizeof args, "%s -o notes.txt --force", track);
  r = run_in_dir(args, &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  slurp("notes.txt", text, sizeof text);
  ck_assert_int_eq(strncmp(text, "t,x,z\n", 6), 0);
  /* the scenario and the data fitted: never, also with --force */
  write_scenario("rod.ini", "");
  expect_refused("calibrate rod.ini --data tip.csv -o rod.ini --force",
                 "rod.ini: -o: is rod.ini, which this command reads", NULL);
  expect_refused("calibrate rod.ini --data tip.csv -o tip.csv --force",
                 "tip.csv, which this command reads", NULL);
  expect_refused("bench rod.ini -o rod.ini --force", "which this command reads",
                 NULL);
  rod_test_write(dir, "mine.csv", "my table\n");
  expect_refused("bench rod.ini -o mine.csv", "not a file rodsim wrote", NULL);
  r = run_in_dir("bench rod.ini -o bench.csv", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  r = run_in_dir("bench rod.ini -o bench.csv", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  slurp("rod.ini", text, sizeof text);
  ck_assert_str_eq(text, good);
  const char *keep[] = {"bench.csv", "frames",  "mine.csv",
                        "notes.txt", "rod.ini", "tip.csv"};
  expect_only(keep, 6);
}
END_TEST

/* The writer's lock of dir/name held by this process while args runs:
 * refused (exit 2, one line naming this process) within a second past
 * start-up, that is before the work (a track, a fit), and nothing
 * written under name. */
static void expect_lock_taken(const char *args, const char *name) {
  char path[600], pid[64];
  in_dir(path, sizeof path, name);
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  rod_outfile *held;
  ck_assert_int_eq(rod_outfile_open(path, &r, &held, &err), ROD_OK);
  snprintf(pid, sizeof pid, "(rodsim, pid %ld on ", (long)getpid());
  expect_refused(args, "another process is writing this file", pid);
  rod_outfile_close(held, true);
  ck_assert_msg(access(path, F_OK) != 0, "'%s' wrote %s", args, name);
}

/* Every writer takes the writer's lock of its output (io/outfile.h): run,
 * static, track's -o and --shape, calibrate -o, bench -o, compare -o,
 * export's XDMF description and its VTK files, and the library. Before,
 * export --vtk wrote its files with fopen (no lock: two exports into one
 * folder interleaved, a planted link followed, a foreign file replaced),
 * track and calibrate met a held lock only after their work, compare after
 * its reference run. */
START_TEST(every_writer_takes_the_lock) {
  write_scenario("rod.ini", "");
  write_frames();
  double wall;
  rod_cli_result r = run_in_dir(
      "track frames --fps 100 --scale 1e-3 --origin 10,20 -q -o tip.csv",
      &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  r = run_in_dir("run rod.ini -o run.h5 -q", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  expect_lock_taken("run rod.ini -o a.h5", "a.h5");
  expect_lock_taken("static rod.ini -o b.h5", "b.h5");
  const char *track = "track frames --fps 100 --scale 1e-3 --origin 10,20";
  char args[600];
  snprintf(args, sizeof args, "%s -o c.csv", track);
  expect_lock_taken(args, "c.csv");
  snprintf(args, sizeof args, "%s --shape d.h5", track);
  expect_lock_taken(args, "d.h5");
  /* and written when free: the shape of a PNG folder is the centreline's
   * (the default method there, rightmost, has none: a segfault before) */
  snprintf(args, sizeof args, "%s --shape d.h5 -o c.csv -q", track);
  r = run_in_dir(args, &wall);
  ck_assert_msg(r.status == 0, "'%s': exit %d: %s", args, r.status, r.err);
  expect_lock_taken("calibrate rod.ini --data tip.csv -o e.ini", "e.ini");
  expect_lock_taken("bench rod.ini -o f.csv", "f.csv");
  expect_lock_taken("compare rod.ini --segments 4 -o g.csv", "g.csv");
  expect_lock_taken("export run.h5 --xdmf -o h.xdmf", "h.xdmf");
  char vtk[600];
  in_dir(vtk, sizeof vtk, "vtk");
  ck_assert_int_eq(mkdir(vtk, 0700), 0);
  expect_lock_taken("export run.h5 --vtk -o vtk", "vtk/run.pvd");
  /* the copy's files replace only rodsim's (before: any, by fopen) */
  rod_test_write(dir, "vtk/run_000001.vtp", "my notes\n");
  expect_refused("export run.h5 --vtk -o vtk", "run_000001.vtp",
                 "not a file rodsim wrote");
  char text[64];
  slurp("vtk/run_000001.vtp", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  r = run_in_dir("export run.h5 --vtk -o vtk --force", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  r = run_in_dir("export run.h5 --vtk -o vtk", &wall); /* its own files */
  ck_assert_msg(r.status == 0, "%s", r.err);
  /* the library: a Sim's output */
  char ini[600], out[600], pid[64];
  in_dir(ini, sizeof ini, "rod.ini");
  in_dir(out, sizeof out, "lib.h5");
  rod_sim *sim;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_sim_create_file(ini, &sim, &err), ROD_OK);
  rod_out_rules rules = text_rules();
  rod_outfile *held;
  ck_assert_int_eq(rod_outfile_open(out, &rules, &held, &err), ROD_OK);
  ck_assert_int_eq(rod_sim_open_output(sim, out), ROD_EIO);
  snprintf(pid, sizeof pid, "(rodsim, pid %ld on ", (long)getpid());
  ck_assert_msg(strstr(rod_sim_error(sim), pid), "%s", rod_sim_error(sim));
  rod_outfile_close(held, true);
  ck_assert_int_eq(rod_sim_open_output(sim, out), ROD_OK);
  ck_assert_int_eq(rod_sim_close_output(sim, NULL), ROD_OK);
  rod_sim_free(sim);
  const char *keep[] = {"c.csv",   "d.h5",   "frames",  "lib.h5",
                        "rod.ini", "run.h5", "tip.csv", "vtk"};
  expect_only(keep, 8);
}
END_TEST

/* `rodsim run weight_release.ini` with a static solve that searches for
 * many seconds (a rod far too soft for its weight), -o out, interrupted
 * by SIGINT after a second: exit 130. */
static rod_cli_result interrupt_static(const char *out) {
  const char *data = getenv("RODSIM_DATA") ? getenv("RODSIM_DATA") : "data";
  char args[1024];
  snprintf(args, sizeof args,
           "run '%s/scenarios/weight_release.ini' -o %s --set "
           "rod.bending_stiffness=1e-12",
           data, out);
  char cmd[4096], o[600], e[600];
  snprintf(o, sizeof o, "%s/stdout.txt", dir);
  snprintf(e, sizeof e, "%s/stderr.txt", dir);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && exec timeout --foreground --preserve-status -s INT -k "
           "60 %g '%s' %s >'%s' 2>'%s'",
           dir, slowdown(), getenv("RODSIM"), args, o, e);
  rod_cli_result r;
  int w = system(cmd);
  r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
  rod_test_slurp(e, r.err, sizeof r.err);
  ck_assert_msg(r.status == 130, "exit %d: %s", r.status, r.err);
  return r;
}

/* A signal during the static solve removes only the file this run made:
 * an earlier file under the output's name stays as it was, and an output
 * that is not a regular file (here a link to /dev/null; as root, -o
 * /dev/null itself was deleted) is never removed. Before, the handler
 * unlinked the output's path when it was not a regular file. */
/* A user's own file where a run's XDMF description would go is left as
 * it is, and the run says so without failing: `rodsim run` with one
 * warning line, the library by rod_sim_warning (before: nothing), which
 * the next output clears. */
START_TEST(xdmf_in_the_way_is_said) {
  write_scenario("rod.ini", "");
  rod_test_write(dir, "run.xdmf", "my notes\n");
  double wall;
  rod_cli_result r = run_in_dir("run rod.ini -o run.h5 -q", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  ck_assert_msg(strstr(r.err, "output.xdmf: warning:") &&
                    strstr(r.err, "run.xdmf not written"),
                "%s", r.err);
  char text[64];
  slurp("run.xdmf", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  /* the library */
  char ini[600], out[600];
  in_dir(ini, sizeof ini, "rod.ini");
  in_dir(out, sizeof out, "run.h5");
  rod_sim *sim;
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(rod_sim_create_file(ini, &sim, &err), ROD_OK);
  ck_assert_str_eq(rod_sim_warning(sim), "");
  ck_assert_int_eq(rod_sim_open_output(sim, out), ROD_OK);
  ck_assert_int_eq(rod_sim_advance_to(sim, 0.01), ROD_OK);
  ck_assert_int_eq(rod_sim_close_output(sim, NULL), ROD_OK);
  ck_assert_msg(strstr(rod_sim_warning(sim), "run.xdmf not written") &&
                    strstr(rod_sim_warning(sim), "not a file rodsim wrote"),
                "%s", rod_sim_warning(sim));
  slurp("run.xdmf", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  in_dir(out, sizeof out, "other.h5"); /* its description can be written */
  ck_assert_int_eq(rod_sim_open_output(sim, out), ROD_OK);
  ck_assert_str_eq(rod_sim_warning(sim), "");
  ck_assert_int_eq(rod_sim_close_output(sim, NULL), ROD_OK);
  ck_assert_str_eq(rod_sim_warning(sim), "");
  rod_sim_free(sim);
}
END_TEST

/* Descriptors open in this process. */
static int open_descriptors(void) {
  DIR *d = opendir("/proc/self/fd");
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* The file an output replaces, and a description a run removes, stay
 * held until their holder closes them, which then frees their blocks (on
 * the writer's thread, off the solver's); a run of the library over its
 * own earlier file and description leaves no descriptor open. */
START_TEST(replaced_files_held_then_released) {
  rod_out_rules r = text_rules();
  rod_error err = {{0}, {0}, {0}, 0};
  ck_assert_int_eq(write_through("a.txt", &r, "# rodsim 1\n", &err), ROD_OK);
  char path[600], text[64];
  in_dir(path, sizeof path, "a.txt");
  struct stat old, st;
  ck_assert_int_eq(stat(path, &old), 0);
  rod_outfile *o;
  ck_assert_int_eq(rod_outfile_open(path, &r, &o, &err), ROD_OK);
  ck_assert_int_eq(rod_outfile_take_replaced(o), -1); /* nothing yet */
  FILE *f = rod_outfile_stream(o);
  ck_assert_ptr_nonnull(f);
  fputs("# rodsim 2\n", f);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(rod_outfile_commit(o, &err), ROD_OK);
  const int held = rod_outfile_take_replaced(o);
  ck_assert_int_ge(held, 0);
  ck_assert_int_eq(rod_outfile_take_replaced(o), -1); /* given once */
  ck_assert_int_eq(fstat(held, &st), 0);
  ck_assert(st.st_ino == old.st_ino && st.st_nlink == 0);
  close(held);
  rod_outfile_close(o, false);
  slurp("a.txt", text, sizeof text);
  ck_assert_str_eq(text, "# rodsim 2\n");
  /* a removal */
  rod_test_write(dir, "b.txt", "b\n");
  in_dir(path, sizeof path, "b.txt");
  ck_assert_int_eq(stat(path, &old), 0);
  const int removed = rod_out_unlink_held(path);
  ck_assert_int_ge(removed, 0);
  ck_assert_int_eq(errno, 0);
  ck_assert_int_ne(access(path, F_OK), 0);
  ck_assert_int_eq(fstat(removed, &st), 0);
  ck_assert(st.st_ino == old.st_ino && st.st_nlink == 0);
  close(removed);
  ck_assert_int_eq(rod_out_unlink_held(path), -1);
  ck_assert_int_eq(errno, ENOENT);
  /* the library, twice onto one name */
  write_scenario("rod.ini", "");
  char ini[600], out[600];
  in_dir(ini, sizeof ini, "rod.ini");
  in_dir(out, sizeof out, "run.h5");
  rod_sim *sim;
  ck_assert_int_eq(rod_sim_create_file(ini, &sim, &err), ROD_OK);
  ck_assert_int_eq(rod_sim_open_output(sim, out), ROD_OK);
  ck_assert_int_eq(rod_sim_advance_to(sim, 0.01), ROD_OK);
  ck_assert_int_eq(rod_sim_close_output(sim, NULL), ROD_OK);
  struct stat h5, xdmf;
  ck_assert_int_eq(stat(out, &h5), 0);
  in_dir(path, sizeof path, "run.xdmf");
  ck_assert_int_eq(stat(path, &xdmf), 0);
  const int before = open_descriptors();
  ck_assert_int_eq(rod_sim_open_output(sim, out), ROD_OK);
  ck_assert_int_eq(rod_sim_advance_to(sim, 0.02), ROD_OK);
  ck_assert_int_eq(rod_sim_close_output(sim, NULL), ROD_OK);
  rod_sim_free(sim);
  ck_assert_int_eq(open_descriptors(), before);
  /* both made again, of the second run's samples (from t = 0.01 s) */
  ck_assert_int_eq(stat(out, &st), 0);
  ck_assert_int_ne(st.st_size, h5.st_size);
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_ne(st.st_size, xdmf.st_size);
}
END_TEST

START_TEST(static_interrupt_removes_only_its_own_file) {
  char link_path[600], text[64];
  in_dir(link_path, sizeof link_path, "null");
  ck_assert_int_eq(symlink("/dev/null", link_path), 0);
  interrupt_static("null");
  struct stat st;
  ck_assert_int_eq(lstat(link_path, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(stat("/dev/null", &st), 0);
  ck_assert(S_ISCHR(st.st_mode));
  /* an earlier run's file: kept, byte for byte */
  write_scenario("good.ini", "");
  double wall;
  rod_cli_result r = run_in_dir("static good.ini -o out.h5", &wall);
  ck_assert_msg(r.status == 0, "%s", r.err);
  char path[600], before[1300];
  in_dir(path, sizeof path, "out.h5");
  snprintf(before, sizeof before, "cp '%s' '%s.before'", path, path);
  ck_assert_int_eq(system(before), 0);
  interrupt_static("out.h5");
  snprintf(before, sizeof before, "cmp -s '%s' '%s.before'", path, path);
  ck_assert_int_eq(system(before), 0);
  snprintf(text, sizeof text, "out.h5.before");
  const char *keep[] = {"good.ini", "null", "out.h5", text};
  expect_only(keep, 4);
}
END_TEST

/* `rodsim run x.ini -o x.ini` leaves the scenario intact (exit 2, one
 * line); before, it turned into an HDF5 file. */
START_TEST(run_onto_its_scenario_refused) {
  write_scenario("x.ini", "");
  expect_refused("run x.ini -o x.ini",
                 "x.ini: output.file: is x.ini, which "
                 "this command reads",
                 NULL);
  expect_refused("run x.ini -o x.ini --force", "which this command reads",
                 NULL);
  char text[512];
  slurp("x.ini", text, sizeof text);
  ck_assert_str_eq(text, good);
  rod_test_write(dir, "notes.txt", "my notes\n");
  expect_refused("static x.ini -o notes.txt", "not a file rodsim wrote",
                 "--force");
  slurp("notes.txt", text, sizeof text);
  ck_assert_str_eq(text, "my notes\n");
  /* a scenario naming itself, or a file of the user, as its output */
  write_scenario("y.ini", "[output]\nfile = y.ini\n");
  expect_refused("run y.ini", "which this command reads", NULL);
  write_scenario("z.ini", "[output]\nfile = x.ini\n");
  expect_refused("run z.ini",
                 "x.ini: output.file: exists and is not a file "
                 "rodsim wrote",
                 NULL);
  slurp("x.ini", text, sizeof text);
  ck_assert_str_eq(text, good);
  const char *keep[] = {"notes.txt", "x.ini", "y.ini", "z.ini"};
  expect_only(keep, 4);
}
END_TEST

static Suite *files_out_suite(void) {
  Suite *s = suite_create("files_out");
  TCase *tc = tcase_create("outputs");
  tcase_add_checked_fixture(tc, make_dir, remove_dir);
  tcase_add_test(tc, outputs_replace_only_rodsim_files);
  tcase_add_test(tc, hdf5_outputs_recognised_by_attribute);
  tcase_add_test(tc, text_outputs_recognised_by_xattr);
  tcase_add_test(tc, writer_lock_names_the_holder);
  tcase_add_test(tc, planted_part_link_not_followed);
  tcase_add_test(tc, killed_writers_part_taken_over);
  tcase_add_test(tc, special_outputs);
  tcase_add_test(tc, discard_removes_only_our_file);
  tcase_add_test(tc, commands_replace_only_their_outputs);
  tcase_add_test(tc, every_writer_takes_the_lock);
  tcase_add_test(tc, static_interrupt_removes_only_its_own_file);
  tcase_add_test(tc, xdmf_in_the_way_is_said);
  tcase_add_test(tc, run_onto_its_scenario_refused);
  tcase_add_test(tc, replaced_files_held_then_released);
  suite_add_tcase(s, tc);
  return s;
}

ROD_TEST_MAIN(files_out_suite)

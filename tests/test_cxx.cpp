// Every public header compiles as C++ and links (extern "C"): a rod set up
// from INI text, solved, stepped and read back from a C++ program.
#include <rod/rod.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  static_assert(ROD_VERSION_NUMBER >= 100, "version macro");
  rod_sim *sim = nullptr;
  rod_error err;
  const char *ini = "[rod]\nlength = 0.3\n[space]\nnodes = 20\n";
  if (rod_sim_create_string(ini, "c++", &sim, &err) != ROD_OK) {
    std::fprintf(stderr, "create failed: %s\n", err.message);
    return 1;
  }
  if (rod_sim_static(sim) != ROD_OK || rod_sim_step(sim) != ROD_OK) {
    std::fprintf(stderr, "%s\n", rod_sim_error(sim));
    return 1;
  }
  std::vector<double> xyz(3 * rod_sim_points(sim));
  rod_sim_get_positions(sim, xyz.data());
  const double tip_z = xyz[xyz.size() - 1];
  rod_sim_free(sim);
  std::printf("rodsim %s (%s): tip z %.6f m\n", rod_version(), rod_revision(),
              tip_z);
  return std::isfinite(tip_z) && tip_z < 0 ? 0 : 1;
}

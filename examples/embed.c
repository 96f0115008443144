/* A cantilever at rest under gravity, pushed up at the tip from t = 12 ms
 * (docs/embedding.md). cc embed.c $(pkg-config --cflags --libs rod) */
#include <rod/rod.h>
#include <stdio.h>

int main(void) {
  rod_sim *sim;
  rod_error err;
  if (rod_sim_create_string("[rod]\nlength = 0.3\n[space]\nnodes = 40\n",
                            "embed", &sim, &err) != ROD_OK)
    return fprintf(stderr, "%s: %s\n", err.key, err.message), 2;
  const double push[3] = {0, 0, 0.05}; /* N, world frame */
  double xyz[40 * 3];                  /* rod_sim_points(sim) x 3, m */
  for (int i = 1; i <= 50; i++) {
    if (i == 6)
      rod_sim_set_tip_load(sim, push, NULL); /* acts from the next step */
    if (rod_sim_step(sim) != ROD_OK)         /* the first solves t = 0 too */
      return fprintf(stderr, "%s\n", rod_sim_error(sim)), 1;
    rod_sim_get_positions(sim, xyz);
    printf("%.3f %.6f\n", rod_sim_time(sim), xyz[3 * 39 + 2]); /* t, tip z */
  }
  rod_sim_free(sim);
  return 0;
}

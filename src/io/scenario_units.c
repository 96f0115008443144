/* Warnings that name a likely unit slip in [rod] (ROD_WARN_UNITS,
 * docs/commands.md#warnings): a value far outside what rods and the
 * materials they are made of are, one warning a key. The bounds are the
 * extremes of engineering materials (Ashby, Materials Selection in
 * Mechanical Design, 2011, the density and modulus charts), and a value is
 * warned about only beyond 100 times past them, so every real rod passes:
 * nitinol (6450 kg/m^3, 40-80 GPa), steel (7850, 200 GPa), silicone
 * robots (1070-1200 kg/m^3, 5e4 to 3e6 Pa), copper and steel cables,
 * nylon, polypropylene and silk sutures (900-1400 kg/m^3, 1-10 GPa).
 * What it catches: a modulus in GPa or MPa for Pa (200 for 200e9), a
 * density in g/mm^3 or t/mm^3 (7.85e-6, 7.85e-9), a length or diameter
 * in mm for m. */
#include <stdbool.h>
#include <stdio.h>

#include "scenario_warn.h"

/* A material property's range over engineering materials: its least and
 * most, what has them, and how the key is given in SI. The bounds are
 * the extremes of the density and modulus charts. */
typedef struct {
  const char *key, *unit;
  double least, most;
  const char *least_word, *least_name; /* "lightest", "polymer foams" */
  const char *most_word, *most_name;   /* "densest", "tungsten" */
  const char *example;                 /* the SI value of a known rod */
} material_range;

/* kg/m^3: polymer foams (expanded polystyrene and polyurethane, 10 to
 * 30) to tungsten (19300). */
static const material_range density = {
    "rod.density", "kg/m^3",   10.0,
    19300.0,       "lightest", "polymer foams",
    "densest",     "tungsten", "steel is 7850 kg/m^3"};

/* Pa: Young's modulus of the softest silicone elastomers cast as soft
 * robots (Shore 00-10 grades, about 3e4 Pa at small strain) to diamond
 * (1.2e12); shear moduli a third of the elastomers' (rubber is
 * incompressible, G = E / 3) to diamond's 5.3e11. */
static const material_range youngs = {"rod.youngs_modulus",
                                      "Pa",
                                      3e4,
                                      1.2e12,
                                      "softest",
                                      "silicone elastomers",
                                      "stiffest",
                                      "diamond",
                                      "steel is 200e9 Pa, not 200 as in GPa"};
static const material_range shear = {"rod.shear_modulus",
                                     "Pa",
                                     1e4,
                                     5.3e11,
                                     "softest",
                                     "silicone elastomers",
                                     "stiffest",
                                     "diamond",
                                     "steel is 80e9 Pa, not 80 as in GPa"};

/* How far past those bounds a value must lie to be warned about. */
static const double material_margin = 100.0;

/* Geometry: a rod is slender (rod theory holds) beyond 10 diameters; a
 * diameter beyond 0.1 m or a length beyond 100 m is likely one in mm. */
static const double slender_ratio = 10.0, diameter_most = 0.1,
                    length_most = 100.0;

/* value outside m's range by more than material_margin: warned. */
static void material(rod_warning_list *w, const material_range *m,
                     double value) {
  const bool below = value * material_margin < m->least;
  if (!below && !(value > m->most * material_margin))
    return;
  rod_warning_add(
      w, m->key,
      "%g %s is %.2g times %s the %s engineering materials (%s, "
      "%g %s; the %s, %s, %g %s): a unit slip? (%s)",
      value, m->unit, below ? m->least / value : value / m->most,
      below ? "below" : "above", below ? m->least_word : m->most_word,
      below ? m->least_name : m->most_name, below ? m->least : m->most, m->unit,
      below ? m->most_word : m->least_word,
      below ? m->most_name : m->least_name, below ? m->most : m->least, m->unit,
      m->example);
}

void rod_scenario_warn_units(const rod_scenario *sc, rod_warning_list *w) {
  const double L = sc->rod.length, d = sc->rod.diameter;
  if (d > diameter_most)
    rod_warning_add(w, "rod.diameter",
                    "%g m is more than %g m, thicker than rods are: if "
                    "millimetres were meant, rod.diameter = %g",
                    d, diameter_most, d * 1e-3);
  if (L > length_most)
    rod_warning_add(w, "rod.length",
                    "%g m is more than %g m: if millimetres were meant, "
                    "rod.length = %g",
                    L, length_most, L * 1e-3);
  if (L < slender_ratio * d)
    rod_warning_add(w, "rod.length",
                    "%g m is %.2g diameters (rod.diameter = %g m), shorter "
                    "than the %g diameters rod theory needs: a unit slip in "
                    "rod.length or rod.diameter?",
                    L, L / d, d, slender_ratio);
  material(w, &density, sc->rod.density);
  /* E makes the bending stiffness unless it is given, and the extension
   * stiffness of the Cosserat rod */
  if (!sc->rod.has_bending_stiffness || sc->rod.model == ROD_MODEL_COSSERAT)
    material(w, &youngs, sc->rod.youngs_modulus);
  material(w, &shear, sc->rod.shear_modulus);
}

#!/usr/bin/python3
"""Closed loop from Python: a PD controller turns the clamp of a rod
(docs/embedding.md).

A motor of rotor inertia J holds the clamp of a horizontal steel rod and
turns it about the world y axis. Its PD law drives the clamp angle theta
to a reference that steps from 0 to 0.3 rad at t = 0.1 s:

    J theta'' = kp (theta_ref - theta) - kd theta' + m_y(0)

where m(0) is the moment the rod exerts on the clamp (its internal moment
at s = 0): gravity and the rod's swinging act back on the motor. Python
integrates the rotor (semi-implicit Euler) between the rod's steps and
sets the clamp's pose and angular velocity for the next one; the rod is
solved in-process by rodsim. At rest the motor's torque balances the
rod's: kp (theta_ref - theta) + m_y(0) = 0, which the script checks.
"""
import math
import sys

import numpy as np

import rodsim

# %% The rod: the paper's spring-steel rod, clamped along +x, with drag.
sim = rodsim.Sim(ini="""
[rod]
length = 0.408
diameter = 1.42e-3
bending_stiffness = 0.03803
density = 7621
drag = 0.003556
[time]
dt = 2e-3
[space]
nodes = 50
""", name="pd_control")
L = 0.408
dt = sim.dt

# %% The motor: rotor inertia well above the rod's about the clamp
# (rhoA L^3 / 3 = 2.7e-4 kg m^2), so that the explicit coupling is stable;
# about 10 rad/s with damping ratio 0.7.
J, kp, kd = 5e-3, 0.5, 0.07      # kg m^2, N m/rad, N m s/rad
theta_ref = lambda t: 0.3 if t >= 0.1 else 0.0

q0 = np.array([math.sqrt(0.5), 0.0, math.sqrt(0.5), 0.0])  # d3 along +x


def clamp(theta):
    """Quaternion of the clamp turned by theta about world y."""
    c, s = math.cos(theta / 2), math.sin(theta / 2)
    w, x, y, z = q0
    return np.array([c * w - s * y, c * x + s * z, c * y + s * w,
                     c * z - s * x])


# %% Static start, then the loop: read the rod's moment on the clamp, step
# the rotor, set the clamp for the next step.
sim.static()
theta, omega = 0.0, 0.0
log = []


def controller(s):
    global theta, omega
    st = s.state()
    m_y = st["moment"][0, 1]                 # N m, the rod on the clamp
    torque = kp * (theta_ref(s.time) - theta) - kd * omega
    omega += dt * (torque + m_y) / J
    theta += dt * omega
    s.set_base([0, 0, 0], clamp(theta), [0, 0, 0], [0, omega, 0])
    log.append((s.time, theta, st["position"][-1, 2], m_y))


sim.run(4.0, callback=controller)

# %% Where it settles. The rod keeps swinging about its equilibrium (its
# first mode, lightly damped by the air); the clamp's mean angle over the
# last two seconds against the angle where the motor's torque balances the
# static rod's, kp (0.3 - theta) + m_y(theta) = 0, found by secant steps on
# static solves with the clamp turned (an independent check: no dynamics).
t, th, tip_z, m_y = np.array(log).T
late = t > t[-1] - 2.0
mean_theta = th[late].mean()


def rod_moment(theta):
    rod = rodsim.Sim(sim.scenario)
    rod.set_base([0, 0, 0], clamp(theta), [0, 0, 0], [0, 0, 0])
    rod.static()
    return rod.state()["moment"][0, 1]


a, b = 0.3, 0.35
fa, fb = (kp * (0.3 - x) + rod_moment(x) for x in (a, b))
while abs(fb) > 1e-12 * kp:
    a, b, fa = b, b - fb * (b - a) / (fb - fa), fb
    fb = kp * (0.3 - b) + rod_moment(b)
theta_rest = b
print("clamp angle: mean over the last 2 s %.5f rad, at rest %.5f rad "
      "(reference 0.3; the rod's weight holds it above)"
      % (mean_theta, theta_rest))
print("tip z swings %.2f mm about %.4f m" %
      (1e3 * (tip_z[late].max() - tip_z[late].min()) / 2, tip_z[late].mean()))
sys.exit(0 if abs(mean_theta - theta_rest) < 1e-3 else 1)

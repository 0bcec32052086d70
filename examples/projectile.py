"""A projectile with air drag, integrated until it lands, differentiated w.r.t. the angle.

    python examples/projectile.py

The number of time steps depends on the angle (a steeper shot flies longer): a `while` loop
whose trip count depends on the input. srcad differentiates it as written, and a few steps of
gradient ascent on the angle find the launch angle that carries furthest with drag (less than
the 45 degrees of the drag-free textbook answer).
"""

import math

from srcad.check import numerical_grad

import srcad

G = 9.81  # m/s**2
DRAG = 0.05  # 1/m, quadratic drag coefficient over mass
DT = 0.002  # s


def distance(angle, speed):
    """Horizontal distance travelled before the projectile comes back to the ground."""
    vx = speed * math.cos(angle)
    vy = speed * math.sin(angle)
    x = 0.0
    y = 0.0
    while y >= 0.0:
        v = math.sqrt(vx * vx + vy * vy)
        vx = vx - DRAG * v * vx * DT
        vy = vy - (G + DRAG * v * vy) * DT
        x = x + vx * DT
        y = y + vy * DT
    # The last step went below the ground: go back along it to where y was 0. Without this
    # the distance would jump with the step count and its derivative would miss the change
    # of flight time (the derivative of the program as run, not of the flight).
    return x - vx * y / vy


def main():
    speed = 30.0
    angle = math.radians(45.0)
    d_angle = srcad.grad(distance, wrt="angle")
    print(f"distance at 45 deg: {distance(angle, speed):.3f} m")
    print(f"d distance / d angle: srcad {d_angle(angle, speed):.4f} m/rad, "
          f"finite differences {numerical_grad(distance, (angle, speed), 0, eps=1e-6):.4f}")
    for _ in range(30):
        angle += 0.01 * d_angle(angle, speed)
    print(f"best angle with drag: {math.degrees(angle):.2f} deg "
          f"-> {distance(angle, speed):.3f} m")
    print()
    print(srcad.source(d_angle))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fits the polynomial of the float32 normal CDF in core/cpu/vec_math-inl.h (normal_cdf_v, for gelu).

With z >= 0 and t = 2 / (2 + z), erfc(z) = t * exp(-z^2) * exp(P(t)), where
P(t) = log(erfc(z) / t) + z^2 is smooth on t in (0, 1]. P is interpolated at the Chebyshev nodes of
[2 / (2 + ZMAX), 1] (40-digit arithmetic, mpmath), turned into monomial coefficients and rounded to
float32. Then the kernel's float32 steps are simulated, each operation rounded to float32, and the worst
relative error of Phi(x) = erfc(-x / sqrt 2) / 2 on [-10, 10] is printed.

Usage: python3 tools/fit_normal_cdf.py [degree]   (needs python3-mpmath; degree 8 is the kernel's)
"""
import math
import struct
import sys

import mpmath

mpmath.mp.dps = 40
ZMAX = 10.5  # erfc(10.5) ~ 1e-49: below float32's smallest subnormal


def f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def fit(degree):
    n = degree + 1
    a, b = mpmath.mpf(2) / (2 + ZMAX), mpmath.mpf(1)

    def target(t):
        z = 2 / t - 2
        return mpmath.log(mpmath.erfc(z) / t) + z * z

    nodes = [(a + b) / 2 + (b - a) / 2 * mpmath.cos(mpmath.pi * (k + 0.5) / n) for k in range(n)]
    values = [target(t) for t in nodes]
    u_of = lambda t: (2 * t - a - b) / (b - a)
    cheb = [2 * sum(v * mpmath.chebyt(j, u_of(t)) for t, v in zip(nodes, values)) / n for j in range(n)]
    cheb[0] /= 2
    # sum_j c_j T_j(u(t)) as a polynomial in t: evaluate it at n points and solve the Vandermonde system.
    ts = [a + (b - a) * k / degree for k in range(n)]
    ys = [sum(c * mpmath.chebyt(j, u_of(t)) for j, c in enumerate(cheb)) for t in ts]
    coef = mpmath.lu_solve(mpmath.matrix([[t**k for k in range(n)] for t in ts]), mpmath.matrix(ys))
    return [f32(c) for c in coef]


def phi_f32(x, coef):
    """The kernel's steps in float32 (FMA where the kernel uses one)."""
    ax = f32(min(abs(x), 14.0))
    z = f32(ax * f32(math.sqrt(0.5)))
    t = f32(2.0 / f32(2.0 + z))
    p = coef[-1]
    for c in reversed(coef[:-1]):
        p = f32(p * t + c)
    h = f32(ax * ax)
    lo = f32(ax * ax - h)
    gauss = f32(f32(math.exp(-0.5 * h)) * f32(1.0 - 0.5 * lo))
    half_erfc = f32(f32(f32(0.5 * t) * gauss) * f32(math.exp(p)))
    if x < -14:
        return 0.0
    return half_erfc if x < 0 else f32(1.0 - half_erfc)


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    coef = fit(degree)
    worst, at = 0.0, 0.0
    for i in range(-40000, 40001):
        x = f32(i / 4000.0)
        want = float(mpmath.erfc(-mpmath.mpf(x) / mpmath.sqrt(2)) / 2)
        err = abs(phi_f32(x, coef) - want) / want
        if err > worst:
            worst, at = err, x
    print(f"degree {degree}: worst relative error of Phi on [-10, 10] {worst:.2e} at x = {at}")
    print("coefficients of t^0 ... t^%d:" % degree)
    print(", ".join(f"{c!r}f" for c in coef))


if __name__ == "__main__":
    main()

"""SciPy go_benchmark_functions N-R, written from the formulas (see ``__init__``)."""
import numpy as np

from gpubench.forms.definition import (
    Abs,
    Floor,
    Max,
    Min,
    Rational,
    Sum,
    cos,
    exp,
    i,
    log,
    n,
    pi,
    sin,
    softplus,
    sqrt,
    symbols,
    x,
    x1,
    xn,
    y,
)

from ._lib import R, at_least, fixed, missing, scalable

S, S2 = symbols("S S2")
PI = np.pi

# ---------------------------------------------------------------- N, O
# per coordinate 100 + |x_i| where |x_i| >= 0.0001, else 1; when no coordinate is that large,
# f = n / n = 1 (SciPy divides the sum by n): S - (1 - min(Q, 1)) (n - 1), Q the count of large ones
scalable("NeedleEye", {S: Sum(at_least(Abs(x), R("0.0001")) * (99 + Abs(x)) + 1),
                       S2: Sum(at_least(Abs(x), R("0.0001")))},
         S - (1 - Min(S2, 1)) * (n - 1), (-10.0, 10.0), lambda d: [np.zeros(d)], lambda d: 1.0,
         notes="SciPy's branch |x_i| >= 0.0001 is the indicator at_least(|x_i|, 0.0001), a Floor "
               "(see _lib.at_least).")
fixed("NewFunction01", 2, lambda X: sqrt(Abs(cos(sqrt(Abs(X[0]**2 + X[1]))))) + R("0.01") * (X[0] + X[1]),
      (-10, 10), [[-8.46668984648, -9.99980944557]], -0.184648852475)
fixed("NewFunction02", 2, lambda X: sqrt(Abs(sin(sqrt(Abs(X[0]**2 + X[1]))))) + R("0.01") * (X[0] + X[1]),
      (-10, 10), [[-9.94114736324, -9.99997128772]], -0.199409030092)


def _odd_square(X):
    b = [1, R("1.3")]
    d = 2 * Max((X[0] - b[0])**2, (X[1] - b[1])**2)
    h = (X[0] - b[0])**2 + (X[1] - b[1])**2
    return -exp(-d / (2 * pi)) * cos(pi * d) * (1 + R("0.02") * h / (d + R("0.01")))


fixed("OddSquare", 2, _odd_square, (-5 * PI, 5 * PI), [[1.0873320463871847, 1.3873320456818079]],
      -1.00846728102)

# ---------------------------------------------------------------- P


def _product(X):
    out = 1
    for v in X:
        out *= v
    return out


fixed("Parsopoulos", 2, lambda X: cos(X[0])**2 + sin(X[1])**2, (-5, 5), [[PI / 2, PI]], 0.0)
fixed("Pathological", 2, lambda X: R("0.5") + (sin(sqrt(100 * X[0]**2 + X[1]**2))**2 - R("0.5"))
      / (1 + R("0.001") * (X[0]**2 - 2 * X[0] * X[1] + X[1]**2)**2),
      (-100, 100), [[0, 0]], 0.0)
fixed("Paviani", 10, lambda X: sum(log(v - 2)**2 + log(10 - v)**2 for v in X)
      - _product(X)**Rational(1, 5), (2.001, 9.999), [[9.350266] * 10], -45.7784684040686)

scalable("Penalty01", {
    S: Sum(100 * Max(Abs(x) - 10, 0)**4),
    S2: Sum(((x + 1) / 4)**2 * (1 + 10 * sin(pi * (1 + (y + 1) / 4))**2))},
    S + pi / 30 * (10 * sin(pi * (1 + (x1 + 1) / 4))**2 + S2 + ((xn + 1) / 4)**2),
    (-50.0, 50.0), lambda d: [np.full(d, -1.0)], lambda d: 0.0,
    notes="u(x_i, 10, 100, 4) = 100 max(|x_i| - 10, 0)^4; y_i = 1 + (x_i + 1)/4.")
scalable("Penalty02", {
    S: Sum(100 * Max(Abs(x) - 5, 0)**4),
    S2: Sum((x - 1)**2 * (1 + sin(3 * pi * y)**2))},
    S + R("0.1") * (10 * sin(3 * pi * x1)**2 + S2 + (xn - 1)**2 * (1 + sin(2 * pi * xn)**2)),
    (-50.0, 50.0), lambda d: [np.ones(d)], lambda d: 0.0,
    notes="u(x_i, 5, 100, 4) = 100 max(|x_i| - 5, 0)^4.")
fixed("PenHolder", 2, lambda X: -exp(-1 / Abs(cos(X[0]) * cos(X[1])
                                               * exp(Abs(1 - sqrt(X[0]**2 + X[1]**2) / pi)))),
      (-11, 11), [[-9.646167708023526, 9.646167671043401]], -0.9635348327265058,
      notes="1/|b| is unbounded where cos x1 cos x2 = 0 (the limit of f there is 0).")
fixed("PermFunction01", 2, lambda X: sum(sum((j**k + R("0.5")) * ((X[j - 1] / j)**k - 1)
                                               for j in (1, 2))**2 for k in (1, 2)),
      (-2, 3), [[1, 2]], 0.0,
      lacks="sums over k = 1..n of squared sums with powers x_j^k (k up to n), and bounds in n")
fixed("PermFunction02", 2, lambda X: sum(sum((j + 10) * (X[j - 1]**k - Rational(1, j)**k)
                                               for j in (1, 2))**2 for k in (1, 2)),
      (-2, 3), [[1, 0.5]], 0.0,
      lacks="sums over k = 1..n of squared sums with powers x_j^k (k up to n), and bounds in n")


def _pinter2(X):
    """SciPy's Pinter at n = 2: neighbours are cyclic, so x_0 = x_2 and x_3 = x_1."""
    total = 0
    for k, (prev, cur, nxt) in enumerate([(X[1], X[0], X[1]), (X[0], X[1], X[0])], 1):
        a = prev * sin(cur) + sin(nxt)
        b = prev**2 - 2 * cur + 3 * nxt - cos(cur) + 1
        total += k * cur**2 + 20 * k * sin(a)**2 + k * log(1 + k * b**2) / log(10)
    return total


fixed("Pinter", 2, _pinter2, (-10, 10), [[0, 0]], 0.0,
      lacks="a window of three coordinates with cyclic neighbours (x_0 = x_n, x_{n+1} = x_1)")
scalable("Plateau", {S: Sum(Floor(Abs(x)))}, 30 + S, (-5.12, 5.12), lambda d: [np.zeros(d)],
         lambda d: 30.0)
fixed("Powell", 4, lambda X: (X[0] + 10 * X[1])**2 + 5 * (X[2] - X[3])**2 + (X[1] - 2 * X[2])**4
      + 10 * (X[0] - X[3])**4, (-4, 5), [[0, 0, 0, 0]], 0.0)
fixed("PowerSum", 4, lambda X: sum((sum(v**k for v in X) - b)**2
                                   for k, b in zip(range(1, 5), [8, 18, 44, 114])),
      (0, 4), [[1, 2, 2, 3]], 0.0)
fixed("Price01", 2, lambda X: (Abs(X[0]) - 5)**2 + (Abs(X[1]) - 5)**2, (-500, 500), [[5, 5]], 0.0)
fixed("Price02", 2, lambda X: 1 + sin(X[0])**2 + sin(X[1])**2 - R("0.1") * exp(-X[0]**2 - X[1]**2),
      (-10, 10), [[0, 0]], 0.9)
fixed("Price03", 2, lambda X: 100 * (X[1] - X[0]**2)**2 + (R("6.4") * (X[1] - R("0.5"))**2 - X[0]
                                                           - R("0.6"))**2,
      (-5, 5), [[1, 1]], 0.0)
fixed("Price04", 2, lambda X: (2 * X[1] * X[0]**3 - X[1]**3)**2 + (6 * X[0] - X[1]**2 + X[1])**2,
      (-50, 50), [[2, 4]], 0.0)

# ---------------------------------------------------------------- Q
scalable("Qing", {S: Sum((x**2 - i)**2)}, S, (-500.0, 500.0),
         lambda d: [np.sqrt(np.arange(1, d + 1))], lambda d: 0.0)
fixed("Quadratic", 2, lambda X: -R("3803.84") - R("138.08") * X[0] - R("232.92") * X[1]
      + R("128.08") * X[0]**2 + R("203.64") * X[1]**2 + R("182.25") * X[0] * X[1],
      (-10, 10), [[0.19388, 0.48513]], -3873.72418,
      notes="SciPy marks it scalable, but its formula reads x1 and x2 only.")
scalable("Quintic", {S: Sum(Abs(x**5 - 3 * x**4 + 4 * x**3 + 2 * x**2 - 10 * x - 4))}, S,
         (-10.0, 10.0), lambda d: [np.full(d, -1.0)], lambda d: 0.0)

# ---------------------------------------------------------------- R
# SciPy's term (y + 1) cos(b) sin(a) + x cos(a) sin(b), a = sqrt|p|, b = sqrt|q|, p = y + x + 1, q = y - x + 1,
# is p/2 sin(a + b) + q/2 sin(a - b) (y + 1 = (p + q)/2, x = (p - q)/2 and the sine's addition formulas):
# the same function with each oscillating factor once, so its enclosures are far tighter (issue 41, hard41)
_RANA_P, _RANA_Q = y + x + 1, y - x + 1
scalable("Rana", {S: Sum(_RANA_P / 2 * sin(sqrt(Abs(_RANA_P)) + sqrt(Abs(_RANA_Q)))
                         + _RANA_Q / 2 * sin(sqrt(Abs(_RANA_P)) - sqrt(Abs(_RANA_Q))))}, S,
         (-500.000001, 500.000001), lambda d: [[-300.3376, 500.0]], lambda d: -500.8021602966615,
         fglob_dim=2,
         notes="SciPy states the n = 2 minimiser and value for every n. Its term (y + 1) cos(b) sin(a) + x cos(a) sin(b) "
               "(a = sqrt|y + x + 1|, b = sqrt|y - x + 1|) is written p/2 sin(a + b) + q/2 sin(a - b), p = y + x + 1, "
               "q = y - x + 1: the same function, each oscillating factor once.")
scalable("Rastrigin", {S: Sum(x**2 - 10 * cos(2 * pi * x))}, 10 * n + S, (-5.12, 5.12),
         lambda d: [np.zeros(d)], lambda d: 0.0)

_RAT1_A = ["16.08", "33.83", "65.80", "97.20", "191.55", "326.20", "386.87", "520.53", "590.03",
           "651.92", "724.93", "699.56", "689.96", "637.56", "717.41"]
fixed("Ratkowsky01", 4, lambda X: sum((R(a) - X[0] * exp(-softplus(X[1] - X[2] * b) / X[3]))**2
                                      for b, a in enumerate(_RAT1_A, 1)),
      [(0, 1000), (1, 20), (0, 3), (0.1, 6)],
      [[6.996415127e2, 5.2771253025, 7.5962938329e-1, 1.2792483859]], 8.786404908e3,
      notes="(1 + e^u)^(1/x4) is written exp(softplus(u)/x4), equal for every real u.")
_RAT2_A = ["8.93", "10.8", "18.59", "22.33", "39.35", "56.11", "61.73", "64.62", "67.08"]
_RAT2_B = [9, 14, 21, 28, 42, 57, 63, 70, 79]
fixed("Ratkowsky02", 3, lambda X: sum((R(a) - X[0] / (1 + exp(X[1] - X[2] * b)))**2
                                      for a, b in zip(_RAT2_A, _RAT2_B)),
      [(10, 200), (0.5, 5), (0.01, 0.5)], [[7.2462237576e1, 2.6180768402, 6.7359200066e-2]],
      8.0565229338)


def _ripple(X, with_cos):
    total = 0
    for v in X:
        u = -2 * log(2) * ((v - R("0.1")) / R("0.8"))**2
        w = sin(5 * pi * v)**6 + (R("0.1") * cos(500 * pi * v)**2 if with_cos else 0)
        total += -exp(u) * w
    return total


fixed("Ripple01", 2, lambda X: _ripple(X, True), (0, 1), [[0.1, 0.1]], -2.2)
fixed("Ripple25", 2, lambda X: _ripple(X, False), (0, 1), [[0.1, 0.1]], -2.0)
scalable("Rosenbrock", {S: Sum(100 * (y - x**2)**2 + (1 - x)**2)}, S, (-30.0, 30.0),
         lambda d: [np.ones(d)], lambda d: 0.0)
fixed("RosenbrockModified", 2, lambda X: 74 + 100 * (X[1] - X[0]**2)**2 + (1 - X[0])**2
      - 400 * exp(-((X[0] + 1)**2 + (X[1] + 1)**2) / R("0.1")),
      (-2, 2), [[-0.90955374, -0.95057172]], 34.040243106640844)
fixed("RotatedEllipse01", 2, lambda X: 7 * X[0]**2 - 6 * sqrt(3) * X[0] * X[1] + 13 * X[1]**2,
      (-500, 500), [[0, 0]], 0.0)
fixed("RotatedEllipse02", 2, lambda X: X[0]**2 - X[0] * X[1] + X[1]**2, (-500, 500), [[0, 0]], 0.0)

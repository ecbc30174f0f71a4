"""SciPy go_benchmark_functions G-M, written from the formulas (see ``__init__``)."""
import numpy as np

from gpubench.forms.definition import (
    Abs,
    Floor,
    Min,
    Prod,
    Rational,
    Rint,
    Sum,
    Trunc,
    cos,
    exp,
    i,
    log,
    n,
    pi,
    sin,
    sqrt,
    symbols,
    x,
    xn,
    y,
)

from ._lib import R, fixed, missing, scalable

S, S2, P = symbols("S S2 P")
PI = np.pi

# ---------------------------------------------------------------- G
fixed("Gear", 4, lambda X: (1 / R("6.931") - Floor(X[0]) * Floor(X[1]) / (Floor(X[2]) * Floor(X[3])))**2,
      (12, 60), [[16, 19, 43, 49]], 2.7e-12)


def _giunta(X):
    total = R("0.6")
    for v in X:
        a = 16 * v / 15 - 1
        total += sin(a) + sin(a)**2 + sin(4 * a) / 50
    return total


fixed("Giunta", 2, _giunta, (-1, 1), [[0.4673200277395354, 0.4673200169591304]], 0.06447042053690566)
fixed("GoldsteinPrice", 2, lambda X: (
    1 + (X[0] + X[1] + 1)**2 * (19 - 14 * X[0] + 3 * X[0]**2 - 14 * X[1] + 6 * X[0] * X[1]
                                + 3 * X[1]**2))
    * (30 + (2 * X[0] - 3 * X[1])**2 * (18 - 32 * X[0] + 12 * X[0]**2 + 48 * X[1]
                                        - 36 * X[0] * X[1] + 27 * X[1]**2)),
    (-2, 2), [[0, -1]], 3.0)
scalable("Griewank", {S: Sum(x**2), P: Prod(cos(x / sqrt(i)))}, S / 4000 - P + 1, (-100.0, 100.0),
         lambda d: [np.zeros(d)], lambda d: 0.0)
missing("Gulf", "a power with a variable exponent whose base reaches 0, |u_i - x2|^x3")

# ---------------------------------------------------------------- H
fixed("Hansen", 2, lambda X: sum((k + 1) * cos(k * X[0] + k + 1) for k in range(5))
      * sum((k + 1) * cos((k + 2) * X[1] + k + 1) for k in range(5)),
      (-10, 10), [[-7.58989583, -7.70831466]], -176.54179)

_H3_A = [[3, 10, 30], ["0.1", 10, 35], [3, 10, 30], ["0.1", 10, 35]]
_H3_P = [["0.3689", "0.1170", "0.2673"], ["0.4699", "0.4387", "0.7470"],
         ["0.1091", "0.8732", "0.5547"], ["0.03815", "0.5743", "0.8828"]]
_H6_A = [[10, 3, 17, "3.5", "1.7", 8], ["0.05", 10, 17, "0.1", 8, 14],
         [3, "3.5", "1.7", 10, 17, 8], [17, 8, "0.05", 10, "0.1", 14]]
_H6_P = [["0.1312", "0.1696", "0.5569", "0.0124", "0.8283", "0.5886"],
         ["0.2329", "0.4135", "0.8307", "0.3736", "0.1004", "0.9991"],
         ["0.2348", "0.1451", "0.3522", "0.2883", "0.3047", "0.665"],
         ["0.4047", "0.8828", "0.8732", "0.5743", "0.1091", "0.0381"]]
_H_C = ["1.0", "1.2", "3.0", "3.2"]


def _hartmann(A, Pm, X):
    return -sum(R(c) * exp(-sum(R(a) * (v - R(p))**2 for a, p, v in zip(arow, prow, X)))
                for c, arow, prow in zip(_H_C, A, Pm))


fixed("Hartmann3", 3, lambda X: _hartmann(_H3_A, _H3_P, X), (0, 1),
      [[0.11461292, 0.55564907, 0.85254697]], -3.8627821478)
fixed("Hartmann6", 6, lambda X: _hartmann(_H6_A, _H6_P, X), (0, 1),
      [[0.20168952, 0.15001069, 0.47687398, 0.27533243, 0.31165162, 0.65730054]],
      -3.32236801141551)
missing("HelicalValley", "atan2 (the angle of (x1, x2))")
fixed("HimmelBlau", 2, lambda X: (X[0]**2 + X[1] - 11)**2 + (X[0] + X[1]**2 - 7)**2,
      (-5, 5), [[3, 2]], 0.0)
fixed("HolderTable", 2, lambda X: -Abs(sin(X[0]) * cos(X[1])
                                       * exp(Abs(1 - sqrt(X[0]**2 + X[1]**2) / pi))),
      (-10, 10), [[s * 8.055023472141116, t * 9.664590028909654] for s in (1, -1) for t in (1, -1)],
      -19.20850256788675)
fixed("Hosaki", 2, lambda X: (1 - 8 * X[0] + 7 * X[0]**2 - Rational(7, 3) * X[0]**3
                              + Rational(1, 4) * X[0]**4) * X[1]**2 * exp(-X[1]),
      [(0, 5), (0, 6)], [[4, 2]], -2.3458115)

# ---------------------------------------------------------------- I, J, K
missing("Infinity", "a removable singularity: x^6 (sin(1/x) + 2) is defined at x = 0 by continuity")
fixed("JennrichSampson", 2, lambda X: sum((2 + 2 * k - (exp(k * X[0]) + exp(k * X[1])))**2
                                          for k in range(1, 11)),
      (-1, 1), [[0.257825, 0.257825]], 124.3621824)

_JUDGE_C = ["4.284", "4.149", "3.877", "0.533", "2.211", "2.389", "2.145", "3.231", "1.998", "1.379",
            "2.106", "1.428", "1.011", "2.179", "2.858", "1.388", "1.651", "1.593", "1.046", "2.152"]
_JUDGE_A = ["0.286", "0.973", "0.384", "0.276", "0.973", "0.543", "0.957", "0.948", "0.543", "0.797",
            "0.936", "0.889", "0.006", "0.828", "0.399", "0.617", "0.939", "0.784", "0.072", "0.889"]
_JUDGE_B = ["0.645", "0.585", "0.310", "0.058", "0.455", "0.779", "0.259", "0.202", "0.028", "0.099",
            "0.142", "0.296", "0.175", "0.180", "0.842", "0.039", "0.103", "0.620", "0.158", "0.704"]
fixed("Judge", 2, lambda X: sum((X[0] + X[1] * R(a) + X[1]**2 * R(b) - R(c))**2
                                for a, b, c in zip(_JUDGE_A, _JUDGE_B, _JUDGE_C)),
      (-10, 10), [[0.86479, 1.2357]], 16.0817307)
scalable("Katsuura", {P: Prod(1 + i * sum(Rint(2**k * x) / 2**k for k in range(1, 33)))}, P,
         (0.0, 100.0), lambda d: [np.zeros(d)], lambda d: 1.0,
         notes="SciPy's code rounds with numpy's round (ties to even): Rint; d = 32 terms.")
fixed("Keane", 2, lambda X: sin(X[0] - X[1])**2 * sin(X[0] + X[1])**2 / sqrt(X[0]**2 + X[1]**2),
      (0, 10), [[7.85396153, 7.85396135]], 0.0,
      notes="0/0 at the corner (0, 0) of the domain: there the forms give nan (the limit is 0).")

_KOW_A = [4, 2, 1, Rational(1, 2), Rational(1, 4), Rational(1, 6), Rational(1, 8), Rational(1, 10),
          Rational(1, 12), Rational(1, 14), Rational(1, 16)]
_KOW_B = ["0.1957", "0.1947", "0.1735", "0.1600", "0.0844", "0.0627", "0.0456", "0.0342", "0.0323",
          "0.0235", "0.0246"]
fixed("Kowalik", 4, lambda X: sum((R(b) - X[0] * (a**2 + a * X[1]) / (a**2 + a * X[2] + X[3]))**2
                                  for a, b in zip(_KOW_A, _KOW_B)),
      (-5, 5), [[0.192833, 0.190836, 0.123117, 0.135766]], 0.00030748610,
      notes="The denominators a^2 + a x3 + x4 vanish inside the domain; there the forms are unbounded.")

# ---------------------------------------------------------------- L


def _langermann(X):
    total = 0
    for a, b, c in zip([3, 5, 2, 1, 7], [5, 2, 1, 4, 9], [1, 2, 5, 2, 3]):
        r2 = (X[0] - a)**2 + (X[1] - b)**2
        total += c * exp(-r2 / pi) * cos(pi * r2)
    return -total


fixed("Langermann", 2, _langermann, (0, 10), [[2.00299219, 1.006096]], -5.1621259)
missing("LennardJones", "a sum over all pairs of atoms (not a window of neighbours), dimension a "
                        "multiple of 3 (6..60), and a branch on coinciding atoms")
fixed("Leon", 2, lambda X: 100 * (X[1] - X[0]**2)**2 + (1 - X[0])**2, (-1.2, 1.2), [[1, 1]], 0.0)


def _levy03(X):
    w = [1 + (v - 1) / 4 for v in X]
    return (sin(pi * w[0])**2 + (w[0] - 1)**2 * (1 + 10 * sin(pi * w[1])**2) + (w[1] - 1)**2)


fixed("Levy03", 2, _levy03, (-10, 10), [[1, 1]], 0.0)
fixed("Levy05", 2, lambda X: sum(k * cos((k - 1) * X[0] + k) for k in range(1, 6))
      * sum(k * cos((k + 1) * X[1] + k) for k in range(1, 6))
      + (X[0] + R("1.42513"))**2 + (X[1] + R("0.80032"))**2,
      (-10, 10), [[-1.30685, -1.42485]], -176.1375779)
fixed("Levy13", 2, lambda X: sin(3 * pi * X[0])**2 + (X[0] - 1)**2 * (1 + sin(3 * pi * X[1])**2)
      + (X[1] - 1)**2 * (1 + sin(2 * pi * X[1])**2), (-10, 10), [[1, 1]], 0.0)

# ---------------------------------------------------------------- M
fixed("Matyas", 2, lambda X: R("0.26") * (X[0]**2 + X[1]**2) - R("0.48") * X[0] * X[1],
      (-10, 10), [[0, 0]], 0.0)
fixed("McCormick", 2, lambda X: sin(X[0] + X[1]) + (X[0] - X[1])**2 - R("1.5") * X[0]
      + R("2.5") * X[1] + 1, [(-1.5, 4), (-3, 3)], [[-0.5471975602214493, -1.547197559268372]],
      -1.913222954981037)

_MEYER_A = ["3.478E+04", "2.861E+04", "2.365E+04", "1.963E+04", "1.637E+04", "1.372E+04",
            "1.154E+04", "9.744E+03", "8.261E+03", "7.030E+03", "6.005E+03", "5.147E+03",
            "4.427E+03", "3.820E+03", "3.307E+03", "2.872E+03"]
fixed("Meyer", 3, lambda X: sum((R(a) - X[0] * exp(X[1] / (50 + 5 * k + X[2])))**2
                                for k, a in enumerate(_MEYER_A)),
      [(0, 1), (100, 1000), (100, 500)], [[5.6096364710e-3, 6.1813463463e3, 3.4522363462e2]],
      8.7945855171e1)
fixed("Michalewicz", 2, lambda X: -sum(sin(v) * sin(k * v**2 / pi)**20 for k, v in enumerate(X, 1)),
      (0, PI), [[2.20290555, 1.570796]], -1.8013)
fixed("MieleCantrell", 4, lambda X: (exp(-X[0]) - X[1])**4 + 100 * (X[1] - X[2])**6
      + (sin(X[2] - X[3]) / cos(X[2] - X[3]))**4 + X[0]**8,
      (-1, 1), [[0, 1, 1, 1]], 0.0, notes="tan(u) is written sin(u)/cos(u).")
# the sum over i < n as a sum over i <= n with weight min(1, n - i) (0 at i = n): f does not depend
# on x_n, and n - sum x_i + x_n (x_n twice) widened every enclosure by twice x_n's width
scalable("Mishra01", {S: Sum(x * Min(1, n - i))}, exp((n - S) * log(1 + n - S)), (0.0, 1.0 + 1e-9),
         lambda d: [np.ones(d)], lambda d: 2.0,
         notes="(1 + g)^g with g = n - sum_{i<n} x_i >= 0 on the domain, written exp(g log(1 + g)); "
               "the sum over i < n is written with the weight min(1, n - i), so x_n appears nowhere.")
scalable("Mishra02", {S: Sum((x + y) / 2)}, exp((n - S) * log(1 + n - S)), (0.0, 1.0 + 1e-9),
         lambda d: [np.ones(d)], lambda d: 2.0,
         notes="(1 + g)^g with g = n - sum (x_i + x_{i+1})/2 >= 0, written exp(g log(1 + g)).")
fixed("Mishra03", 2, lambda X: R("0.01") * (X[0] + X[1])
      + sqrt(Abs(cos(sqrt(Abs(X[0]**2 + X[1]**2))))),
      (-10, 10), [[-9.99378322, -9.99918927]], -0.19990562)
fixed("Mishra04", 2, lambda X: R("0.01") * (X[0] + X[1])
      + sqrt(Abs(sin(sqrt(Abs(X[0]**2 + X[1]**2))))),
      (-10, 10), [[-8.88055269734, -8.89097599857]], -0.177715264826)
fixed("Mishra05", 2, lambda X: R("0.01") * X[0] + R("0.1") * X[1]
      + (sin((cos(X[0]) + cos(X[1]))**2)**2 + cos((sin(X[0]) + sin(X[1]))**2)**2 + X[0])**2,
      (-10, 10), [[-1.98682, -10.0]], -1.019829519930646)
fixed("Mishra06", 2, lambda X: R("0.1") * ((X[0] - 1)**2 + (X[1] - 1)**2)
      - log((sin((cos(X[0]) + cos(X[1]))**2)**2 - cos((sin(X[0]) + sin(X[1]))**2)**2 + X[0])**2),
      (-10, 10), [[2.88631, 1.82326]], -2.28395,
      notes="log of a square that vanishes inside the domain: there the function is +inf.")
fixed("Mishra07", 2, lambda X: (X[0] * X[1] - 2)**2, (-10, 10), [[np.sqrt(2), np.sqrt(2)]], 0.0,
      lacks="n! of the dimension (factorial of n) in the expression")


def _decanomial_parts(X):
    p = (X[0]**10 - 20 * X[0]**9 + 180 * X[0]**8 - 960 * X[0]**7 + 3360 * X[0]**6 - 8064 * X[0]**5
         + 13340 * X[0]**4 - 15360 * X[0]**3 + 11520 * X[0]**2 - 5120 * X[0] + 2624)
    q = X[1]**4 + 12 * X[1]**3 + 54 * X[1]**2 + 108 * X[1] + 81
    return p, q


fixed("Mishra08", 2, lambda X: R("0.001") * (Abs(_decanomial_parts(X)[0])
                                             + Abs(_decanomial_parts(X)[1]))**2,
      (-10, 10), [[2, -3]], 0.0)


def _mishra09(X):
    a = 2 * X[0]**3 + 5 * X[0] * X[1] + 4 * X[2] - 2 * X[0]**2 * X[2] - 18
    b = X[0] + X[1]**3 + X[0] * X[1]**2 + X[0] * X[2]**2 - 22
    c = 8 * X[0]**2 + 2 * X[1] * X[2] + 2 * X[1]**2 + 3 * X[1]**3 - 52
    return (a * c * b**2 + a * b * c**2 + b**2 + (X[0] + X[1] - X[2])**2)**2


fixed("Mishra09", 3, _mishra09, (-10, 10), [[1, 2, 3]], 0.0)
fixed("Mishra10", 2, lambda X: (Trunc(X[0]) + Trunc(X[1]) - Trunc(X[0]) * Trunc(X[1]))**2, (-10, 10),
      [[2, 2]], 0.0, notes="SciPy's code truncates with int() (toward 0): Trunc.")
scalable("Mishra11", {S: Sum(Abs(x)), P: Prod(Abs(x))}, (S / n - P / n)**2, (-10.0, 10.0),
         lambda d: [np.zeros(d)], lambda d: 0.0,
         notes="SciPy's code computes prod(|x|)**1.0 / N, i.e. prod|x| / n, where its docstring "
               "writes the n-th root; this is the function SciPy evaluates.")
scalable("MultiModal", {S: Sum(Abs(x)), P: Prod(Abs(x))}, S * P, (-10.0, 10.0),
         lambda d: [np.zeros(d)], lambda d: 0.0)

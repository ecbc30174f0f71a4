"""SciPy go_benchmark_functions A-F, written from the formulas (see ``__init__``)."""
import numpy as np

from gpubench.forms.definition import (
    E,
    Abs,
    Floor,
    Max,
    Min,
    Prod,
    Rational,
    Sum,
    cos,
    exp,
    i,
    log,
    n,
    pi,
    sin,
    sqrt,
    symbols,
    tanh,
    x,
    x1,
    y,
)

from ._lib import R, at_least, below, fixed, missing, scalable

S, S2, P = symbols("S S2 P")
PI = np.pi


def zeros(k):
    return lambda dim: [np.zeros(dim)]


# ---------------------------------------------------------------- A
scalable("Ackley01", {S: Sum(x**2), S2: Sum(cos(2 * pi * x))},
         -20 * exp(-R("0.2") * sqrt(S / n)) - exp(S2 / n) + 20 + E,
         (-35.0, 35.0), zeros(0), lambda d: 0.0)
fixed("Ackley02", 2, lambda X: -200 * exp(-R("0.02") * sqrt(X[0]**2 + X[1]**2)),
      (-32, 32), [[0, 0]], -200.0)
fixed("Ackley03", 2, lambda X: -200 * exp(-R("0.02") * sqrt(X[0]**2 + X[1]**2))
      + 5 * exp(cos(3 * X[0]) + sin(3 * X[1])),
      (-32, 32), [[-0.68255758, -0.36070859]], -195.62902825923879)
fixed("Adjiman", 2, lambda X: cos(X[0]) * sin(X[1]) - X[0] / (X[1]**2 + 1),
      [(-1, 2), (-1, 1)], [[2.0, 0.10578]], -2.02180678)
scalable("Alpine01", {S: Sum(Abs(x * sin(x) + R("0.1") * x))}, S,
         (-10.0, 10.0), zeros(0), lambda d: 0.0)
scalable("Alpine02", {P: Prod(sqrt(x) * sin(x))}, P,
         (0.0, 10.0), lambda d: [[7.91705268, 4.81584232]], lambda d: -6.12950,
         fglob_dim=2,
         notes="SciPy states the n = 2 minimiser and value for every n.")
fixed("AMGM", 2, lambda X: ((X[0] + X[1]) / 2 - sqrt(X[0] * X[1]))**2, (0, 10), [[1, 1]], 0.0,
      lacks="the n-th root of a product, prod(x)^(1/n) (a power whose exponent depends on n)")

# ---------------------------------------------------------------- B
fixed("BartelsConn", 2, lambda X: Abs(X[0]**2 + X[1]**2 + X[0] * X[1]) + Abs(sin(X[0]))
      + Abs(cos(X[1])), (-500, 500), [[0, 0]], 1.0)
fixed("Beale", 2, lambda X: (R("1.5") - X[0] + X[0] * X[1])**2
      + (R("2.25") - X[0] + X[0] * X[1]**2)**2 + (R("2.625") - X[0] + X[0] * X[1]**3)**2,
      (-4.5, 4.5), [[3.0, 0.5]], 0.0)


def _biggs(k, m, X):
    """sum over t = 0.1 j, j = 1..m, of SciPy's BiggsExp0k residual squared."""
    total = 0
    for j in range(1, m + 1):
        t = Rational(j, 10)
        target = exp(-t) - 5 * exp(-10 * t) + (3 * exp(-4 * t) if k == 5 else 0)
        if k == 2:
            model = exp(-t * X[0]) - 5 * exp(-t * X[1])
        elif k == 3:
            model = exp(-t * X[0]) - X[2] * exp(-t * X[1])
        else:
            model = X[2] * exp(-t * X[0]) - X[3] * exp(-t * X[1])
            if k == 5:
                model += 3 * exp(-t * X[4])
        total += (model - target)**2
    return total


fixed("BiggsExp02", 2, lambda X: _biggs(2, 10, X), (0, 20), [[1, 10]], 0.0)
fixed("BiggsExp03", 3, lambda X: _biggs(3, 10, X), (0, 20), [[1, 10, 5]], 0.0)
fixed("BiggsExp04", 4, lambda X: _biggs(4, 10, X), (0, 20), [[1, 10, 1, 5]], 0.0)
fixed("BiggsExp05", 5, lambda X: _biggs(5, 11, X), (0, 20), [[1, 10, 1, 5, 4]], 0.0)
fixed("Bird", 2, lambda X: sin(X[0]) * exp((1 - cos(X[1]))**2) + cos(X[1]) * exp((1 - sin(X[0]))**2)
      + (X[0] - X[1])**2, (-2 * PI, 2 * PI),
      [[4.701055751981055, 3.152946019601391], [-1.582142172055011, -3.130246799635430]],
      -106.7645367198034)
fixed("Bohachevsky1", 2, lambda X: X[0]**2 + 2 * X[1]**2 - R("0.3") * cos(3 * pi * X[0])
      - R("0.4") * cos(4 * pi * X[1]) + R("0.7"), (-100, 100), [[0, 0]], 0.0)
fixed("Bohachevsky2", 2, lambda X: X[0]**2 + 2 * X[1]**2
      - R("0.3") * cos(3 * pi * X[0]) * cos(4 * pi * X[1]) + R("0.3"), (-100, 100), [[0, 0]], 0.0)
fixed("Bohachevsky3", 2, lambda X: X[0]**2 + 2 * X[1]**2
      - R("0.3") * cos(3 * pi * X[0] + 4 * pi * X[1]) + R("0.3"), (-100, 100), [[0, 0]], 0.0)
fixed("BoxBetts", 3, lambda X: sum(
    (exp(-Rational(j, 10) * X[0]) - exp(-Rational(j, 10) * X[1])
     - (exp(-Rational(j, 10)) - exp(-j)) * X[2])**2 for j in range(1, 11)),
    [(0.9, 1.2), (9.0, 11.2), (0.9, 1.2)], [[1, 10, 1]], 0.0)


def _branin_core(X):
    return (X[1] - R("5.1") / (4 * pi**2) * X[0]**2 + 5 * X[0] / pi - 6)**2


fixed("Branin01", 2, lambda X: _branin_core(X) + 10 * (1 - 1 / (8 * pi)) * cos(X[0]) + 10,
      [(-5, 10), (0, 15)], [[-PI, 12.275], [PI, 2.275], [3 * PI, 2.475]], 0.39788735772973816)
fixed("Branin02", 2, lambda X: _branin_core(X) + 10 * (1 - 1 / (8 * pi)) * cos(X[0]) * cos(X[1])
      + log(X[0]**2 + X[1]**2 + 1) + 10,
      [(-5, 15), (-5, 15)], [[-3.1969884, 12.52625787]], 5.5589144038938247)
fixed("Brent", 2, lambda X: (X[0] + 10)**2 + (X[1] + 10)**2 + exp(-X[0]**2 - X[1]**2),
      (-10, 10), [[-10, -10]], 0.0,
      notes="f(-10, -10) = e^-200, not 0 exactly.")
missing("Brown", "a power with a variable exponent whose base reaches 0, (x_i^2)^(x_{i+1}^2 + 1)")
fixed("Bukin02", 2, lambda X: 100 * (X[1]**2 - R("0.01") * X[0]**2 + 1) + R("0.01") * (X[0] + 10)**2,
      [(-15, -5), (-3, 3)], [[-15, 0]], -124.75)
fixed("Bukin04", 2, lambda X: 100 * X[1]**2 + R("0.01") * Abs(X[0] + 10),
      [(-15, -5), (-3, 3)], [[-10, 0]], 0.0)
# SciPy's 100 sqrt(|x2 - 0.01 x1^2|) is 10 sqrt(|100 (x2 - 1) - (x1 - 10)(x1 + 10)|): equal, with
# integer constants and, near the minimiser (-10, 1), small intermediate values, so that the
# outward-rounded enclosure at a point there is as narrow as f (the original's is >= 1.5e-6 at
# every point, above ftol = 1e-6).  Max(x2 - 1, -4) is x2 - 1 on the domain (x2 >= -3): it keeps
# x2 - 1 one operation (sympy would otherwise add the constant last, to 100 x2 - x1^2 ~ 100).
fixed("Bukin06", 2, lambda X: 10 * sqrt(Abs(100 * Max(X[1] - 1, -4) - (X[0] - 10) * (X[0] + 10)))
      + R("0.01") * Abs(X[0] + 10),
      [(-15, -5), (-3, 3)], [[-10, 1]], 0.0,
      notes="100 sqrt(|x2 - 0.01 x1^2|) is written 10 sqrt(|100 max(x2 - 1, -4) - (x1 - 10)(x1 + 10)|) "
            "(equal on the domain), so that the enclosure at points near (-10, 1) is as narrow as f.")

# ---------------------------------------------------------------- C
fixed("CarromTable", 2, lambda X: -(cos(X[0]) * cos(X[1])
                                    * exp(Abs(1 - sqrt(X[0]**2 + X[1]**2) / pi)))**2 / 30,
      (-10, 10), [[s * 9.646157266348881, t * 9.646134286497169] for s in (1, -1) for t in (1, -1)],
      -24.15681551650653)
fixed("Chichinadze", 2, lambda X: X[0]**2 - 12 * X[0] + 11 + 10 * cos(pi * X[0] / 2)
      + 8 * sin(5 * pi * X[0] / 2) - 1 / sqrt(5) * exp(-(X[1] - R("0.5"))**2 / 2),
      (-30, 30), [[6.189866586965680, 0.5]], -42.94438701899098)
# x1^2 + 10^6 sum_{i >= 2} x_i^2, each square weighted by its own index's constant: written as
# x1^2 + 10^6 (S - x1^2) the interval form subtracts x1^2 from itself (GLB -0.063 after 10 s at n = 2)
scalable("Cigar", {S: Sum(x**2 * (1 + 999999 * at_least(i, 2)))}, S, (-100.0, 100.0), zeros(0),
         lambda d: 0.0)

_COLA_D = [
    [],
    ["1.27"],
    ["1.69", "1.43"],
    ["2.04", "2.35", "2.43"],
    ["3.09", "3.18", "3.26", "2.85"],
    ["3.20", "3.22", "3.27", "2.88", "1.55"],
    ["2.86", "2.56", "2.58", "2.59", "3.12", "3.06"],
    ["3.17", "3.18", "3.18", "3.12", "1.31", "1.64", "3.00"],
    ["3.21", "3.18", "3.18", "3.17", "1.70", "1.36", "2.95", "1.32"],
    ["2.38", "2.31", "2.42", "1.94", "2.85", "2.81", "2.56", "2.91", "2.97"],
]


def _cola(X):
    """Ten points in the plane: (0, 0), (x1, 0), then (x_{2k}, x_{2k+1}), k = 1..8; the sum
    over pairs i > j of (distance - d_ij)^2."""
    px = [0, X[0]] + [X[k] for k in range(1, 17, 2)]
    py = [0, 0] + [X[k] for k in range(2, 17, 2)]
    return sum((sqrt((px[a] - px[b])**2 + (py[a] - py[b])**2) - R(_COLA_D[a][b]))**2
               for a in range(10) for b in range(a))


fixed("Cola", 17, _cola, [(0, 4)] + [(-4, 4)] * 16,
      [[0.651906, 1.30194, 0.099242, -0.883791, -0.8796, 0.204651, -3.28414, 0.851188,
        -3.46245, 2.53245, -0.895246, 1.40992, -3.07367, 1.96257, -2.97872, -0.807849, -1.68978]],
      11.7464)
fixed("Colville", 4, lambda X: 100 * (X[0] - X[1]**2)**2 + (1 - X[0])**2 + (1 - X[2])**2
      + 90 * (X[3] - X[2]**2)**2 + R("10.1") * ((X[1] - 1)**2 + (X[3] - 1)**2)
      + R("19.8") * (X[1] - 1) * (X[3] - 1), (-10, 10), [[1, 1, 1, 1]], 0.0)
def _corana(X):
    # z_j = floor(|x_j / 0.2| + 0.49999) sgn(x_j) 0.2 = sgn(x_j) m / 5 with the integer m >= 0, so
    # |x_j - z_j| = ||x_j| - m/5| and (z_j - 0.05 sgn(z_j))^2 = (m/5 - [m > 0]/20)^2, [m > 0] = min(m, 1):
    # the same function with no sign (whose interval form at 0 is [-1, 1], the derivative of |u|)
    total = 0
    for xj, d in zip(X, (1, 1000, 10, 100)):
        m = Floor(5 * Abs(xj) + R("0.49999"))
        near = below(Abs(Abs(xj) - m / 5), R("0.05"))  # the branch |x_j - z_j| < 0.05
        total += near * R("0.15") * (m / 5 - Min(m, 1) / 20)**2 * d + (1 - near) * d * xj**2
    return total


fixed("Corana", 4, _corana, (-5, 5), [[0, 0, 0, 0]], 0.0,
      notes="SciPy's branch |x_j - z_j| < 0.05 is written as the indicator below(|x_j - z_j|, 0.05), "
            "a Floor (see _lib.at_least), and z_j through the integer m = floor(|x_j|/0.2 + 0.49999) "
            "without sgn (see _corana); 0.2, 0.49999 and 0.05 are the exact decimals.")
scalable("CosineMixture", {S: Sum(cos(5 * pi * x)), S2: Sum(x**2)}, -R("0.1") * S + S2,
         (-1.0, 1.0), zeros(0), lambda d: -0.1 * d)


def _cross(X, power):
    u = 100 - sqrt(X[0]**2 + X[1]**2) / pi
    return (Abs(sin(X[0]) * sin(X[1]) * exp(Abs(u))) + 1)**power


fixed("CrossInTray", 2, lambda X: -R("0.0001") * _cross(X, R("0.1")), (-10, 10),
      [[s * 1.349406685353340, t * 1.349406608602084] for s in (1, -1) for t in (1, -1)],
      -2.062611870822739)
fixed("CrossLegTable", 2, lambda X: -_cross(X, -R("0.1")), (-10, 10), [[0, 0]], -1.0)
fixed("CrownedCross", 2, lambda X: R("0.0001") * _cross(X, R("0.1")), (-10, 10), [[0, 0]], 0.0001)
missing("Csendes", "a removable singularity: x^6 (2 + sin(1/x)) is defined at x = 0 by continuity")
fixed("Cube", 2, lambda X: 100 * (X[1] - X[0]**3)**2 + (1 - X[0])**2, (-10, 10), [[1, 1]], 0.0)

# ---------------------------------------------------------------- D
missing("Damavandi", "a removable singularity: sin(pi (x - 2)) / (pi (x - 2)) at the stated "
                     "minimiser x = (2, 2), defined there by continuity")
scalable("Deb01", {S: Sum(sin(5 * pi * x)**6)}, -S / n, (-1.0, 1.0),
         lambda d: [[0.3, -0.3]], lambda d: -1.0)
scalable("Deb03", {S: Sum(sin(5 * pi * (x**Rational(3, 4) - R("0.05")))**6)}, -S / n, (0.0, 1.0),
         lambda d: [[0.93388314, 0.68141781]], lambda d: -1.0)
fixed("Decanomial", 2, lambda X: R("0.001") * (
    Abs(X[1]**4 + 12 * X[1]**3 + 54 * X[1]**2 + 108 * X[1] + 81)
    + Abs(X[0]**10 - 20 * X[0]**9 + 180 * X[0]**8 - 960 * X[0]**7 + 3360 * X[0]**6
          - 8064 * X[0]**5 + 13340 * X[0]**4 - 15360 * X[0]**3 + 11520 * X[0]**2
          - 5120 * X[0] + 2624))**2, (-10, 10), [[2, -3]], 0.0)
# Deceptive: SciPy's code branches on x_i against alpha_i = i / (n + 1).  On (0, 1] its g_i is the
# zigzag 0.8 - x/a (down to 0 at 0.8 a), 5x/a - 4 (up to 1 at a), 5(x - a)/(a - 1) + 1 (down to 0
# at (1 + 4a)/5), (x - 1)/(1 - a) + 0.8 (up to 0.8 at 1), which is max(first, min(second, third),
# fourth); at x = 0 (the branch x <= 0) g is x = 0, the indicator [x > 0] = below(-x, 0) says so.
_ALPHA = i / (n + 1)
scalable("Deceptive",
         {S: Sum(below(-x, 0) * Max(R("0.8") - x / _ALPHA, Min(5 * x / _ALPHA - 4, 5 * (x - _ALPHA) / (_ALPHA - 1) + 1),
                                    (x - 1) / (1 - _ALPHA) + R("0.8")))},
         -(S / n)**2, (0.0, 1.0), lambda d: [np.arange(1, d + 1) / (d + 1)], lambda d: -1.0,
         notes="SciPy's branches on x_i against alpha_i = i/(n + 1) are written max(0.8 - x/a, min(5x/a - 4, "
               "5(x - a)/(a - 1) + 1), (x - 1)/(1 - a) + 0.8) on (0, 1], times the indicator [x > 0] (g = x = 0 "
               "at x = 0, SciPy's first branch).")
fixed("DeckkersAarts", 2, lambda X: 10**5 * X[0]**2 + X[1]**2 - (X[0]**2 + X[1]**2)**2
      + R("1e-5") * (X[0]**2 + X[1]**2)**4, (-20, 20), [[0.0, 14.9451209]], -24776.518342168)
scalable("DeflectedCorrugatedSpring", {S: Sum((x - 5)**2)}, -cos(5 * sqrt(S)) + R("0.1") * S,
         (0.0, 10.0), lambda d: [np.full(d, 5.0)], lambda d: -1.0)


def _dvg1(X):
    total = 0
    for j in range(24):
        t = Rational(j, 10)
        target = R("60.137") * R("1.371")**t * sin(R("3.112") * t + R("1.761"))
        total += (X[0] * X[1]**t * sin(X[2] * t + X[3]) - target)**2
    return total


def _dvg2(X):
    total = 0
    for j in range(16):
        t = Rational(j, 10)
        target = (R("53.81") * R("1.27")**t * tanh(R("3.012") * t + sin(R("2.13") * t))
                  * cos(exp(R("0.507")) * t))
        total += (X[0] * X[1]**t * tanh(X[2] * t + sin(X[3] * t)) * cos(t * exp(X[4]))
                  - target)**2
    return total


fixed("DeVilliersGlasser01", 4, _dvg1, (1, 100), [[60.137, 1.371, 3.112, 1.761]], 0.0,
      notes="x2^t with t = 0.1 j, x2 >= 1 on the domain.")
fixed("DeVilliersGlasser02", 5, _dvg2, (1, 60), [[53.81, 1.27, 3.012, 2.13, 0.507]], 0.0,
      notes="x2^t with t = 0.1 j, x2 >= 1 on the domain.")
scalable("DixonPrice", {S: Sum((i + 1) * (2 * y**2 - x)**2)}, (x1 - 1)**2 + S, (-10.0, 10.0),
         lambda d: [[2.0 ** (-(2.0 ** k - 2.0) / 2.0 ** k) for k in range(1, d + 1)]],
         lambda d: 0.0)
fixed("Dolan", 5, lambda X: Abs((X[0] + R("1.7") * X[1]) * sin(X[0]) - R("1.5") * X[2]
                                - R("0.1") * X[3] * cos(X[3] + X[4] - X[0]) + R("0.2") * X[4]**2
                                - X[1] - 1),
      (-100, 100), [[-74.10522498, 44.33511286, 6.21069214, 18.42772233, -16.5839403]], 0.0)
fixed("DropWave", 2, lambda X: -(1 + cos(12 * sqrt(X[0]**2 + X[1]**2)))
      / (R("0.5") * (X[0]**2 + X[1]**2) + 2), (-5.12, 5.12), [[0, 0]], -1.0)

# ---------------------------------------------------------------- E
fixed("Easom", 2, lambda X: -cos(X[0]) * cos(X[1]) * exp(-(X[0] - pi)**2 - (X[1] - pi)**2),
      (-100, 100), [[PI, PI]], -1.0)

_ECK_A = ["1.5750000E-04", "1.6990000E-04", "2.3500000E-04", "3.1020000E-04", "4.9170000E-04",
          "8.7100000E-04", "1.7418000E-03", "4.6400000E-03", "6.5895000E-03", "9.7302000E-03",
          "1.4900200E-02", "2.3731000E-02", "4.0168300E-02", "7.1255900E-02", "1.2644580E-01",
          "2.0734130E-01", "2.9023660E-01", "3.4456230E-01", "3.6980490E-01", "3.6685340E-01",
          "3.1067270E-01", "2.0781540E-01", "1.1643540E-01", "6.1676400E-02", "3.3720000E-02",
          "1.9402300E-02", "1.1783100E-02", "7.4357000E-03", "2.2732000E-03", "8.8000000E-04",
          "4.5790000E-04", "2.3450000E-04", "1.5860000E-04", "1.1430000E-04", "7.1000000E-05"]
_ECK_B = ["400", "405", "410", "415", "420", "425", "430", "435", "436.5", "438", "439.5", "441",
          "442.5", "444", "445.5", "447", "448.5", "450", "451.5", "453", "454.5", "456", "457.5",
          "459", "460.5", "462", "463.5", "465", "470", "475", "480", "485", "490", "495", "500"]
fixed("Eckerle4", 3, lambda X: sum(
    (R(a) - X[0] / X[1] * exp(-(R(b) - X[2])**2 / (2 * X[1]**2)))**2 for a, b in zip(_ECK_A, _ECK_B)),
    [(0, 20), (1, 20), (10, 600)], [[1.5543827178, 4.0888321754, 4.5154121844e2]], 1.4635887487E-03)
fixed("EggCrate", 2, lambda X: X[0]**2 + X[1]**2 + 25 * (sin(X[0])**2 + sin(X[1])**2),
      (-5, 5), [[0, 0]], 0.0)
scalable("EggHolder", {S: Sum(-(y + 47) * sin(sqrt(Abs(y + x / 2 + 47)))
                              - x * sin(sqrt(Abs(x - (y + 47)))))}, S,
         (-512.1, 512.0), lambda d: [[512.0, 404.2319]], lambda d: -959.640662711,
         fglob_dim=2,
         notes="SciPy states the n = 2 minimiser and value for every n.")
fixed("ElAttarVidyasagarDutta", 2, lambda X: (X[0]**2 + X[1] - 10)**2 + (X[0] + X[1]**2 - 7)**2
      + (X[0]**2 + X[1]**3 - 1)**2, (-100, 100), [[3.40918683, -2.17143304]], 1.712780354)
fixed("Exp2", 2, lambda X: sum((exp(-Rational(j, 10) * X[0]) - 5 * exp(-Rational(j, 10) * X[1])
                                - exp(-Rational(j, 10)) + 5 * exp(-j))**2 for j in range(10)),
      (0, 20), [[1, 10]], 0.0)
scalable("Exponential", {S: Sum(x**2)}, -exp(-S / 2), (-1.0, 1.0), zeros(0), lambda d: -1.0)

# ---------------------------------------------------------------- F
fixed("FreudensteinRoth", 2, lambda X: (-13 + X[0] + ((5 - X[1]) * X[1] - 2) * X[1])**2
      + (-29 + X[0] + ((X[1] + 1) * X[1] - 14) * X[1])**2, (-10, 10), [[5, 4]], 0.0)

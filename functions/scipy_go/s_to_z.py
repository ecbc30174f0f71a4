"""SciPy go_benchmark_functions S-Z, written from the formulas (see ``__init__``)."""
import numpy as np

from gpubench.forms.definition import (
    Abs,
    Floor,
    Max,
    Prod,
    Rational,
    Sum,
    cos,
    exp,
    i,
    log,
    n,
    pi,
    sigmoid,
    sign,
    sin,
    sqrt,
    symbols,
    x,
    x1,
    y,
)

from ._lib import R, at_least, fixed, missing, scalable

S, S2, S3, P = symbols("S S2 S3 P")
PI = np.pi


def zeros(dim):
    return [np.zeros(dim)]


# ---------------------------------------------------------------- S
scalable("Salomon", {S: Sum(x**2)}, 1 - cos(2 * pi * sqrt(S)) + R("0.1") * sqrt(S), (-100.0, 100.0),
         zeros, lambda d: 0.0)
scalable("Sargan", {S: Sum(x**2), S2: Sum(x * y)}, n * S + R("0.4") * n**2 * S2, (-100.0, 100.0),
         zeros, lambda d: 0.0,
         notes="SciPy's code sums n (x_i^2 + 0.4 sum_j x_j x_{j+1}) over i, i.e. "
               "n sum x_i^2 + 0.4 n^2 sum x_j x_{j+1}; this is the function SciPy evaluates.")


def _schaffer(num, X):
    return R("0.5") + (num - R("0.5")) / (1 + R("0.001") * (X[0]**2 + X[1]**2))**2


fixed("Schaffer01", 2, lambda X: _schaffer(sin(X[0]**2 + X[1]**2)**2, X), (-100, 100), [[0, 0]], 0.0)
fixed("Schaffer02", 2, lambda X: _schaffer(sin(X[0]**2 - X[1]**2)**2, X), (-100, 100), [[0, 0]], 0.0)
fixed("Schaffer03", 2, lambda X: _schaffer(sin(cos(Abs(X[0]**2 - X[1]**2)))**2, X), (-100, 100),
      [[0.0, 1.253115]], 0.00156685)
fixed("Schaffer04", 2, lambda X: _schaffer(cos(sin(Abs(X[0]**2 - X[1]**2)))**2, X), (-100, 100),
      [[0.0, 1.253115]], 0.292579)
missing("Schwefel01", "an irrational power, (sum x_i^2)^sqrt(pi), of a sum that reaches 0")
fixed("Schwefel02", 2, lambda X: X[0]**2 + (X[0] + X[1])**2, (-100, 100), [[0, 0]], 0.0,
      lacks="prefix sums (sum over j <= i inside a sum over i)")
# The expansion of a sum of squares loses what its interval form knew, that it is >= 0 (GLB -63
# at n = 10 on the H200): max(T, 0) equals T, a sum of squares, and its enclosure is never below 0.
scalable("Schwefel04", {S: Sum((x - 1)**2), S2: Sum(x**2), S3: Sum(x**4)},
         S + Max(n * x1**2 - 2 * x1 * S2 + S3, 0), (0.0, 10.0), lambda d: [np.ones(d)], lambda d: 0.0,
         notes="sum (x1 - x_i^2)^2 is expanded to n x1^2 - 2 x1 sum x_i^2 + sum x_i^4, written max(that, 0) "
               "(equal: a sum of squares), so that its enclosure keeps the sign.")
fixed("Schwefel06", 2, lambda X: Max(Abs(X[0] + 2 * X[1] - 7), Abs(2 * X[0] + X[1] - 5)),
      (-100, 100), [[1, 3]], 0.0)
scalable("Schwefel20", {S: Sum(Abs(x))}, S, (-100.0, 100.0), zeros, lambda d: 0.0)
fixed("Schwefel21", 2, lambda X: Max(Abs(X[0]), Abs(X[1])), (-100, 100), [[0, 0]], 0.0,
      lacks="a maximum over all n coordinates (no max aggregate)")
scalable("Schwefel22", {S: Sum(Abs(x)), P: Prod(Abs(x))}, S + P, (-100.0, 100.0), zeros,
         lambda d: 0.0)
scalable("Schwefel26", {S: Sum(x * sin(sqrt(Abs(x))))}, R("418.982887") * n - S, (-500.0, 500.0),
         lambda d: [np.full(d, 420.968746)], lambda d: 0.0)
fixed("Schwefel36", 2, lambda X: -X[0] * X[1] * (72 - 2 * X[0] - 2 * X[1]), (0, 500), [[12, 12]],
      -3456.0)

_SHEKEL_A = [[4, 4, 4, 4], [1, 1, 1, 1], [8, 8, 8, 8], [6, 6, 6, 6], [3, 7, 3, 7], [2, 9, 2, 9],
             [5, 5, 3, 3], [8, 1, 8, 1], [6, 2, 6, 2], [7, "3.6", 7, "3.6"]]
_SHEKEL_C = ["0.1", "0.2", "0.2", "0.4", "0.4", "0.6", "0.3", "0.7", "0.5", "0.5"]


def _shekel(m, X):
    return -sum(1 / (sum((v - R(a))**2 for v, a in zip(X, row)) + R(c))
                for row, c in zip(_SHEKEL_A[:m], _SHEKEL_C[:m]))


fixed("Shekel05", 4, lambda X: _shekel(5, X), (0, 10),
      [[4.00003715092, 4.00013327435, 4.00003714871, 4.0001332742]], -10.1531996791)
fixed("Shekel07", 4, lambda X: _shekel(7, X), (0, 10),
      [[4.00057291078, 4.0006893679, 3.99948971076, 3.99960615785]], -10.4029405668)
fixed("Shekel10", 4, lambda X: _shekel(10, X), (0, 10),
      [[4.0007465377266271, 4.0005929234621407, 3.9996633941680968, 3.9995098017834123]],
      -10.536409816692023)
scalable("Shubert01", {P: Prod(sum(j * cos((j + 1) * x + j) for j in range(1, 6)))}, P,
         (-10.0, 10.0), lambda d: [[-7.0835, 4.8580]], lambda d: -186.7309,
         fglob_dim=2,
         notes="SciPy states the n = 2 minimiser and value for every n.")
scalable("Shubert03", {S: Sum(sum(-j * sin((j + 1) * x + j) for j in range(1, 6)))}, S,
         (-10.0, 10.0), lambda d: [[5.791794, 5.791794]], lambda d: -24.062499,
         fglob_dim=2,
         notes="SciPy states the n = 2 minimiser and value for every n.")
scalable("Shubert04", {S: Sum(sum(-j * cos((j + 1) * x + j) for j in range(1, 6)))}, S,
         (-10.0, 10.0), lambda d: [[-0.80032121, -7.08350592]], lambda d: -29.016015,
         fglob_dim=2,
         notes="SciPy states the n = 2 minimiser and value for every n.")
scalable("SineEnvelope", {S: Sum((sin(sqrt(x**2 + y**2))**2 - R("0.5"))
                                 / (1 + R("0.001") * (x**2 + y**2))**2 + R("0.5"))}, S,
         (-100.0, 100.0), zeros, lambda d: 0.0)
fixed("SixHumpCamel", 2, lambda X: (4 - R("2.1") * X[0]**2 + X[0]**4 / 3) * X[0]**2 + X[0] * X[1]
      + (4 * X[1]**2 - 4) * X[1]**2, (-5, 5),
      [[0.08984201368301331, -0.7126564032704135], [-0.08984201368301331, 0.7126564032704135]],
      -1.031628)
fixed("Sodp", 2, lambda X: Abs(X[0])**2 + Abs(X[1])**3, (-1, 1), [[0, 0]], 0.0,
      lacks="|x_i|^(i+1), a power whose exponent is the coordinate's index")
scalable("Sphere", {S: Sum(x**2)}, S, (-5.12, 5.12), zeros, lambda d: 0.0)
scalable("Step", {S: Sum(Floor(Abs(x)))}, S, (-100.0, 100.0), zeros, lambda d: 0.0,
         notes="SciPy's docstring gives sum floor(x_i + 0.5)^2; its code, written here, sum floor(|x_i|).")
scalable("Step2", {S: Sum(Max(Abs(Floor(x) + Rational(1, 2)), Rational(1, 2))**2)}, S, (-100.0, 100.0),
         lambda d: [np.full(d, 0.5)], lambda d: 0.5, fglob_dim=2,
         notes="SciPy's f* 0.5 is f at its minimiser (0.5, ..., 0.5) at n = 2 (n/4 at n). "
               "(floor(x_i) + 0.5)^2 written as max(|floor(x_i) + 1/2|, 1/2)^2, equal for the integer "
               "floor(x_i) (|k + 1/2| >= 1/2): on a box where floor takes k - 1 and k the interval "
               "form then gives 1/4, not 0, at the jump.")
missing("Stochastic", "random coefficients drawn at every evaluation (noise)")
scalable("StretchedV", {S: Sum((x**2 + y**2)**Rational(1, 4)
                               * sin(50 * (x**2 + y**2)**Rational(1, 10) + 1)**2)}, S,
         (-10.0, 10.0), lambda d: [[0, 0]], lambda d: 0.0)
scalable("StyblinskiTang", {S: Sum(x**4 - 16 * x**2 + 5 * x)}, S / 2, (-5.0, 5.0),
         lambda d: [np.full(d, -2.903534018185960)], lambda d: -39.16616570377142 * d)

# ---------------------------------------------------------------- T
fixed("TestTubeHolder", 2, lambda X: -4 * Abs(sin(X[0]) * cos(X[1])
                                              * exp(Abs(cos((X[0]**2 + X[1]**2) / 200)))),
      (-10, 10), [[-PI / 2, 0.0]], -10.87229990155800)

_TH_A = ["80.574", "84.248", "87.264", "87.195", "89.076", "89.608", "89.868", "90.101", "92.405",
         "95.854", "100.696", "101.06", "401.672", "390.724", "567.534", "635.316", "733.054",
         "759.087", "894.206", "990.785", "1090.109", "1080.914", "1122.643", "1178.351",
         "1260.531", "1273.514", "1288.339", "1327.543", "1353.863", "1414.509", "1425.208",
         "1421.384", "1442.962", "1464.350", "1468.705", "1447.894", "1457.628"]
_TH_B = ["-3.067", "-2.981", "-2.921", "-2.912", "-2.840", "-2.797", "-2.702", "-2.699", "-2.633",
         "-2.481", "-2.363", "-2.322", "-1.501", "-1.460", "-1.274", "-1.212", "-1.100", "-1.046",
         "-0.915", "-0.714", "-0.566", "-0.545", "-0.400", "-0.309", "-0.109", "-0.103", "0.010",
         "0.119", "0.377", "0.790", "0.963", "1.006", "1.115", "1.572", "1.841", "2.047", "2.200"]


def _thurber(X):
    total = 0
    for a, b in zip(_TH_A, _TH_B):
        b = R(b)
        num = X[0] + X[1] * b + X[2] * b**2 + X[3] * b**3
        den = 1 + X[4] * b + X[5] * b**2 + X[6] * b**3
        total += (R(a) - num / den)**2
    return total


fixed("Thurber", 7, _thurber,
      [(500, 2000), (500, 2000), (100, 1000), (10, 150), (0.1, 2), (0.1, 1), (0, 0.2)],
      [[1.288139680e3, 1.4910792535e3, 5.8323836877e2, 75.416644291, 0.96629502864,
        0.39797285797, 4.9727297349e-2]], 5642.7082397)
fixed("Treccani", 2, lambda X: X[0]**4 + 4 * X[0]**3 + 4 * X[0]**2 + X[1]**2, (-5, 5), [[-2, 0]], 0.0)
fixed("Trefethen", 2, lambda X: (X[0]**2 + X[1]**2) / 4 + exp(sin(50 * X[0]))
      - sin(10 * X[0] + 10 * X[1]) + sin(60 * exp(X[1])) + sin(70 * sin(X[0]))
      + sin(sin(80 * X[1])), (-10, 10), [[-0.02440307923, 0.2106124261]], -3.3068686474)
fixed("ThreeHumpCamel", 2, lambda X: 2 * X[0]**2 - R("1.05") * X[0]**4 + X[0]**6 / 6 + X[0] * X[1]
      + X[1]**2, (-5, 5), [[0, 0]], 0.0)
scalable("Trid", {S: Sum((x - 1)**2), S2: Sum(x * y)}, S - S2, (-20.0, 20.0),
         lambda d: [[6, 10, 12, 12, 10, 6]], lambda d: -50.0, dims=(2, 5, 6, 10),
         fglob_dim=6,
         notes="SciPy's default dimension is 6; it states the n = 6 minimiser and value for every n.")

# Trigonometric01: sum_i (n - C - i (n - C - Sn))^2 with C = sum cos x_j, Sn = sum sin x_j,
# expanded over i = 1..n: n A^2 - 2 A B n(n+1)/2 + B^2 n(n+1)(2n+1)/6, A = n - C, B = n - C - Sn.
_C, _SN = symbols("C SN")
_A, _B = n - _C, n - _C - _SN
# (a sum of squares, expanded: written max(expansion, 0) so that its enclosure keeps the sign)
scalable("Trigonometric01", {_C: Sum(cos(x)), _SN: Sum(sin(x))},
         Max(n * _A**2 - _A * _B * n * (n + 1) + _B**2 * n * (n + 1) * (2 * n + 1) / 6, 0), (0.0, PI),
         zeros, lambda d: 0.0,
         notes="SciPy's code: inner_ij = cos x_j + i (1 - cos x_j - sin x_j), f = sum_i (n - sum_j "
               "inner_ij)^2; the sum over i is expanded in closed form, written max(that, 0) (equal: a "
               "sum of squares), so that its enclosure keeps the sign.")
scalable("Trigonometric02", {S: Sum(8 * sin(7 * (x - R("0.9"))**2)**2 + 6 * sin(14 * (x - R("0.9"))**2)**2
                                    + (x - R("0.9"))**2)}, 1 + S, (-500.0, 500.0),
         lambda d: [np.full(d, 0.9)], lambda d: 1.0)
def _tripod(X):
    p1, p2 = at_least(X[0]), at_least(X[1])  # float(x >= 0)
    return p2 * (1 + p1) + Abs(X[0] + 50 * p2 * (1 - 2 * p1)) + Abs(X[1] + 50 * (1 - 2 * p2))


fixed("Tripod", 2, _tripod, (-100, 100), [[0, -50]], 0.0,
      notes="SciPy's float(x >= 0) is the indicator at_least(x, 0), a Floor (see _lib.at_least).")

# ---------------------------------------------------------------- U, V
fixed("Ursem01", 2, lambda X: -sin(2 * X[0] - pi / 2) - 3 * cos(X[1]) - X[0] / 2,
      [(-2.5, 3), (-2, 2)], [[1.69714, 0.0]], -4.81681406371)


def _ursem03_part(v):
    return -(sin(R("2.2") * pi * v + pi / 2) * ((2 - Abs(v)) / 2) * ((3 - Abs(v)) / 2))


fixed("Ursem03", 2, lambda X: _ursem03_part(X[0]) + _ursem03_part(X[1]), [(-2, 2), (-1.5, 1.5)],
      [[0, 0]], -3.0)
fixed("Ursem04", 2, lambda X: -3 * sin(pi * X[0] / 2 + pi / 2) * (2 - sqrt(X[0]**2 + X[1]**2)) / 4,
      (-2, 2), [[0, 0]], -1.5)
fixed("UrsemWaves", 2, lambda X: -R("0.9") * X[0]**2 + (X[1]**2 - R("4.5") * X[1]**2) * X[0] * X[1]
      + R("4.7") * cos(3 * X[0] - X[1]**2 * (2 + X[0])) * sin(R("2.5") * pi * X[0]),
      [(-0.9, 1.2), (-1.2, 1.2)], [[1.2, 1.2]], -8.5536,
      notes="As SciPy's code: (x2^2 - 4.5 x2^2) x1 x2.")
fixed("VenterSobiezcczanskiSobieski", 2, lambda X: X[0]**2 - 100 * cos(X[0])**2
      - 100 * cos(X[0]**2 / 30) + X[1]**2 - 100 * cos(X[1])**2 - 100 * cos(X[1]**2 / 30),
      (-50, 50), [[0, 0]], -400.0)
scalable("Vincent", {S: Sum(sin(10 * log(x)))}, -S, (0.25, 10.0),
         lambda d: [np.full(d, 7.70628098)], lambda d: -float(d))

# ---------------------------------------------------------------- W


def _watson(X):
    total = X[0]**2
    for k in range(30):
        a = Rational(k, 29)
        t1 = sum((j + 1) * a**j * X[j + 1] for j in range(5))
        t2 = sum(a**j * X[j] for j in range(6))
        total += (t1 - t2**2 - 1)**2
    return total


fixed("Watson", 6, _watson, (-5, 5), [[-0.0158, 1.012, -0.2329, 1.260, -1.513, 0.9928]], 0.002288)
scalable("Wavy", {S: Sum(cos(10 * x) * exp(-x**2 / 2))}, 1 - S / n, (-PI, PI), zeros, lambda d: 0.0)
fixed("WayburnSeader01", 2, lambda X: (X[0]**6 + X[1]**4 - 17)**2 + (2 * X[0] + X[1] - 4)**2,
      (-5, 5), [[1, 2]], 0.0)
fixed("WayburnSeader02", 2, lambda X: (R("1.613") - 4 * (X[0] - R("0.3125"))**2
                                       - 4 * (X[1] - R("1.625"))**2)**2 + (X[1] - 1)**2,
      (-500, 500), [[0.2, 1.0]], 0.0)
scalable("Weierstrass", {S: Sum(sum(Rational(1, 2**k) * cos(2 * pi * 3**k * (x + Rational(1, 2)))
                                    for k in range(21)))},
         S - n * sum(Rational(1, 2**k) * cos(pi * 3**k) for k in range(21)), (-0.5, 0.5), zeros,
         lambda d: 0.0)
fixed("Whitley", 2, lambda X: sum((100 * (X[i_]**2 - X[j_]) + (1 - X[j_])**2)**2 / 4000
                                   - cos(100 * (X[i_]**2 - X[j_]) + (1 - X[j_])**2) + 1
                                   for i_ in (0, 1) for j_ in (0, 1)),
      (-10.24, 10.24), [[1, 1]], 0.0, lacks="a sum over all pairs (i, j) of coordinates",
      notes="As SciPy's code: the inner term is 100 (x_i^2 - x_j) + (1 - x_j)^2, unsquared.")
fixed("Wolfe", 3, lambda X: Rational(4, 3) * (X[0]**2 + X[1]**2 - X[0] * X[1])**Rational(3, 4) + X[2],
      (0, 2), [[0, 0, 0]], 0.0)

# ---------------------------------------------------------------- X
missing("XinSheYang01", "random coefficients drawn at every evaluation (noise)")
scalable("XinSheYang02", {S: Sum(Abs(x)), S2: Sum(sin(x**2))}, S * exp(-S2), (-2 * PI, 2 * PI),
         zeros, lambda d: 0.0)
scalable("XinSheYang03", {S: Sum((x / 15)**10), S2: Sum(x**2), P: Prod(cos(x)**2)},
         exp(-S) - 2 * exp(-S2) * P, (-20.0, 20.0), zeros, lambda d: -1.0)
scalable("XinSheYang04", {S: Sum(sin(x)**2), S2: Sum(x**2), S3: Sum(sin(sqrt(Abs(x)))**2)},
         (S - exp(-S2)) * exp(-S3), (-10.0, 10.0), zeros, lambda d: -1.0)


def _xor(X):
    f1 = sigmoid(X[6] * sigmoid(X[0] + X[1] + X[4]) + X[7] * sigmoid(X[2] + X[3] + X[5]) + X[8])**2
    f2 = sigmoid(X[6] * sigmoid(X[4]) + X[7] * sigmoid(X[5]) + X[8])**2
    f3 = (1 - sigmoid(X[6] * sigmoid(X[0] + X[4]) + X[7] * sigmoid(X[2] + X[5]) + X[8]))**2
    f4 = (1 - sigmoid(X[6] * sigmoid(X[1] + X[4]) + X[7] * sigmoid(X[3] + X[5]) + X[8]))**2
    return f1 + f2 + f3 + f4


fixed("Xor", 9, _xor, (-1, 1), [[1, -1, 1, -1, -1, 1, 1, -1, 0.421134]], 0.9597588,
      notes="1/(1 + e^-u) is the sigmoid operation.")

# ---------------------------------------------------------------- Y, Z
fixed("YaoLiu04", 2, lambda X: Max(Abs(X[0]), Abs(X[1])), (-10, 10), [[0, 0]], 0.0,
      lacks="a maximum over all n coordinates (no max aggregate)")
scalable("YaoLiu09", {S: Sum(x**2 - 10 * cos(2 * pi * x) + 10)}, S, (-5.12, 5.12), zeros,
         lambda d: 0.0)
scalable("Zacharov", {S: Sum(x**2), S2: Sum(i * x)}, S + (S2 / 2)**2 + (S2 / 2)**4, (-5.0, 10.0),
         zeros, lambda d: 0.0)
scalable("ZeroSum", {S: Sum(x)}, at_least(Abs(S), R("3e-16")) * (1 + 100 * sqrt(Abs(S))), (-10.0, 10.0),
         lambda d: [np.zeros(0)], lambda d: 0.0,
         notes="SciPy's branch |sum x_i| < 3e-16 is the indicator at_least(|S|, 3e-16), a Floor (see "
               "_lib.at_least); (10000 |S|)^0.5 = 100 sqrt(|S|). SciPy states no minimiser (an empty "
               "vector): f = 0 on the whole hyperplane sum x_i = 0.")
fixed("Zettl", 2, lambda X: (X[0]**2 + X[1]**2 - 2 * X[0])**2 + X[0] / 4, (-5, 10),
      [[-0.02989597760285287, 0.0]], -0.003791237220468656)


def _zimmerman(X):
    h2 = (X[0] - 3)**2 + (X[1] - 2)**2 - 16
    h3 = X[0] * X[1] - 14
    return Max(9 - X[0] - X[1], 100 * (1 + h2) * sign(h2), 100 * (1 + h3) * sign(h3),
               100 * (1 - X[0]) * sign(X[0]), 100 * (1 - X[1]) * sign(X[1]))


fixed("Zimmerman", 2, _zimmerman, (0, 100), [[7, 2]], 0.0)
fixed("Zirilli", 2, lambda X: X[0]**4 / 4 - X[0]**2 / 2 + X[0] / 10 + X[1]**2 / 2, (-10, 10),
      [[-1.0465, 0.0]], -0.35238603)

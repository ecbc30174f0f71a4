"""An independent transcription of SciPy's go_benchmark_functions formulas, in plain mpmath.

Written separately from ``functions/scipy_go`` (directly from each formula as SciPy's
``fun`` computes it, with no shared helpers), so that a slip in either one shows up as a
disagreement in ``tests/test_scipy_go.py``.  ``x`` is a list of mpmath numbers, 0-based.
"""
from mpmath import cos, exp, fabs, log, mpf, pi, sin, sqrt

e = exp(1)


def _s(v):
    return mpf(v)


def _sq(v):
    return v * v


def _prod(vs):
    out = mpf(1)
    for v in vs:
        out *= v
    return out


def _sgn(v):
    return (v > 0) - (v < 0)


def _sig(u):
    return 1 / (1 + exp(-u))


def ackley01(x):
    N = len(x)
    return (-20 * exp(-_s("0.2") * sqrt(sum(v**2 for v in x) / N))
            - exp(sum(cos(2 * pi * v) for v in x) / N) + 20 + e)


def biggs(k, x):
    m = 11 if k == 5 else 10
    tot = 0
    for j in range(1, m + 1):
        t = mpf(j) / 10
        yv = exp(-t) - 5 * exp(-10 * t) + (3 * exp(-4 * t) if k == 5 else 0)
        if k == 2:
            r = exp(-t * x[0]) - 5 * exp(-t * x[1]) - yv
        elif k == 3:
            r = exp(-t * x[0]) - x[2] * exp(-t * x[1]) - yv
        elif k == 4:
            r = x[2] * exp(-t * x[0]) - x[3] * exp(-t * x[1]) - yv
        else:
            r = x[2] * exp(-t * x[0]) - x[3] * exp(-t * x[1]) + 3 * exp(-t * x[4]) - yv
        tot += r**2
    return tot


COLA_D = [[0] * 10, [1.27], [1.69, 1.43], [2.04, 2.35, 2.43], [3.09, 3.18, 3.26, 2.85],
          [3.20, 3.22, 3.27, 2.88, 1.55], [2.86, 2.56, 2.58, 2.59, 3.12, 3.06],
          [3.17, 3.18, 3.18, 3.12, 1.31, 1.64, 3.00], [3.21, 3.18, 3.18, 3.17, 1.70, 1.36, 2.95, 1.32],
          [2.38, 2.31, 2.42, 1.94, 2.85, 2.81, 2.56, 2.91, 2.97]]


def cola(x):
    xs = [mpf(0), x[0]] + list(x[1::2])
    ys = [mpf(0), mpf(0)] + list(x[2::2])
    tot = 0
    for a in range(10):
        for b in range(a):
            tot += (sqrt((xs[a] - xs[b])**2 + (ys[a] - ys[b])**2) - _s(str(COLA_D[a][b])))**2
    return tot


def hartmann(A, P, x):
    C = [1, _s("1.2"), 3, _s("3.2")]
    return -sum(C[r] * exp(-sum(_s(str(A[r][k])) * (x[k] - _s(str(P[r][k])))**2
                                for k in range(len(x)))) for r in range(4))


H3A = [[3, 10, 30], [0.1, 10, 35], [3, 10, 30], [0.1, 10, 35]]
H3P = [[0.3689, 0.1170, 0.2673], [0.4699, 0.4387, 0.7470], [0.1091, 0.8732, 0.5547],
       [0.03815, 0.5743, 0.8828]]
H6A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8],
       [17, 8, 0.05, 10, 0.1, 14]]
H6P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886], [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
       [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.665], [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]

ECK_A = [1.5750000E-04, 1.6990000E-04, 2.3500000E-04, 3.1020000E-04, 4.9170000E-04, 8.7100000E-04,
         1.7418000E-03, 4.6400000E-03, 6.5895000E-03, 9.7302000E-03, 1.4900200E-02, 2.3731000E-02,
         4.0168300E-02, 7.1255900E-02, 1.2644580E-01, 2.0734130E-01, 2.9023660E-01, 3.4456230E-01,
         3.6980490E-01, 3.6685340E-01, 3.1067270E-01, 2.0781540E-01, 1.1643540E-01, 6.1676400E-02,
         3.3720000E-02, 1.9402300E-02, 1.1783100E-02, 7.4357000E-03, 2.2732000E-03, 8.8000000E-04,
         4.5790000E-04, 2.3450000E-04, 1.5860000E-04, 1.1430000E-04, 7.1000000E-05]
ECK_B = [400, 405, 410, 415, 420, 425, 430, 435, 436.5, 438, 439.5, 441, 442.5, 444, 445.5, 447,
         448.5, 450, 451.5, 453, 454.5, 456, 457.5, 459, 460.5, 462, 463.5, 465, 470, 475, 480, 485,
         490, 495, 500]
JUDGE_C = [4.284, 4.149, 3.877, 0.533, 2.211, 2.389, 2.145, 3.231, 1.998, 1.379, 2.106, 1.428, 1.011,
           2.179, 2.858, 1.388, 1.651, 1.593, 1.046, 2.152]
JUDGE_A = [0.286, 0.973, 0.384, 0.276, 0.973, 0.543, 0.957, 0.948, 0.543, 0.797, 0.936, 0.889, 0.006,
           0.828, 0.399, 0.617, 0.939, 0.784, 0.072, 0.889]
JUDGE_B = [0.645, 0.585, 0.310, 0.058, 0.455, 0.779, 0.259, 0.202, 0.028, 0.099, 0.142, 0.296, 0.175,
           0.180, 0.842, 0.039, 0.103, 0.620, 0.158, 0.704]
KOW_A = [4.0, 2.0, 1.0, 1 / 2.0, 1 / 4.0, 1 / 6.0, 1 / 8.0, 1 / 10.0, 1 / 12.0, 1 / 14.0, 1 / 16.0]
KOW_B = [0.1957, 0.1947, 0.1735, 0.1600, 0.0844, 0.0627, 0.0456, 0.0342, 0.0323, 0.0235, 0.0246]
MEYER_A = [3.478E+04, 2.861E+04, 2.365E+04, 1.963E+04, 1.637E+04, 1.372E+04, 1.154E+04, 9.744E+03,
           8.261E+03, 7.030E+03, 6.005E+03, 5.147E+03, 4.427E+03, 3.820E+03, 3.307E+03, 2.872E+03]
RAT1_A = [16.08, 33.83, 65.80, 97.20, 191.55, 326.20, 386.87, 520.53, 590.03, 651.92, 724.93, 699.56,
          689.96, 637.56, 717.41]
RAT2_A = [8.93, 10.8, 18.59, 22.33, 39.35, 56.11, 61.73, 64.62, 67.08]
RAT2_B = [9., 14., 21., 28., 42., 57., 63., 70., 79.]
SHEKEL_A = [[4, 4, 4, 4], [1, 1, 1, 1], [8, 8, 8, 8], [6, 6, 6, 6], [3, 7, 3, 7], [2, 9, 2, 9],
            [5, 5, 3, 3], [8, 1, 8, 1], [6, 2, 6, 2], [7, 3.6, 7, 3.6]]
SHEKEL_C = [0.1, 0.2, 0.2, 0.4, 0.4, 0.6, 0.3, 0.7, 0.5, 0.5]
TH_A = [80.574, 84.248, 87.264, 87.195, 89.076, 89.608, 89.868, 90.101, 92.405, 95.854, 100.696,
        101.06, 401.672, 390.724, 567.534, 635.316, 733.054, 759.087, 894.206, 990.785, 1090.109,
        1080.914, 1122.643, 1178.351, 1260.531, 1273.514, 1288.339, 1327.543, 1353.863, 1414.509,
        1425.208, 1421.384, 1442.962, 1464.350, 1468.705, 1447.894, 1457.628]
TH_B = [-3.067, -2.981, -2.921, -2.912, -2.840, -2.797, -2.702, -2.699, -2.633, -2.481, -2.363,
        -2.322, -1.501, -1.460, -1.274, -1.212, -1.100, -1.046, -0.915, -0.714, -0.566, -0.545,
        -0.400, -0.309, -0.109, -0.103, 0.010, 0.119, 0.377, 0.790, 0.963, 1.006, 1.115, 1.572,
        1.841, 2.047, 2.200]


def D(v):
    """A decimal literal as the exact number it denotes (at mpmath's working precision)."""
    return _s(repr(float(v)))


def deceptive(x):
    """SciPy's code, branch by branch: alpha_i = i / (n + 1), beta = 2."""
    n = len(x)
    total = mpf(0)
    for k, v in enumerate(x):
        a = mpf(k + 1) / (n + 1)
        if v <= 0:
            g = v
        elif v < D(0.8) * a:
            g = -v / a + D(0.8)
        elif v < a:
            g = 5 * v / a - 4
        elif v < (1 + 4 * a) / 5:
            g = 5 * (v - a) / (a - 1) + 1
        elif v <= 1:
            g = (v - 1) / (1 - a) + D(0.8)
        else:
            g = v - 1
        total += g
    return -(total / n)**2


def _cross_u(x):
    return fabs(sin(x[0]) * sin(x[1]) * exp(fabs(100 - sqrt(x[0]**2 + x[1]**2) / pi))) + 1


def _poly10(t):
    return (t**10 - 20 * t**9 + 180 * t**8 - 960 * t**7 + 3360 * t**6 - 8064 * t**5 + 13340 * t**4
            - 15360 * t**3 + 11520 * t**2 - 5120 * t + 2624)


def _poly4(t):
    return t**4 + 12 * t**3 + 54 * t**2 + 108 * t + 81


def _schaffer(num, x):
    return D(0.5) + (num - D(0.5)) / (1 + D(0.001) * (x[0]**2 + x[1]**2))**2


def _penalty_u(v, a):
    return 100 * (fabs(v) - a)**4 if fabs(v) > a else 0


REF = {
    "Ackley01": ackley01,
    "Ackley02": lambda x: -200 * exp(-D(0.02) * sqrt(x[0]**2 + x[1]**2)),
    "Ackley03": lambda x: -200 * exp(-D(0.02) * sqrt(x[0]**2 + x[1]**2))
    + 5 * exp(cos(3 * x[0]) + sin(3 * x[1])),
    "Adjiman": lambda x: cos(x[0]) * sin(x[1]) - x[0] / (x[1]**2 + 1),
    "Alpine01": lambda x: sum(fabs(v * sin(v) + D(0.1) * v) for v in x),
    "Alpine02": lambda x: _prod(sqrt(v) * sin(v) for v in x),
    "BartelsConn": lambda x: fabs(x[0]**2 + x[1]**2 + x[0] * x[1]) + fabs(sin(x[0])) + fabs(cos(x[1])),
    "Beale": lambda x: (D(1.5) - x[0] + x[0] * x[1])**2 + (D(2.25) - x[0] + x[0] * x[1]**2)**2
    + (D(2.625) - x[0] + x[0] * x[1]**3)**2,
    "BiggsExp02": lambda x: biggs(2, x), "BiggsExp03": lambda x: biggs(3, x),
    "BiggsExp04": lambda x: biggs(4, x), "BiggsExp05": lambda x: biggs(5, x),
    "Bird": lambda x: sin(x[0]) * exp((1 - cos(x[1]))**2) + cos(x[1]) * exp((1 - sin(x[0]))**2)
    + (x[0] - x[1])**2,
    "Bohachevsky1": lambda x: x[0]**2 + 2 * x[1]**2 - D(0.3) * cos(3 * pi * x[0])
    - D(0.4) * cos(4 * pi * x[1]) + D(0.7),
    "Bohachevsky2": lambda x: x[0]**2 + 2 * x[1]**2 - D(0.3) * cos(3 * pi * x[0]) * cos(4 * pi * x[1])
    + D(0.3),
    "Bohachevsky3": lambda x: x[0]**2 + 2 * x[1]**2 - D(0.3) * cos(3 * pi * x[0] + 4 * pi * x[1]) + D(0.3),
    "BoxBetts": lambda x: sum((exp(-x[0] * k / 10) - exp(-x[1] * k / 10)
                               - (exp(-mpf(k) / 10) - exp(-k)) * x[2])**2 for k in range(1, 11)),
    "Branin01": lambda x: (x[1] - D(5.1) / (4 * pi**2) * x[0]**2 + 5 * x[0] / pi - 6)**2
    + 10 * (1 - 1 / (8 * pi)) * cos(x[0]) + 10,
    "Branin02": lambda x: (x[1] - D(5.1) / (4 * pi**2) * x[0]**2 + 5 * x[0] / pi - 6)**2
    + 10 * (1 - 1 / (8 * pi)) * cos(x[0]) * cos(x[1]) + log(x[0]**2 + x[1]**2 + 1) + 10,
    "Brent": lambda x: (x[0] + 10)**2 + (x[1] + 10)**2 + exp(-x[0]**2 - x[1]**2),
    "Bukin02": lambda x: 100 * (x[1]**2 - D(0.01) * x[0]**2 + 1) + D(0.01) * (x[0] + 10)**2,
    "Bukin04": lambda x: 100 * x[1]**2 + D(0.01) * fabs(x[0] + 10),
    "Bukin06": lambda x: 100 * sqrt(fabs(x[1] - D(0.01) * x[0]**2)) + D(0.01) * fabs(x[0] + 10),
    "CarromTable": lambda x: -(cos(x[0]) * cos(x[1]) * exp(fabs(1 - sqrt(x[0]**2 + x[1]**2) / pi)))**2 / 30,
    "Chichinadze": lambda x: x[0]**2 - 12 * x[0] + 11 + 10 * cos(pi * x[0] / 2) + 8 * sin(5 * pi * x[0] / 2)
    - 1 / sqrt(5) * exp(-((x[1] - D(0.5))**2) / 2),
    "Cigar": lambda x: x[0]**2 + 10**6 * sum(v**2 for v in x[1:]),
    "Cola": cola,
    "Colville": lambda x: 100 * (x[0] - x[1]**2)**2 + (1 - x[0])**2 + (1 - x[2])**2 + 90 * (x[3] - x[2]**2)**2
    + D(10.1) * ((x[1] - 1)**2 + (x[3] - 1)**2) + D(19.8) * (x[1] - 1) * (x[3] - 1),
    "CosineMixture": lambda x: -D(0.1) * sum(cos(5 * pi * v) for v in x) + sum(v**2 for v in x),
    "CrossInTray": lambda x: -D(0.0001) * _cross_u(x)**D(0.1),
    "CrossLegTable": lambda x: -_cross_u(x)**(-D(0.1)),
    "CrownedCross": lambda x: D(0.0001) * _cross_u(x)**D(0.1),
    "Cube": lambda x: 100 * (x[1] - x[0]**3)**2 + (1 - x[0])**2,
    "Deb01": lambda x: -sum(sin(5 * pi * v)**6 for v in x) / len(x),
    "Deb03": lambda x: -sum(sin(5 * pi * (v**D(0.75) - D(0.05)))**6 for v in x) / len(x),
    "Decanomial": lambda x: D(0.001) * (fabs(_poly4(x[1])) + fabs(_poly10(x[0])))**2,
    "Deceptive": deceptive,
    "DeckkersAarts": lambda x: 10**5 * x[0]**2 + x[1]**2 - (x[0]**2 + x[1]**2)**2
    + D(1e-5) * (x[0]**2 + x[1]**2)**4,
    "DeflectedCorrugatedSpring": lambda x: -cos(5 * sqrt(sum((v - 5)**2 for v in x)))
    + D(0.1) * sum((v - 5)**2 for v in x),
    "DixonPrice": lambda x: (x[0] - 1)**2 + sum(k * (2 * x[k - 1]**2 - x[k - 2])**2
                                                for k in range(2, len(x) + 1)),
    "Dolan": lambda x: fabs((x[0] + D(1.7) * x[1]) * sin(x[0]) - D(1.5) * x[2]
                            - D(0.1) * x[3] * cos(x[3] + x[4] - x[0]) + D(0.2) * x[4]**2 - x[1] - 1),
    "DropWave": lambda x: -(1 + cos(12 * sqrt(x[0]**2 + x[1]**2))) / (D(0.5) * (x[0]**2 + x[1]**2) + 2),
    "Easom": lambda x: -cos(x[0]) * cos(x[1]) * exp(-((x[0] - pi)**2 + (x[1] - pi)**2)),
    "Eckerle4": lambda x: sum((D(a) - x[0] / x[1] * exp(-(D(b) - x[2])**2 / (2 * x[1]**2)))**2
                              for a, b in zip(ECK_A, ECK_B)),
    "EggCrate": lambda x: x[0]**2 + x[1]**2 + 25 * (sin(x[0])**2 + sin(x[1])**2),
    "EggHolder": lambda x: sum(-(x[k + 1] + 47) * sin(sqrt(fabs(x[k + 1] + x[k] / 2 + 47)))
                               - x[k] * sin(sqrt(fabs(x[k] - (x[k + 1] + 47))))
                               for k in range(len(x) - 1)),
    "ElAttarVidyasagarDutta": lambda x: (x[0]**2 + x[1] - 10)**2 + (x[0] + x[1]**2 - 7)**2
    + (x[0]**2 + x[1]**3 - 1)**2,
    "Exp2": lambda x: sum((exp(-k * x[0] / 10) - 5 * exp(-k * x[1] / 10) - exp(-mpf(k) / 10)
                           + 5 * exp(-k))**2 for k in range(10)),
    "Exponential": lambda x: -exp(-sum(v**2 for v in x) / 2),
    "FreudensteinRoth": lambda x: (-13 + x[0] + ((5 - x[1]) * x[1] - 2) * x[1])**2
    + (-29 + x[0] + ((x[1] + 1) * x[1] - 14) * x[1])**2,
    "Giunta": lambda x: D(0.6) + sum(sin(16 * v / 15 - 1) + sin(16 * v / 15 - 1)**2
                                     + sin(4 * (16 * v / 15 - 1)) / 50 for v in x),
    "GoldsteinPrice": lambda x: (1 + (x[0] + x[1] + 1)**2 * (19 - 14 * x[0] + 3 * x[0]**2 - 14 * x[1]
                                                             + 6 * x[0] * x[1] + 3 * x[1]**2))
    * (30 + (2 * x[0] - 3 * x[1])**2 * (18 - 32 * x[0] + 12 * x[0]**2 + 48 * x[1] - 36 * x[0] * x[1]
                                        + 27 * x[1]**2)),
    "Griewank": lambda x: sum(v**2 for v in x) / 4000
    - _prod(cos(v / sqrt(k)) for k, v in enumerate(x, 1)) + 1,
    "Hansen": lambda x: sum((k + 1) * cos(k * x[0] + k + 1) for k in range(5))
    * sum((k + 1) * cos((k + 2) * x[1] + k + 1) for k in range(5)),
    "Hartmann3": lambda x: hartmann(H3A, H3P, x),
    "Hartmann6": lambda x: hartmann(H6A, H6P, x),
    "HimmelBlau": lambda x: (x[0]**2 + x[1] - 11)**2 + (x[0] + x[1]**2 - 7)**2,
    "HolderTable": lambda x: -fabs(sin(x[0]) * cos(x[1]) * exp(fabs(1 - sqrt(x[0]**2 + x[1]**2) / pi))),
    "Hosaki": lambda x: (1 - 8 * x[0] + 7 * x[0]**2 - mpf(7) / 3 * x[0]**3 + x[0]**4 / 4)
    * x[1]**2 * exp(-x[1]),
    "JennrichSampson": lambda x: sum((2 + 2 * k - (exp(k * x[0]) + exp(k * x[1])))**2 for k in range(1, 11)),
    "Judge": lambda x: sum((x[0] + x[1] * D(a) + x[1]**2 * D(b) - D(c))**2
                           for a, b, c in zip(JUDGE_A, JUDGE_B, JUDGE_C)),
    "Keane": lambda x: sin(x[0] - x[1])**2 * sin(x[0] + x[1])**2 / sqrt(x[0]**2 + x[1]**2),
    "Kowalik": lambda x: sum((D(b) - x[0] * (D(a)**2 + D(a) * x[1]) / (D(a)**2 + D(a) * x[2] + x[3]))**2
                             for a, b in zip(KOW_A, KOW_B)),
    "Langermann": lambda x: -sum(c * exp(-((x[0] - a)**2 + (x[1] - b)**2) / pi)
                                 * cos(pi * ((x[0] - a)**2 + (x[1] - b)**2))
                                 for a, b, c in zip([3, 5, 2, 1, 7], [5, 2, 1, 4, 9], [1, 2, 5, 2, 3])),
    "Leon": lambda x: 100 * (x[1] - x[0]**2)**2 + (1 - x[0])**2,
    "Levy03": lambda x: sin(pi * (1 + (x[0] - 1) / 4))**2
    + ((x[0] - 1) / 4)**2 * (1 + 10 * sin(pi * (1 + (x[1] - 1) / 4))**2) + ((x[1] - 1) / 4)**2,
    "Levy05": lambda x: sum(k * cos((k - 1) * x[0] + k) for k in range(1, 6))
    * sum(k * cos((k + 1) * x[1] + k) for k in range(1, 6)) + (x[0] + D(1.42513))**2
    + (x[1] + D(0.80032))**2,
    "Levy13": lambda x: sin(3 * pi * x[0])**2 + (x[0] - 1)**2 * (1 + sin(3 * pi * x[1])**2)
    + (x[1] - 1)**2 * (1 + sin(2 * pi * x[1])**2),
    "Matyas": lambda x: D(0.26) * (x[0]**2 + x[1]**2) - D(0.48) * x[0] * x[1],
    "McCormick": lambda x: sin(x[0] + x[1]) + (x[0] - x[1])**2 - D(1.5) * x[0] + D(2.5) * x[1] + 1,
    "Meyer": lambda x: sum((D(a) - x[0] * exp(x[1] / (50 + 5 * k + x[2])))**2
                           for k, a in enumerate(MEYER_A)),
    "Michalewicz": lambda x: -sum(sin(v) * sin(k * v**2 / pi)**20 for k, v in enumerate(x, 1)),
    "MieleCantrell": lambda x: (exp(-x[0]) - x[1])**4 + 100 * (x[1] - x[2])**6
    + (sin(x[2] - x[3]) / cos(x[2] - x[3]))**4 + x[0]**8,
    "Mishra01": lambda x: (1 + (len(x) - sum(x[:-1])))**(len(x) - sum(x[:-1])),
    "Mishra02": lambda x: (1 + (len(x) - sum((x[k] + x[k + 1]) / 2 for k in range(len(x) - 1))))
    ** (len(x) - sum((x[k] + x[k + 1]) / 2 for k in range(len(x) - 1))),
    "Mishra03": lambda x: D(0.01) * (x[0] + x[1]) + sqrt(fabs(cos(sqrt(fabs(x[0]**2 + x[1]**2))))),
    "Mishra04": lambda x: D(0.01) * (x[0] + x[1]) + sqrt(fabs(sin(sqrt(fabs(x[0]**2 + x[1]**2))))),
    "Mishra05": lambda x: D(0.01) * x[0] + D(0.1) * x[1] + (sin((cos(x[0]) + cos(x[1]))**2)**2
                                                            + cos((sin(x[0]) + sin(x[1]))**2)**2 + x[0])**2,
    "Mishra06": lambda x: D(0.1) * ((x[0] - 1)**2 + (x[1] - 1)**2)
    - log((sin((cos(x[0]) + cos(x[1]))**2)**2 - cos((sin(x[0]) + sin(x[1]))**2)**2 + x[0])**2),
    "Mishra08": lambda x: D(0.001) * (fabs(_poly10(x[0])) + fabs(_poly4(x[1])))**2,
    "Mishra09": lambda x: _mishra09(x),
    "Mishra11": lambda x: (sum(fabs(v) for v in x) / len(x) - _prod(fabs(v) for v in x) / len(x))**2,
    "MultiModal": lambda x: sum(fabs(v) for v in x) * _prod(fabs(v) for v in x),
    "NewFunction01": lambda x: fabs(cos(sqrt(fabs(x[0]**2 + x[1]))))**D(0.5) + D(0.01) * (x[0] + x[1]),
    "NewFunction02": lambda x: fabs(sin(sqrt(fabs(x[0]**2 + x[1]))))**D(0.5) + D(0.01) * (x[0] + x[1]),
    "OddSquare": lambda x: _odd_square(x),
    "Parsopoulos": lambda x: cos(x[0])**2 + sin(x[1])**2,
    "Pathological": lambda x: D(0.5) + (sin(sqrt(100 * x[0]**2 + x[1]**2))**2 - D(0.5))
    / (1 + D(0.001) * (x[0]**2 - 2 * x[0] * x[1] + x[1]**2)**2),
    "Paviani": lambda x: sum(log(v - 2)**2 + log(10 - v)**2 for v in x) - _prod(x)**D(0.2),
    "Penalty01": lambda x: _penalty01(x),
    "Penalty02": lambda x: sum(_penalty_u(v, 5) for v in x) + D(0.1) * (
        10 * sin(3 * pi * x[0])**2 + sum((x[k] - 1)**2 * (1 + sin(3 * pi * x[k + 1])**2)
                                         for k in range(len(x) - 1))
        + (x[-1] - 1)**2 * (1 + sin(2 * pi * x[-1])**2)),
    "PenHolder": lambda x: -exp(-1 / fabs(cos(x[0]) * cos(x[1]) * exp(fabs(1 - sqrt(x[0]**2 + x[1]**2) / pi)))),
    "Powell": lambda x: (x[0] + 10 * x[1])**2 + 5 * (x[2] - x[3])**2 + (x[1] - 2 * x[2])**4
    + 10 * (x[0] - x[3])**4,
    "PowerSum": lambda x: sum((sum(v**k for v in x) - b)**2 for k, b in zip(range(1, 5), [8, 18, 44, 114])),
    "Price01": lambda x: (fabs(x[0]) - 5)**2 + (fabs(x[1]) - 5)**2,
    "Price02": lambda x: 1 + sin(x[0])**2 + sin(x[1])**2 - D(0.1) * exp(-x[0]**2 - x[1]**2),
    "Price03": lambda x: 100 * (x[1] - x[0]**2)**2 + (D(6.4) * (x[1] - D(0.5))**2 - x[0] - D(0.6))**2,
    "Price04": lambda x: (2 * x[1] * x[0]**3 - x[1]**3)**2 + (6 * x[0] - x[1]**2 + x[1])**2,
    "Qing": lambda x: sum((v**2 - k)**2 for k, v in enumerate(x, 1)),
    "Quadratic": lambda x: -D(3803.84) - D(138.08) * x[0] - D(232.92) * x[1] + D(128.08) * x[0]**2
    + D(203.64) * x[1]**2 + D(182.25) * x[0] * x[1],
    "Quintic": lambda x: sum(fabs(v**5 - 3 * v**4 + 4 * v**3 + 2 * v**2 - 10 * v - 4) for v in x),
    "Rana": lambda x: sum((x[k + 1] + 1) * cos(sqrt(fabs(x[k + 1] - x[k] + 1))) * sin(sqrt(fabs(x[k + 1] + x[k] + 1)))
                          + x[k] * cos(sqrt(fabs(x[k + 1] + x[k] + 1))) * sin(sqrt(fabs(x[k + 1] - x[k] + 1)))
                          for k in range(len(x) - 1)),
    "Rastrigin": lambda x: 10 * len(x) + sum(v**2 - 10 * cos(2 * pi * v) for v in x),
    "Ratkowsky01": lambda x: sum((D(a) - x[0] / (1 + exp(x[1] - x[2] * b))**(1 / x[3]))**2
                                 for b, a in enumerate(RAT1_A, 1)),
    "Ratkowsky02": lambda x: sum((D(a) - x[0] / (1 + exp(x[1] - x[2] * b)))**2 for a, b in zip(RAT2_A, RAT2_B)),
    "Ripple01": lambda x: sum(-exp(-2 * log(2) * ((v - D(0.1)) / D(0.8))**2)
                              * (sin(5 * pi * v)**6 + D(0.1) * cos(500 * pi * v)**2) for v in x),
    "Ripple25": lambda x: sum(-exp(-2 * log(2) * ((v - D(0.1)) / D(0.8))**2) * sin(5 * pi * v)**6 for v in x),
    "Rosenbrock": lambda x: sum(100 * (x[k + 1] - x[k]**2)**2 + (1 - x[k])**2 for k in range(len(x) - 1)),
    "RosenbrockModified": lambda x: 74 + 100 * (x[1] - x[0]**2)**2 + (1 - x[0])**2
    - 400 * exp(-((x[0] + 1)**2 + (x[1] + 1)**2) / D(0.1)),
    "RotatedEllipse01": lambda x: 7 * x[0]**2 - 6 * sqrt(3) * x[0] * x[1] + 13 * x[1]**2,
    "RotatedEllipse02": lambda x: x[0]**2 - x[0] * x[1] + x[1]**2,
    "Salomon": lambda x: 1 - cos(2 * pi * sqrt(sum(v**2 for v in x))) + D(0.1) * sqrt(sum(v**2 for v in x)),
    "Sargan": lambda x: sum(len(x) * (v**2 + D(0.4) * sum(x[k] * x[k + 1] for k in range(len(x) - 1)))
                            for v in x),
    "Schaffer01": lambda x: _schaffer(sin(x[0]**2 + x[1]**2)**2, x),
    "Schaffer02": lambda x: _schaffer(sin(x[0]**2 - x[1]**2)**2, x),
    "Schaffer03": lambda x: _schaffer(sin(cos(fabs(x[0]**2 - x[1]**2)))**2, x),
    "Schaffer04": lambda x: _schaffer(cos(sin(fabs(x[0]**2 - x[1]**2)))**2, x),
    "Schwefel04": lambda x: sum((v - 1)**2 + (x[0] - v**2)**2 for v in x),
    "Schwefel06": lambda x: max(fabs(x[0] + 2 * x[1] - 7), fabs(2 * x[0] + x[1] - 5)),
    "Schwefel20": lambda x: sum(fabs(v) for v in x),
    "Schwefel22": lambda x: sum(fabs(v) for v in x) + _prod(fabs(v) for v in x),
    "Schwefel26": lambda x: D(418.982887) * len(x) - sum(v * sin(sqrt(fabs(v))) for v in x),
    "Schwefel36": lambda x: -x[0] * x[1] * (72 - 2 * x[0] - 2 * x[1]),
    "Shekel05": lambda x: _shekel(5, x), "Shekel07": lambda x: _shekel(7, x),
    "Shekel10": lambda x: _shekel(10, x),
    "Shubert01": lambda x: _prod(sum(j * cos((j + 1) * v + j) for j in range(1, 6)) for v in x),
    "Shubert03": lambda x: sum(-j * sin((j + 1) * v + j) for j in range(1, 6) for v in x),
    "Shubert04": lambda x: sum(-j * cos((j + 1) * v + j) for j in range(1, 6) for v in x),
    "SineEnvelope": lambda x: sum((sin(sqrt(x[k]**2 + x[k + 1]**2))**2 - D(0.5))
                                  / (1 + D(0.001) * (x[k]**2 + x[k + 1]**2))**2 + D(0.5)
                                  for k in range(len(x) - 1)),
    "SixHumpCamel": lambda x: (4 - D(2.1) * x[0]**2 + x[0]**4 / 3) * x[0]**2 + x[0] * x[1]
    + (4 * x[1]**2 - 4) * x[1]**2,
    "Sphere": lambda x: sum(v**2 for v in x),
    "StretchedV": lambda x: sum((x[k + 1]**2 + x[k]**2)**D(0.25) * sin(50 * (x[k + 1]**2 + x[k]**2)**D(0.1) + 1)**2
                                for k in range(len(x) - 1)),
    "StyblinskiTang": lambda x: sum(v**4 - 16 * v**2 + 5 * v for v in x) / 2,
    "TestTubeHolder": lambda x: -4 * fabs(sin(x[0]) * cos(x[1]) * exp(fabs(cos((x[0]**2 + x[1]**2) / 200)))),
    "Thurber": lambda x: sum((D(a) - (x[0] + x[1] * D(b) + x[2] * D(b)**2 + x[3] * D(b)**3)
                              / (1 + x[4] * D(b) + x[5] * D(b)**2 + x[6] * D(b)**3))**2
                             for a, b in zip(TH_A, TH_B)),
    "Treccani": lambda x: x[0]**4 + 4 * x[0]**3 + 4 * x[0]**2 + x[1]**2,
    "Trefethen": lambda x: D(0.25) * x[0]**2 + D(0.25) * x[1]**2 + exp(sin(50 * x[0]))
    - sin(10 * x[0] + 10 * x[1]) + sin(60 * exp(x[1])) + sin(70 * sin(x[0])) + sin(sin(80 * x[1])),
    "ThreeHumpCamel": lambda x: 2 * x[0]**2 - D(1.05) * x[0]**4 + x[0]**6 / 6 + x[0] * x[1] + x[1]**2,
    "Trid": lambda x: sum((v - 1)**2 for v in x) - sum(x[k + 1] * x[k] for k in range(len(x) - 1)),
    "Trigonometric01": lambda x: sum((len(x) - sum(cos(v) + k * (1 - cos(v) - sin(v)) for v in x))**2
                                     for k in range(1, len(x) + 1)),
    "Trigonometric02": lambda x: 1 + sum(8 * sin(7 * (v - D(0.9))**2)**2 + 6 * sin(14 * (v - D(0.9))**2)**2
                                         + (v - D(0.9))**2 for v in x),
    "Ursem01": lambda x: -sin(2 * x[0] - D(0.5) * pi) - 3 * cos(x[1]) - D(0.5) * x[0],
    "Ursem03": lambda x: sum(-(sin(D(2.2) * pi * v + D(0.5) * pi) * ((2 - fabs(v)) / 2) * ((3 - fabs(v)) / 2))
                             for v in x),
    "Ursem04": lambda x: -3 * sin(D(0.5) * pi * x[0] + D(0.5) * pi) * (2 - sqrt(x[0]**2 + x[1]**2)) / 4,
    "UrsemWaves": lambda x: -D(0.9) * x[0]**2 + (x[1]**2 - D(4.5) * x[1]**2) * x[0] * x[1]
    + D(4.7) * cos(3 * x[0] - x[1]**2 * (2 + x[0])) * sin(D(2.5) * pi * x[0]),
    "VenterSobiezcczanskiSobieski": lambda x: x[0]**2 - 100 * cos(x[0])**2 - 100 * cos(x[0]**2 / 30)
    + x[1]**2 - 100 * cos(x[1])**2 - 100 * cos(x[1]**2 / 30),
    "Vincent": lambda x: -sum(sin(10 * log(v)) for v in x),
    "Watson": lambda x: _watson(x),
    "Wavy": lambda x: 1 - sum(cos(10 * v) * exp(-v**2 / 2) for v in x) / len(x),
    "WayburnSeader01": lambda x: (x[0]**6 + x[1]**4 - 17)**2 + (2 * x[0] + x[1] - 4)**2,
    "WayburnSeader02": lambda x: (D(1.613) - 4 * (x[0] - D(0.3125))**2 - 4 * (x[1] - D(1.625))**2)**2
    + (x[1] - 1)**2,
    "Weierstrass": lambda x: sum(mpf(0.5)**k * cos(2 * pi * mpf(3)**k * (v + D(0.5)))
                                 for k in range(21) for v in x)
    - len(x) * sum(mpf(0.5)**k * cos(pi * mpf(3)**k) for k in range(21)),
    "Wolfe": lambda x: mpf(4) / 3 * (x[0]**2 + x[1]**2 - x[0] * x[1])**D(0.75) + x[2],
    "XinSheYang02": lambda x: sum(fabs(v) for v in x) * exp(-sum(sin(v**2) for v in x)),
    "XinSheYang03": lambda x: exp(-sum((v / 15)**10 for v in x)) - 2 * exp(-sum(v**2 for v in x))
    * _prod(cos(v)**2 for v in x),
    "XinSheYang04": lambda x: (sum(sin(v)**2 for v in x) - exp(-sum(v**2 for v in x)))
    * exp(-sum(sin(sqrt(fabs(v)))**2 for v in x)),
    "Xor": lambda x: _xor(x),
    "YaoLiu09": lambda x: sum(v**2 - 10 * cos(2 * pi * v) + 10 for v in x),
    "Zacharov": lambda x: sum(v**2 for v in x) + (D(0.5) * sum(k * v for k, v in enumerate(x, 1)))**2
    + (D(0.5) * sum(k * v for k, v in enumerate(x, 1)))**4,
    "Zettl": lambda x: (x[0]**2 + x[1]**2 - 2 * x[0])**2 + D(0.25) * x[0],
    "Zimmerman": lambda x: _zimmerman(x),
    "Zirilli": lambda x: D(0.25) * x[0]**4 - D(0.5) * x[0]**2 + D(0.1) * x[0] + D(0.5) * x[1]**2,
}


def _mishra09(x):
    a = 2 * x[0]**3 + 5 * x[0] * x[1] + 4 * x[2] - 2 * x[0]**2 * x[2] - 18
    b = x[0] + x[1]**3 + x[0] * x[1]**2 + x[0] * x[2]**2 - 22
    c = 8 * x[0]**2 + 2 * x[1] * x[2] + 2 * x[1]**2 + 3 * x[1]**3 - 52
    return (a * c * b**2 + a * b * c**2 + b**2 + (x[0] + x[1] - x[2])**2)**2


def _odd_square(x):
    b = [mpf(1), D(1.3)]
    d = 2 * max((x[0] - b[0])**2, (x[1] - b[1])**2)
    h = (x[0] - b[0])**2 + (x[1] - b[1])**2
    return -exp(-d / (2 * pi)) * cos(pi * d) * (1 + D(0.02) * h / (d + D(0.01)))


def _penalty01(x):
    yy = [1 + (v + 1) / 4 for v in x]
    return sum(_penalty_u(v, 10) for v in x) + pi / 30 * (
        10 * sin(pi * yy[0])**2 + sum((yy[k] - 1)**2 * (1 + 10 * sin(pi * yy[k + 1])**2)
                                      for k in range(len(x) - 1)) + (yy[-1] - 1)**2)


def _shekel(m, x):
    return -sum(1 / (sum((x[k] - D(SHEKEL_A[r][k]))**2 for k in range(4)) + D(SHEKEL_C[r]))
                for r in range(m))


def _watson(x):
    tot = x[0]**2
    for r in range(30):
        a = mpf(r) / 29
        t1 = sum((j + 1) * a**j * x[j + 1] for j in range(5))
        t2 = sum(a**k * x[k] for k in range(6))
        tot += (t1 - t2**2 - 1)**2
    return tot


def _xor(x):
    F1 = (1 + exp(-x[6] / (1 + exp(-x[0] - x[1] - x[4])) - x[7] / (1 + exp(-x[2] - x[3] - x[5])) - x[8]))**(-2)
    F2 = (1 + exp(-x[6] / (1 + exp(-x[4])) - x[7] / (1 + exp(-x[5])) - x[8]))**(-2)
    F3 = (1 - 1 / (1 + exp(-x[6] / (1 + exp(-x[0] - x[4])) - x[7] / (1 + exp(-x[2] - x[5])) - x[8])))**2
    F4 = (1 - 1 / (1 + exp(-x[6] / (1 + exp(-x[1] - x[4])) - x[7] / (1 + exp(-x[3] - x[5])) - x[8])))**2
    return F1 + F2 + F3 + F4


def _zimmerman(x):
    h1 = 9 - x[0] - x[1]
    h2 = (x[0] - 3)**2 + (x[1] - 2)**2 - 16
    h3 = x[0] * x[1] - 14

    def zp(t):
        return 100 * (1 + t)

    return max(h1, zp(h2) * _sgn(h2), zp(h3) * _sgn(h3), zp(-x[0]) * _sgn(x[0]), zp(-x[1]) * _sgn(x[1]))


# Scalable in SciPy, expressed at its default n = 2 only: transcribed here for general n.
def _pinter(x):
    N = len(x)
    xx = [x[-1]] + list(x) + [x[0]]
    tot = 0
    for k in range(1, N + 1):
        a = xx[k - 1] * sin(xx[k]) + sin(xx[k + 1])
        b = xx[k - 1]**2 - 2 * xx[k] + 3 * xx[k + 1] - cos(xx[k]) + 1
        tot += k * x[k - 1]**2 + 20 * k * sin(a)**2 + k * log(1 + k * b**2, 10)
    return tot


def _whitley(x):
    tot = 0
    for xi in x:
        for xj in x:
            t = 100 * (xi**2 - xj) + (1 - xj)**2
            tot += t**2 / 4000 - cos(t) + 1
    return tot


REF.update({
    "AMGM": lambda x: (sum(x) / len(x) - _prod(x)**(mpf(1) / len(x)))**2,
    "Mishra07": lambda x: (_prod(x) - _prod(range(1, len(x) + 1)))**2,
    "PermFunction01": lambda x: sum(sum((j**k + D(0.5)) * ((x[j - 1] / j)**k - 1) for j in range(1, len(x) + 1))**2
                                    for k in range(1, len(x) + 1)),
    "PermFunction02": lambda x: sum(sum((j + 10) * (x[j - 1]**k - (mpf(1) / j)**k) for j in range(1, len(x) + 1))**2
                                    for k in range(1, len(x) + 1)),
    "Pinter": _pinter,
    "Schwefel02": lambda x: sum(sum(x[:k])**2 for k in range(1, len(x) + 1)),
    "Schwefel21": lambda x: max(fabs(v) for v in x),
    "YaoLiu04": lambda x: max(fabs(v) for v in x),
    "Sodp": lambda x: sum(fabs(v)**(k + 1) for k, v in enumerate(x, 1)),
    "Whitley": _whitley,
})


def _dvg1(x):
    tot = 0
    for k in range(24):
        t = mpf(k) / 10
        yv = D(60.137) * D(1.371)**t * sin(D(3.112) * t + D(1.761))
        tot += (x[0] * x[1]**t * sin(x[2] * t + x[3]) - yv)**2
    return tot


def _dvg2(x):
    from mpmath import tanh
    tot = 0
    for k in range(16):
        t = mpf(k) / 10
        yv = D(53.81) * D(1.27)**t * tanh(D(3.012) * t + sin(D(2.13) * t)) * cos(exp(D(0.507)) * t)
        tot += (x[0] * x[1]**t * tanh(x[2] * t + sin(x[3] * t)) * cos(t * exp(x[4])) - yv)**2
    return tot


REF.update({"DeVilliersGlasser01": _dvg1, "DeVilliersGlasser02": _dvg2})


# ---------------------------------------------------------------- floor, round, int, branches
def _np_round(v):
    """numpy's round: to the nearest integer, ties to even."""
    import mpmath
    f = mpmath.floor(v)
    r = v - f
    if r > mpf(1) / 2 or (r == mpf(1) / 2 and int(f) % 2 != 0):
        return f + 1
    return f


def _int(v):
    """Python's int(): toward zero."""
    import mpmath
    return mpmath.floor(v) if v >= 0 else -mpmath.floor(-v)


def _corana(x):
    from mpmath import floor
    d = [1, 1000, 10, 100]
    r = 0
    for j in range(4):
        zj = floor(fabs(x[j] / D(0.2)) + D(0.49999)) * _sgn(x[j]) * D(0.2)
        if fabs(x[j] - zj) < D(0.05):
            r += D(0.15) * (zj - D(0.05) * _sgn(zj))**2 * d[j]
        else:
            r += d[j] * x[j] * x[j]
    return r


def _katsuura(x):
    tot = mpf(1)
    for i, v in enumerate(x):
        inner = sum(_np_round(2**k * v) * mpf(2)**(-k) for k in range(1, 33))
        tot *= inner * (i + 1) + 1
    return tot


def _needle_eye(x):
    f, fp = mpf(0), 0
    for v in x:
        if fabs(v) >= D(0.0001):
            fp = 1
            f += 100 + fabs(v)
        else:
            f += 1
    return f / len(x) if fp == 0 else f


def _tripod(x):
    p1 = 1 if x[0] >= 0 else 0
    p2 = 1 if x[1] >= 0 else 0
    return p2 * (1 + p1) + fabs(x[0] + 50 * p2 * (1 - 2 * p1)) + fabs(x[1] + 50 * (1 - 2 * p2))


def _zero_sum(x):
    s = sum(x)
    return mpf(0) if fabs(s) < D(3e-16) else 1 + sqrt(10000 * fabs(s))


def _gear(x):
    from mpmath import floor
    return (1 / D(6.931) - floor(x[0]) * floor(x[1]) / floor(x[2]) / floor(x[3]))**2


def _mishra10(x):
    a, b = _int(x[0]), _int(x[1])
    return ((a + b) - a * b)**2


def _floor_sum(x, shift):
    from mpmath import floor
    return shift + sum(floor(fabs(v)) for v in x)


def _step2(x):
    from mpmath import floor
    return sum((floor(v) + mpf(1) / 2)**2 for v in x)


REF.update({"Corana": _corana, "Gear": _gear, "Katsuura": _katsuura, "Mishra10": _mishra10,
            "NeedleEye": _needle_eye, "Plateau": lambda x: _floor_sum(x, 30), "Step": lambda x: _floor_sum(x, 0),
            "Step2": _step2, "Tripod": _tripod, "ZeroSum": _zero_sum})

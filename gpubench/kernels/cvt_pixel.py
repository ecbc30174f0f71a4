"""The one jump-flooding step of a pixel, shared by the CUDA kernel (:mod:`.cvt_gpu`, as a device
function) and its CPU twin (:mod:`.cvt_cpu`, as an njit function): the same loop, order and tie
rule on both, so their assignments agree pixel for pixel.  Plain Python: each backend compiles it.
"""
import math


def nearest_neighbour_site(x, R, step, src, i, j, empty):
    """The nearest to pixel (i, j)'s centre of the sites its 9 neighbours at +-step hold in ``src``
    (ties: the smaller index); ``empty`` where none holds one."""
    h = 1.0 / R
    px = (i + 0.5) * h
    py = (j + 0.5) * h
    best = empty
    bd = math.inf
    for dj in range(-1, 2):
        jj = j + dj * step
        if jj < 0 or jj >= R:
            continue
        for di in range(-1, 2):
            ii = i + di * step
            if ii < 0 or ii >= R:
                continue
            s = src[jj * R + ii]
            if s == empty:
                continue
            dx = px - x[2 * s]
            dy = py - x[2 * s + 1]
            d = dx * dx + dy * dy
            if d < bd or (d == bd and s < best):
                bd = d
                best = s
    return best

"""The device loop's time limit (solver/devloop.py ``run``), on a fake clock and a fake device.

The host cannot stop a launch: it checks the limit between launches and chooses how many
iterations the next one runs.  On the H200 Rana n = 10 ran 37.8 s on a 30 s limit.  The batch
doubled after every launch shorter than BATCH_SECONDS, and launches cut short by a stop code (a full
list, a lowered GUB) are short whatever their batch, so a batch could reach MAX_BATCH and the next
launch run that many iterations, slowed by L's growth (5.4e8 entries); then L (8.6 GB) was copied
back after the limit had been read.  Here a fake device whose
iterations slow as L grows, which stops a launch where the list is full and where GUB is lowered,
and whose download takes time too, runs on a fake clock: the search must end within a second of
its limit, having used it.
"""
import math
from types import SimpleNamespace

import numpy as np
import pytest

from gpubench.methods import monitor
from gpubench.methods.solver import devloop as D

LIMIT = 30.0


class Clock:
    def __init__(self):
        self.now = 1000.0

    def perf_counter(self):
        return self.now


class FakeLoop:
    """The device state that ``run`` reads, with the kernel's timing: an iteration appends COUNT
    entries and takes 1 ms + 20 ns an entry of L (the compaction reads all of L); a launch stops
    after an iteration that lowered GUB (the first LOWERING iterations do) or where the list has no
    room for the next iteration's subregions (stop code FULL, the host then doubles it); the final
    download takes 1 us an entry."""
    COUNT = 1000
    LOWERING = 14

    def __init__(self, search, clock, foresee=True):
        self.search, self.clock = search, clock
        self.count = self.COUNT
        self.descend = 0
        self.ist_host = np.zeros(D.NIST, np.int64)
        self.fst_host = np.zeros(D.NFST, np.float64)
        self.ist_host[D.NOPEN] = 1
        self.lcap = 1 << 14
        self.hist = []
        self.launches = 0
        self.longest = 0.0
        if not foresee:   # a device loop that does not foresee its download (the check must fail then)
            self.download_seconds = lambda: 0.0

    def upload(self):
        pass

    def _list_room(self, need):
        self.lcap = max(need, 2 * self.lcap)

    def advance(self, iterations):
        h, t0 = self.ist_host, self.clock.now
        self.launches += 1
        for _ in range(iterations):
            if h[D.SIZE] + self.count > self.lcap:
                h[D.STOP] = D.FULL
                break
            self.clock.now += 1e-3 + 2e-8 * h[D.SIZE]
            h[D.SIZE] += self.count
            h[D.IT] += 1
            self.hist.append(int(h[D.SIZE]))
            if h[D.IT] <= self.LOWERING:
                self.fst_host[D.GUB] -= 1.0
                h[D.STOP] = D.LOWERED
                break
        self.longest = max(self.longest, self.clock.now - t0)
        return len(self.hist) - self.search.state.iteration

    def history(self, start, stop):
        return [-math.inf] * (stop - start), [float(self.fst_host[D.GUB])] * (stop - start), self.hist[start:stop]

    def clear_stop(self):
        self.ist_host[D.STOP] = 0

    def download_seconds(self):
        return 1e-6 * int(self.ist_host[D.SIZE])

    def download(self):
        self.clock.now += 1e-6 * int(self.ist_host[D.SIZE])


def _search():
    state = SimpleNamespace(iteration=0, hist_glb=[], hist_gub=[], hist_size=[], nfev=0, njev=0, gub=0.0,
                            best_x=None, best_iteration=-1, best_index=0, seconds=0.0, regions=None)
    return SimpleNamespace(settings=SimpleNamespace(samples=2, max_iterations=None), state=state,
                           _gap_closed=lambda: False)


def _run(monkeypatch, foresee=True):
    clock = Clock()
    monkeypatch.setattr(D, "time", clock)
    monkeypatch.setattr(monitor, "clock", clock.perf_counter)
    search = _search()
    monkeypatch.setattr(D, "DeviceLoop", lambda s: FakeLoop(s, clock, foresee))
    deadline = monitor.Deadline(LIMIT)
    message, stop = D.run(search, deadline)
    return clock.now - deadline.start, message, stop, search


def test_the_device_loop_ends_within_a_second_of_its_time_limit(monkeypatch):
    took, message, stop, search = _run(monkeypatch)
    loop = search.device_loop
    assert stop == "time_limit" and "time_limit" in message
    assert LIMIT - 1.0 <= took <= LIMIT + 1.0, took          # the limit honoured, and used
    assert loop.longest <= 2 * D.BATCH_SECONDS + 0.1          # no launch far longer than a batch
    assert search.state.iteration == len(loop.hist) > 1000     # the fake device did run the search


def test_the_final_download_is_foreseen(monkeypatch):
    """Without the download's seconds foreseen the same search ends over its limit (L holds over a million
    entries at the end, 1 us each to copy back)."""
    took, _, _, search = _run(monkeypatch, foresee=False)
    assert took > LIMIT + 1.0
    assert 1e-6 * search.state.hist_size[-1] > 1.0


@pytest.mark.parametrize("per_iteration, left, want", [
    (None, 10.0, 64),          # nothing measured yet: the batch
    (1e-4, None, 64),          # fast iterations, no limit: the batch
    (0.01, None, 25),          # 0.25 s of 10 ms iterations
    (0.01, 0.05, 5),           # 50 ms left
    (0.01, 0.001, 1),          # less than an iteration left: one
    (2.0, 100.0, 1),           # an iteration longer than a batch: one a launch
])
def test_a_launch_runs_what_fits_its_batch_seconds_and_the_time_left(per_iteration, left, want):
    assert D.launch_size(64, per_iteration, left) == want

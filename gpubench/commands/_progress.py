"""Progress on stderr while a method runs: a live line on a terminal, a line at intervals otherwise."""
import math
import sys
import threading
import time


class Progress:
    """``Progress(stream)(state)`` shows a search state; ``ticker()`` shows elapsed time for any method.

    On a terminal the line is redrawn at most five times a second; when stderr
    is a pipe or a file a full line is written every ``every`` seconds, so a
    long run is never silent in a log.
    """

    def __init__(self, stream=None, every=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every = every if every is not None else (0.2 if self.tty else 30.0)
        self.last = time.perf_counter()
        self.t0 = self.last
        self.shown = False

    def _write(self, text):
        if self.tty:
            self.stream.write("\r" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True

    def __call__(self, state):
        now = time.perf_counter()
        if now - self.last < self.every:
            return
        self.last = now
        glb = state.hist_glb[-1] if state.hist_glb else -math.inf
        self._write(f"iteration {state.iteration:6d}  |L| {len(state.regions):9d}  "
                    f"GLB {glb: .10g}  GUB {state.gub: .10g}  {state.seconds:8.1f} s")

    def ticker(self, label):
        """A context manager that shows ``label`` and the elapsed time until the block ends."""
        prog = self

        class _Tick:
            def __enter__(self):
                self.stop = threading.Event()
                self.thread = threading.Thread(target=self._loop, daemon=True)
                self.thread.start()
                return self

            def _loop(self):
                from ..methods.monitor import progress_line
                while not self.stop.wait(prog.every):
                    seconds = time.perf_counter() - prog.t0
                    if seconds >= 2.0:  # a run that answers within ~2 s shows nothing
                        prog._write(progress_line(label, seconds))

            def __exit__(self, *exc):
                self.stop.set()
                self.thread.join()
                prog.close()
        return _Tick()

    def close(self):
        if self.shown and self.tty:
            self.stream.write("\n")
            self.stream.flush()

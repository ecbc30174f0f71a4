"""A sweep's progress as it runs: a line per case on a pipe or a log, a live bar on a terminal."""
import time


class PlainProgress:
    """One line per event, for logs and pipes."""

    def __init__(self, title, total, stream):
        self.title, self.total, self.stream = title, total, stream
        self.done = 0
        self.t0 = time.perf_counter()

    def _say(self, text):
        print(text, file=self.stream, flush=True)

    def start(self, cases):
        if len(cases) == 1:
            self._say(f"[{self.done + 1}/{self.total}] {cases[0].describe()} ...")

    def finish(self, case, record):
        self.done += 1
        m = record["measured"]
        bits = [f"{m['seconds']:.2f} s"]
        if m.get("glb") is not None:
            bits.append(f"GLB {m['glb']:.6g} GUB {m['gub']:.6g}, {m['iterations']} its, {m['regions']} region(s)")
        elif m.get("fun") is not None:
            bits.append(f"best f {m['fun']:.6g}")
        bits.append("success" if record["success"] else "no success")
        self._say(f"[{self.done}/{self.total}] {case.describe()}: {', '.join(bits)}; "
                  f"elapsed {time.perf_counter() - self.t0:.1f} s")

    def close(self):
        pass


class RichProgress:
    """A live bar on a terminal: cases done of total, the current case(s), elapsed time."""

    def __init__(self, title, total, stream):
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                                   TimeElapsedColumn)
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.fields[title]}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("{task.description}"),
                                 console=Console(file=stream), transient=False)
        self.progress.start()
        self.task = self.progress.add_task("", total=total, title=title)
        self.running = {}

    def start(self, cases):
        for c in cases:
            self.running[c.case_id] = c
        self._show()

    def _show(self):
        cur = list(self.running.values())
        text = cur[0].describe() if len(cur) == 1 else f"{len(cur)} cases running" if cur else ""
        self.progress.update(self.task, description=text)

    def finish(self, case, record):
        self.running.pop(case.case_id, None)
        m = record["measured"]
        self.progress.console.print(f"  {case.describe()}: {m['seconds']:.2f} s, "
                                    f"{'success' if record['success'] else 'no success'}")
        self.progress.advance(self.task)
        self._show()

    def close(self):
        self.progress.stop()


def progress(title, total, stream, fancy=None):
    if fancy is None:
        fancy = stream.isatty()
    return (RichProgress if fancy else PlainProgress)(title, total, stream)


# ---------------------------------------------------------------- Dask

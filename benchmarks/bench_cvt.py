"""One evaluation of the CVT energy and gradient by jump flooding (paper 004, Table 2's
"Evaluation" column): ``gpubench.problems.cvt.CVT.fg``."""
from . import _common as C


class CpuCvt:
    """The numba twin at 256 x 256 pixels (its test size range), 500 sites."""
    params = [256]
    param_names = ["resolution"]

    def setup(self, resolution):
        from gpubench.problems import cvt
        self.p = cvt.CVT(500, resolution, "uniform", seed=0, backend="cpu")
        self.p.fg(self.p.x0)        # JIT outside the timing

    def time_evaluation(self, resolution):
        self.p.fg(self.p.x0)


class CudaCvt:
    """The CUDA kernels at the paper's resolutions, 60,000 sites (4,000 at 512), sites already
    on the device (CuPy); synchronized."""
    params = [512, 1024, 2048]
    param_names = ["resolution"]
    timeout = 300

    def setup(self, resolution):
        C.require_cuda()
        try:
            import cupy
        except ImportError:
            raise NotImplementedError("the CVT problem on CUDA needs CuPy") from None
        from gpubench.problems import cvt
        self.p = cvt.CVT(60000 if resolution > 512 else 4000, resolution, "uniform", seed=0, backend="cuda")
        self.x = cupy.asarray(self.p.x0)
        self.p.fg(self.x)
        C.synchronize()

    def time_evaluation(self, resolution):
        self.p.fg(self.x)
        C.synchronize()

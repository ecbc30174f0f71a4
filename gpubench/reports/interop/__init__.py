"""Other tools read gpubench's comparison data: cocopp (COCO) and IOHanalyzer (IOHprofiler).

Each submodule writes or reads one documented format (docs/interop.md) and runs the real
client where there is a Python one; the files themselves are written by
:mod:`gpubench.reports.compare` (COCO) and :mod:`gpubench.reports.interop.ioh` (IOHprofiler).
"""
